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

// An argument value {"$artifact": "<ref>"} (optionally with the preview, size
// and mime fields of the envelope the chain received) is replaced by the
// blob's content, decoded by its media type:
//
//   - application/json (and any +json type): the JSON value itself;
//   - text/*: a JSON string of the text;
//   - anything else: a JSON string of the bytes in standard base64, which a
//     Go tool receives as []byte.
//
// Only refs the session created or was granted resolve; an unknown, malformed
// or foreign ref fails with artifact_not_found, the same answer in each case.

// errNotFound marks a ref that must be reported as artifact_not_found.
var errNotFound = errors.New("artifact not found")

// errTooLarge marks refs that expand past Policy.MaxResolvedBytes.
var errTooLarge = errors.New("artifacts too large")

type resolver struct {
	ctx    context.Context
	sess   *session.Session
	store  Store
	budget int64
	ref    string // the ref that failed, for the message
}

func (inv *Invoker) resolve(ctx context.Context, sess *session.Session, args json.RawMessage) (json.RawMessage, Result, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, fail(session.StatusError, ReasonInvalidArguments, "arguments must be a single JSON object"), true
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fail(session.StatusError, ReasonInvalidArguments, "arguments must be a JSON object"), true
	}
	r := &resolver{ctx: ctx, sess: sess, store: inv.store, budget: inv.policy.MaxResolvedBytes}
	v, err := r.walk(v)
	switch {
	case err == nil:
	case errors.Is(err, errNotFound):
		return nil, fail(session.StatusError, ReasonArtifactNotFound,
			fmt.Sprintf("artifact %q was not found or is not readable by this chain", clip(r.ref))), true
	case errors.Is(err, errTooLarge):
		return nil, fail(session.StatusError, ReasonArtifactTooLarge,
			fmt.Sprintf("the artifacts passed to one call exceed %d bytes", inv.policy.MaxResolvedBytes)), true
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

var envelopeKeys = map[string]bool{"$artifact": true, "preview": true, "size": true, "mime": true}

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
			return r.load(ref)
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

func (r *resolver) load(ref string) (any, error) {
	if r.store == nil || !r.sess.CanRead(ref) {
		return nil, errNotFound
	}
	rc, attrs, err := r.store.Open(r.ctx, r.sess.Tenant(), ref)
	if err != nil {
		if isNotFound(err) {
			return nil, errNotFound
		}
		return nil, err
	}
	defer rc.Close()
	if attrs.Size > r.budget {
		return nil, errTooLarge
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
			return nil, fmt.Errorf("artifact %s holds invalid JSON", ref)
		}
		return json.RawMessage(data), nil
	case strings.HasPrefix(mt, "text/"):
		return string(data), nil
	}
	return data, nil // encodes as base64
}

func isNotFound(err error) bool { return errors.Is(err, blobstore.ErrNotFound) }
