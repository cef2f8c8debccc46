package invoker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

const (
	mimeJSON = "application/json"
	mimeText = "text/plain; charset=utf-8"
)

var nullJSON = json.RawMessage("null")

// shape turns a tool's Output into the chain's Result: small JSON inline,
// large JSON offloaded as an artifact, media stored as files. Everything it
// stores is charged to the artifact quotas first, all at once, so a result
// that does not fit stores nothing.
func (inv *Invoker) shape(ctx context.Context, sess *session.Session, st *callState, out toolbox.Output) (res Result) {
	value := out.JSON
	if len(value) == 0 {
		value = nullJSON
	} else if !json.Valid(value) {
		return fail(session.StatusError, ReasonInvalidResult, fmt.Sprintf("tool %q returned a result that is not valid JSON", st.tool))
	}
	st.resultBytes = len(out.JSON)
	for _, m := range out.Media {
		st.resultBytes += len(m.Data)
	}
	if st.maxOutChars > 0 && (len(value) <= inv.policy.MaxInlineResultBytes || inv.store == nil) {
		cut, truncated, err := truncateStrings(value, st.maxOutChars)
		if err != nil {
			return fail(session.StatusError, ReasonInvalidResult, fmt.Sprintf("tool %q returned a result that is not valid JSON", st.tool))
		}
		value = cut
		defer func() { res.Truncated = truncated && res.OK() }()
	}
	res = Result{Status: session.StatusOK, Value: value}
	audit(&res, out)

	var data []byte // the offloaded form of value, nil when inline
	var mime string
	if len(value) > inv.policy.MaxInlineResultBytes && inv.store != nil {
		data, mime = offloadForm(value)
	}
	var charged int64 // bytes charged and not yet stored
	if inv.store != nil {
		charged = int64(len(data))
		for _, m := range out.Media {
			charged += int64(len(m.Data))
		}
		if charged > 0 {
			if r, ok := inv.charge(ctx, sess, charged); !ok {
				return r
			}
		}
	}
	defer func() { inv.refund(sess, charged) }()

	if data != nil {
		attrs, stored, err := inv.put(ctx, sess, data, mime)
		if stored {
			charged -= int64(len(data))
		}
		if err != nil {
			return inv.storeFailed(ctx, err)
		}
		st.refs = append(st.refs, attrs.Ref)
		res.Artifact = &Artifact{Ref: attrs.Ref, Preview: preview(data, inv.policy.PreviewChars), Size: attrs.Size, MIME: mime}
		if res.Plain = len(value) <= inv.policy.MaxGuestValueBytes; !res.Plain {
			res.Value, _ = json.Marshal(res.Artifact)
		}
	}
	if len(out.Media) == 0 {
		return res
	}
	files := make([]ChainFile, 0, len(out.Media))
	for _, m := range out.Media {
		f := ChainFile{
			Path: fmt.Sprintf("/workspace/media/%s_%d%s", st.tool, sess.NextFileIndex(st.tool), extension(m.MIME)),
			MIME: m.MIME, Size: int64(len(m.Data)), Source: clipTo(m.Source, 1024),
		}
		if inv.store == nil {
			f.Data = m.Data
		} else {
			attrs, stored, err := inv.put(ctx, sess, m.Data, m.MIME)
			if stored {
				charged -= int64(len(m.Data))
			}
			if err != nil {
				return inv.storeFailed(ctx, err)
			}
			f.Ref = attrs.Ref
			st.refs = append(st.refs, attrs.Ref)
		}
		files = append(files, f)
	}
	res.Files = files
	res.Value, _ = json.Marshal(struct {
		Value json.RawMessage `json:"value"`
		Files []ChainFile     `json:"files"`
	}{res.Value, files})
	return res
}

// offloadForm returns the bytes and media type a large result is stored
// as: a JSON string as its text, so it downloads as text and resolves back
// to the same string; anything else as JSON.
func offloadForm(value json.RawMessage) ([]byte, string) {
	if value[0] == '"' {
		var s string
		if err := json.Unmarshal(value, &s); err == nil {
			return []byte(s), mimeText
		}
	}
	return value, mimeJSON
}

// put stores data, counts it against its tenant's live artifacts and pins
// it to the session. stored reports whether the blob was stored: with an
// error, it is then unpinned, expires with the store's TTL and is counted
// until then.
func (inv *Invoker) put(ctx context.Context, sess *session.Session, data []byte, mime string) (attrs blobstore.Attrs, stored bool, err error) {
	attrs, err = inv.store.Put(ctx, sess.Tenant(), bytes.NewReader(data), mime)
	if err != nil {
		return attrs, false, err
	}
	if err := sess.Pin(ctx, attrs.Ref); err != nil {
		inv.ledger.stored(sess.Tenant(), attrs.Ref, int64(len(data)), false)
		return attrs, true, err
	}
	inv.ledger.stored(sess.Tenant(), attrs.Ref, int64(len(data)), inv.ledger.tracks(sess))
	return attrs, true, nil
}

func (inv *Invoker) storeFailed(ctx context.Context, err error) Result {
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	if errors.Is(err, session.ErrClosed) {
		return fail(session.StatusError, ReasonCancelled, "the chain ended before the result could be kept")
	}
	inv.log.Warn("invoker: storing a result failed", "err", err)
	return fail(session.StatusError, ReasonStoreError, "the tool ran but its result could not be stored; its effects stand")
}

// preview returns the first n characters of data, never cutting a UTF-8
// sequence; invalid bytes become U+FFFD.
func preview(data []byte, n int) string {
	var b []rune
	for i := 0; i < len(data) && len(b) < n; {
		r, size := utf8.DecodeRune(data[i:])
		b = append(b, r)
		i += size
	}
	return string(b)
}

var extensions = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"image/svg+xml": ".svg", "audio/mpeg": ".mp3", "audio/wav": ".wav", "audio/x-wav": ".wav",
	"audio/ogg": ".ogg", "video/mp4": ".mp4", "application/pdf": ".pdf",
	"text/csv": ".csv", "text/plain": ".txt", "application/json": ".json",
}

func extension(mime string) string {
	if i := bytes.IndexByte([]byte(mime), ';'); i >= 0 {
		mime = mime[:i]
	}
	if e, ok := extensions[mime]; ok {
		return e
	}
	return ".bin"
}
