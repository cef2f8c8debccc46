package invoker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/session"
)

// An argument value {"$artifact": "<ref>"} (optionally with the preview,
// size, mime and sha256 fields of an envelope) is replaced by the blob's
// content, decoded by its media type:
//
//   - application/json (and any +json type): the JSON value itself;
//   - text/*: a JSON string of the text;
//   - anything else: a JSON string of the bytes in standard base64, which a
//     Go tool receives as []byte.
//
// Only refs the session created or was granted resolve; an unknown, malformed
// or foreign ref fails with artifact_not_found, the same answer in each case.
// The preview, size and mime fields a script sends are ignored: they are the
// script's claims. Before approval the refs are described instead of loaded
// (see describe), and a sha256 field, which only that description adds, must
// match the stored blob.

var (
	// errNotFound marks a ref that must be reported as artifact_not_found.
	errNotFound = errors.New("artifact not found")
	// errTooLarge marks refs that expand past Policy.MaxResolvedBytes.
	errTooLarge = errors.New("artifacts too large")
	// errBusy marks refs that would take the process past MaxResolvingBytes.
	errBusy = errors.New("too many artifact bytes in flight")
	// errBadContent marks a JSON blob that does not hold valid JSON.
	errBadContent = errors.New("artifact holds invalid JSON")
)

type resolver struct {
	ctx    context.Context
	inv    *Invoker
	sess   *session.Session
	st     *callState
	load   bool // load content (step 5) rather than describe (step 4)
	budget int64
	ref    string // the ref that failed, for the message
}

// resolve replaces the artifact refs in args: with their content when load is
// set, otherwise with the store's description of them
// ({"$artifact", "sha256", "size", "mime"}) for the approver to bind to.
func (inv *Invoker) resolve(ctx context.Context, sess *session.Session, st *callState, args json.RawMessage, load bool) (json.RawMessage, Result, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, fail(session.StatusError, ReasonInvalidArguments, "arguments must be a single JSON object"), true
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fail(session.StatusError, ReasonInvalidArguments, "arguments must be a JSON object"), true
	}
	r := &resolver{ctx: ctx, inv: inv, sess: sess, st: st, load: load, budget: inv.policy.MaxResolvedBytes}
	v, err := r.walk(v)
	switch {
	case err == nil:
	case errors.Is(err, errNotFound):
		return nil, fail(session.StatusError, ReasonArtifactNotFound,
			fmt.Sprintf("artifact %q was not found or is not readable by this chain", clip(r.ref))), true
	case errors.Is(err, errTooLarge):
		return nil, fail(session.StatusError, ReasonArtifactTooLarge,
			fmt.Sprintf("the artifacts passed to one call exceed %d bytes", inv.policy.MaxResolvedBytes)), true
	case errors.Is(err, errBusy):
		return nil, fail(session.StatusError, ReasonHostBusy,
			"the host is resolving too many artifact bytes for other calls right now; retry later"), true
	case errors.Is(err, errBadContent):
		return nil, fail(session.StatusError, ReasonInvalidArguments,
			fmt.Sprintf("artifact %q is stored as JSON but does not hold valid JSON", clip(r.ref))), true
	case ctx.Err() != nil:
		return nil, cancelled(ctx), true
	default:
		inv.log.Warn("invoker: resolving artifact failed", "err", err)
		return nil, fail(session.StatusError, ReasonStoreError, "the artifact store failed while reading an argument; try again"), true
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fail(session.StatusError, ReasonInternal, "re-encoding resolved arguments failed"), true
	}
	return out, Result{}, false
}

var envelopeKeys = map[string]bool{"$artifact": true, "preview": true, "size": true, "mime": true, "sha256": true}

func (r *resolver) walk(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		if raw, ok := t["$artifact"]; ok && isEnvelope(t) {
			ref, _ := raw.(string)
			r.ref = ref
			if ref == "" {
				r.ref = fmt.Sprint(raw)
				return nil, errNotFound
			}
			sum, _ := t["sha256"].(string)
			if r.load {
				return r.content(ref, sum)
			}
			return r.describe(ref)
		}
		for k, c := range t {
			nv, err := r.walk(c)
			if err != nil {
				return nil, err
			}
			t[k] = nv
		}
		return t, nil
	case []any:
		for i, c := range t {
			nv, err := r.walk(c)
			if err != nil {
				return nil, err
			}
			t[i] = nv
		}
		return t, nil
	}
	return v, nil
}

func isEnvelope(m map[string]any) bool {
	for k := range m {
		if !envelopeKeys[k] {
			return false
		}
	}
	return true
}

// stat checks that the session may read ref and returns its attributes.
func (r *resolver) stat(ref string) (blobstore.Attrs, error) {
	if r.inv.store == nil || !r.sess.CanRead(ref) {
		return blobstore.Attrs{}, errNotFound
	}
	attrs, err := r.inv.store.Stat(r.ctx, r.sess.Tenant(), ref)
	if errors.Is(err, blobstore.ErrNotFound) {
		return attrs, errNotFound
	}
	return attrs, err
}

// describe is what the approver sees of a ref: the store's facts.
func (r *resolver) describe(ref string) (any, error) {
	attrs, err := r.stat(ref)
	if err != nil {
		return nil, err
	}
	return map[string]any{"$artifact": ref, "sha256": attrs.SHA256, "size": attrs.Size, "mime": attrs.ContentType}, nil
}

// content loads ref and decodes it by media type. sum, when set, is the
// sha256 the approver saw; the stored blob must still match it.
func (r *resolver) content(ref, sum string) (any, error) {
	if r.inv.store == nil || !r.sess.CanRead(ref) {
		return nil, errNotFound
	}
	rc, attrs, err := r.inv.store.Open(r.ctx, r.sess.Tenant(), ref)
	if err != nil {
		if errors.Is(err, blobstore.ErrNotFound) {
			return nil, errNotFound
		}
		return nil, err
	}
	defer rc.Close()
	if sum != "" && sum != attrs.SHA256 {
		return nil, errNotFound
	}
	if attrs.Size > r.budget {
		return nil, errTooLarge
	}
	if err := r.reserve(attrs.Size); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(rc, r.budget+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > r.budget {
		return nil, errTooLarge
	}
	r.budget -= int64(len(data))
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(attrs.ContentType, ";", 2)[0]))
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		if !json.Valid(data) {
			return nil, errBadContent
		}
		return json.RawMessage(data), nil
	case strings.HasPrefix(mt, "text/"):
		return string(data), nil
	}
	return data, nil // encodes as base64
}

// reserve counts n bytes against the process-wide MaxResolvingBytes until the
// call ends.
func (r *resolver) reserve(n int64) error {
	if r.inv.resolving.Add(n) > r.inv.maxResolving {
		r.inv.resolving.Add(-n)
		return errBusy
	}
	r.st.reserved += n
	return nil
}
