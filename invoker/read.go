package invoker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/session"
)

// ReadArtifact returns the content of the artifact ref for a chain's own
// code to read (a script's artifact.text()), if sess may read it (it made
// the ref or was granted it) and it holds at most max bytes; size is the
// artifact's size whenever the store told it. The size is checked before
// the content is opened, and the bytes count against the process-wide
// MaxResolvingBytes while they are read. A refused read is a Result with
// status error and reason artifact_not_found (unknown, foreign and
// malformed refs alike), artifact_too_large, host_busy, cancelled or
// store_error.
func (inv *Invoker) ReadArtifact(ctx context.Context, sess *session.Session, ref string, max int64) (data []byte, size int64, res Result) {
	notFound := fail(session.StatusError, ReasonArtifactNotFound, fmt.Sprintf("artifact %.64q not found: only refs this chain was handed can be read", ref))
	if inv.store == nil || !sess.CanRead(ref) {
		return nil, 0, notFound
	}
	attrs, err := inv.store.Stat(ctx, sess.Tenant(), ref)
	if errors.Is(err, blobstore.ErrNotFound) {
		return nil, 0, notFound
	}
	if err != nil {
		return nil, 0, inv.storeFailed(ctx, err)
	}
	if attrs.Size > max {
		return nil, attrs.Size, fail(session.StatusError, ReasonArtifactTooLarge,
			fmt.Sprintf("artifact %s holds %d bytes, more than the %d that may be read now", ref, attrs.Size, max))
	}
	if inv.resolving.Add(attrs.Size) > inv.maxResolving {
		inv.resolving.Add(-attrs.Size)
		return nil, attrs.Size, fail(session.StatusError, ReasonHostBusy, "too many artifact bytes are being read on this host; try again")
	}
	defer inv.resolving.Add(-attrs.Size)
	rc, _, err := inv.store.Open(ctx, sess.Tenant(), ref)
	if errors.Is(err, blobstore.ErrNotFound) {
		return nil, attrs.Size, notFound
	}
	if err != nil {
		return nil, attrs.Size, inv.storeFailed(ctx, err)
	}
	defer rc.Close()
	// At most the size checked above, whatever the blob holds now.
	data, err = io.ReadAll(io.LimitReader(rc, attrs.Size))
	if err != nil {
		return nil, attrs.Size, inv.storeFailed(ctx, err)
	}
	return data, attrs.Size, Result{Status: session.StatusOK}
}

// ShapeFinal shapes a chain's final value for the agent that asked for it:
// at most Policy.MaxFinalValueBytes it is returned as it is; larger, it is
// stored like an offloaded tool result (pinned to sess, charged to its
// quotas) and its Artifact envelope returned instead. A value that cannot
// be stored is returned as it is, with the Result that says why.
func (inv *Invoker) ShapeFinal(ctx context.Context, sess *session.Session, value json.RawMessage) (json.RawMessage, *Artifact, Result) {
	if len(value) <= inv.policy.MaxFinalValueBytes || inv.store == nil {
		return value, nil, Result{Status: session.StatusOK}
	}
	data, mime := offloadForm(value)
	n := int64(len(data))
	if r, ok := inv.charge(ctx, sess, n); !ok {
		return value, nil, r
	}
	attrs, stored, err := inv.put(ctx, sess, data, mime)
	if !stored {
		inv.refund(sess, n)
	}
	if err != nil {
		return value, nil, inv.storeFailed(ctx, err)
	}
	a := &Artifact{Ref: attrs.Ref, Preview: preview(data, inv.policy.PreviewChars), Size: attrs.Size, MIME: mime}
	out, _ := json.Marshal(a)
	return out, a, Result{Status: session.StatusOK}
}
