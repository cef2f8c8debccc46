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
// large JSON offloaded as an artifact, media stored as files.
func (inv *Invoker) shape(ctx context.Context, sess *session.Session, st *callState, out toolbox.Output) Result {
	value := out.JSON
	if len(value) == 0 {
		value = nullJSON
	} else if !json.Valid(value) {
		return fail(session.StatusError, ReasonInvalidResult, fmt.Sprintf("tool %q returned a result that is not valid JSON", st.tool))
	}
	st.resultBytes = len(out.JSON)
	res := Result{Status: session.StatusOK, Value: value}
	if len(value) > inv.policy.MaxInlineResultBytes && inv.store != nil {
		art, err := inv.offload(ctx, sess, value)
		if err != nil {
			return inv.storeFailed(ctx, err)
		}
		st.refs = append(st.refs, art.Ref)
		res.Artifact = art
		res.Value, _ = json.Marshal(art)
	}
	if len(out.Media) == 0 {
		return res
	}
	files := make([]ChainFile, 0, len(out.Media))
	for _, m := range out.Media {
		st.resultBytes += len(m.Data)
		f := ChainFile{
			Path: fmt.Sprintf("/workspace/media/%s_%d%s", st.tool, sess.NextFileIndex(st.tool), extension(m.MIME)),
			MIME: m.MIME, Size: int64(len(m.Data)),
		}
		if inv.store == nil {
			f.Data = m.Data
		} else {
			attrs, err := inv.put(ctx, sess, m.Data, m.MIME)
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

func (inv *Invoker) offload(ctx context.Context, sess *session.Session, value json.RawMessage) (*Artifact, error) {
	data, mime := []byte(value), mimeJSON
	if value[0] == '"' {
		// A string result is stored as its text, so it downloads as text and
		// resolves back to the same string.
		var s string
		if err := json.Unmarshal(value, &s); err == nil {
			data, mime = []byte(s), mimeText
		}
	}
	attrs, err := inv.put(ctx, sess, data, mime)
	if err != nil {
		return nil, err
	}
	return &Artifact{Ref: attrs.Ref, Preview: preview(data, inv.policy.PreviewChars), Size: attrs.Size, MIME: mime}, nil
}

// put stores data and pins it to the session.
func (inv *Invoker) put(ctx context.Context, sess *session.Session, data []byte, mime string) (blobstore.Attrs, error) {
	attrs, err := inv.store.Put(ctx, sess.Tenant(), bytes.NewReader(data), mime)
	if err != nil {
		return attrs, err
	}
	if err := sess.Pin(ctx, attrs.Ref); err != nil {
		// Unpinned, the blob expires with the store's TTL.
		return attrs, err
	}
	return attrs, nil
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
