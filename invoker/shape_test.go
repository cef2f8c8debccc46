package invoker_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

func call(tool, args string) invoker.Call {
	return invoker.Call{Tool: tool, Args: json.RawMessage(args)}
}

// TestGuestValueBoundary checks max_guest_value_bytes: an offloaded result
// of at most that size is stored and pinned, and still handed to the chain
// as its own JSON (Plain); one byte more and the chain gets the envelope.
func TestGuestValueBoundary(t *testing.T) {
	for _, tc := range []struct {
		n     int
		plain bool
	}{{102, true}, {103, false}} {
		f := newFixture(t)
		inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxInlineResultBytes: 64, MaxGuestValueBytes: 102}})
		sess := newSession(inv, "acme")
		res := inv.Invoke(context.Background(), sess, call("big", fmt.Sprintf(`{"n":%d}`, tc.n))) // a JSON string of n bytes
		require.True(t, res.OK(), res.Message)
		require.NotNil(t, res.Artifact, "stored either way")
		require.Equal(t, []string{res.Artifact.Ref}, sess.Pinned())
		require.Equal(t, tc.plain, res.Plain, "n=%d", tc.n)
		if tc.plain {
			require.JSONEq(t, strconv.Quote(strings.Repeat("x", tc.n-2)), string(res.Value))
		} else {
			require.Contains(t, string(res.Value), `"$artifact":"`+res.Artifact.Ref+`"`)
		}
	}
}

// TestShapingBoundaries checks inline vs offloaded at exactly the limit.
func TestShapingBoundaries(t *testing.T) {
	const limit = 64
	tests := []struct {
		name      string
		args      string
		withStore bool
		offloaded bool
		mime      string
	}{
		{"string at limit stays inline", `{"n":64}`, true, false, ""},
		{"string one over is offloaded as text", `{"n":65}`, true, true, "text/plain; charset=utf-8"},
		{"object at limit stays inline", `{"n":64,"object":true}`, true, false, ""},
		{"object one over is offloaded as JSON", `{"n":65,"object":true}`, true, true, "application/json"},
		{"no store keeps everything inline", `{"n":100000}`, false, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			// The strict form: what is stored reaches the chain as its envelope.
			opts := invoker.Options{Policy: invoker.Policy{MaxInlineResultBytes: limit, MaxGuestValueBytes: limit, PreviewChars: 10}}
			if tc.withStore {
				opts.Store = f.store
			}
			inv := f.invoker(t, opts)
			sess := newSession(inv, "acme")
			res := inv.Invoke(context.Background(), sess, call("big", tc.args))
			require.True(t, res.OK(), res.Message)
			rec := sess.Trace()[0]
			if !tc.offloaded {
				require.Nil(t, res.Artifact)
				require.Empty(t, sess.Pinned())
				require.Empty(t, rec.Refs)
				require.Equal(t, len(res.Value), rec.ResultBytes)
				return
			}
			a := res.Artifact
			require.NotNil(t, a)
			require.Equal(t, tc.mime, a.MIME)
			require.Equal(t, []string{a.Ref}, sess.Pinned())
			require.Equal(t, []string{a.Ref}, rec.Refs)
			require.Equal(t, 65, rec.ResultBytes)
			var env map[string]any
			require.NoError(t, json.Unmarshal(res.Value, &env))
			require.Equal(t, a.Ref, env["$artifact"])
			require.Equal(t, tc.mime, env["mime"])
			require.EqualValues(t, a.Size, env["size"])
			require.Len(t, []rune(a.Preview), 10)

			rc, attrs, err := f.store.Open(context.Background(), "acme", a.Ref)
			require.NoError(t, err)
			body, err := io.ReadAll(rc)
			require.NoError(t, rc.Close())
			require.NoError(t, err)
			require.Equal(t, tc.mime, attrs.ContentType)
			require.EqualValues(t, len(body), a.Size)
			require.True(t, strings.HasPrefix(string(body), a.Preview))
		})
	}
}

func TestPreviewNeverSplitsUTF8(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxInlineResultBytes: 8, PreviewChars: 3}})
	sess := newSession(inv, "acme")
	res := inv.Invoke(context.Background(), sess, call("echo", `{"text":"héllo wörld"}`))
	require.True(t, res.OK(), res.Message)
	require.Equal(t, `{"t`, res.Artifact.Preview)
	res = inv.Invoke(context.Background(), sess, call("echo", `{"text":"ééééé"}`))
	require.Equal(t, `{"t`, res.Artifact.Preview)
}

// TestArtifactRoundTrip offloads results and passes the refs into another tool,
// which receives the content, decoded per media type.
func TestArtifactRoundTrip(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxInlineResultBytes: 16}})
	sess := newSession(inv, "acme")
	ctx := context.Background()

	text := inv.Invoke(ctx, sess, call("big", `{"n":40}`))
	require.NotNil(t, text.Artifact)
	// The whole envelope the chain got can be passed back as is.
	res := inv.Invoke(ctx, sess, invoker.Call{Tool: "echo", Args: json.RawMessage(`{"text":` + string(text.Value) + `}`)})
	require.True(t, res.OK(), res.Message)
	require.JSONEq(t, `{"text":"`+strings.Repeat("x", 38)+`"}`, f.arg("echo"))

	obj := inv.Invoke(ctx, sess, call("big", `{"n":40,"object":true}`))
	require.NotNil(t, obj.Artifact)
	// A bare {"$artifact": ref} at depth works too.
	res = inv.Invoke(ctx, sess, call("echo", fmt.Sprintf(`{"list":[1,{"$artifact":%q}]}`, obj.Artifact.Ref)))
	require.True(t, res.OK(), res.Message)
	require.JSONEq(t, `{"list":[1,{"s":"`+strings.Repeat("x", 32)+`"}]}`, f.arg("echo"))

	// Binary content arrives as bytes (base64 in JSON).
	attrs, err := f.store.Put(ctx, "acme", strings.NewReader("\x00\xffbin"), "application/octet-stream")
	require.NoError(t, err)
	sess.Grant(attrs.Ref)
	res = inv.Invoke(ctx, sess, call("echo", fmt.Sprintf(`{"data":{"$artifact":%q}}`, attrs.Ref)))
	require.True(t, res.OK(), res.Message)
	require.JSONEq(t, `{"data":"`+base64.StdEncoding.EncodeToString([]byte("\x00\xffbin"))+`"}`, f.arg("echo"))

	// A resolved value still has to satisfy the schema.
	res = inv.Invoke(ctx, sess, call("echo", fmt.Sprintf(`{"text":{"$artifact":%q}}`, obj.Artifact.Ref)))
	require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)

	// Closing the session unpins everything it pinned.
	// Two big results and three echoes of them were over the inline limit.
	require.Len(t, sess.Pinned(), 5)
	require.NoError(t, sess.Close(ctx))
	require.Empty(t, sess.Pinned())
}

func TestArtifactRefsThatMustNotResolve(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxInlineResultBytes: 16}})

	owner := newSession(inv, "acme")
	mine := inv.Invoke(ctx, owner, call("big", `{"n":40}`)).Artifact
	require.NotNil(t, mine)
	otherTenant := newSession(inv, "globex")
	theirs := inv.Invoke(ctx, otherTenant, call("big", `{"n":40}`)).Artifact
	require.NotNil(t, theirs)

	grantedForeign := newSession(inv, "acme")
	grantedForeign.Grant(theirs.Ref) // a grant cannot cross tenants

	tests := []struct {
		name string
		sess *session.Session
		ref  string
	}{
		{"forged", owner, "acme.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"garbage", owner, "../../etc/passwd"},
		{"empty", owner, ""},
		{"truncated", owner, mine.Ref[:len(mine.Ref)-3]},
		{"overlong", owner, mine.Ref + "AAAA"},
		{"another session of the same tenant", newSession(inv, "acme"), mine.Ref},
		{"another tenant's ref", owner, theirs.Ref},
		{"another tenant's ref, granted", grantedForeign, theirs.Ref},
	}
	var messages []string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := inv.Invoke(ctx, tc.sess, call("echo", fmt.Sprintf(`{"text":{"$artifact":%q}}`, tc.ref)))
			require.Equal(t, session.StatusError, res.Status)
			require.Equal(t, invoker.ReasonArtifactNotFound, res.Reason)
			require.EqualValues(t, 0, f.ran("echo"))
			messages = append(messages, strings.Replace(res.Message, fmt.Sprintf("%q", tc.ref), "REF", 1))
		})
	}
	for _, m := range messages {
		require.Equal(t, messages[0], m, "every failure reads the same")
	}

	t.Run("non-string ref", func(t *testing.T) {
		res := inv.Invoke(ctx, owner, call("echo", `{"text":{"$artifact":42}}`))
		require.Equal(t, invoker.ReasonArtifactNotFound, res.Reason)
	})
	t.Run("no store", func(t *testing.T) {
		bare := f.invoker(t, invoker.Options{})
		res := bare.Invoke(ctx, owner, call("echo", fmt.Sprintf(`{"text":{"$artifact":%q}}`, mine.Ref)))
		require.Equal(t, invoker.ReasonArtifactNotFound, res.Reason)
	})
	t.Run("too large", func(t *testing.T) {
		small := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxResolvedBytes: 10}})
		res := small.Invoke(ctx, owner, call("echo", fmt.Sprintf(`{"text":{"$artifact":%q}}`, mine.Ref)))
		require.Equal(t, invoker.ReasonArtifactTooLarge, res.Reason)
	})
	t.Run("an object with other keys is plain data", func(t *testing.T) {
		res := inv.Invoke(ctx, owner, call("echo", `{"value":{"$artifact":"x","other":1}}`))
		require.True(t, res.OK(), res.Message)
		require.JSONEq(t, `{"value":{"$artifact":"x","other":1}}`, f.arg("echo"))
	})
}

func TestMediaBecomesFiles(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store})
	sess := newSession(inv, "acme")
	for i := 0; i < 2; i++ {
		res := inv.Invoke(ctx, sess, call("img", `{}`))
		require.True(t, res.OK(), res.Message)
		require.Len(t, res.Files, 1)
		file := res.Files[0]
		require.Equal(t, fmt.Sprintf("/workspace/media/img_%d.png", i), file.Path)
		require.Equal(t, "image/png", file.MIME)
		require.EqualValues(t, 4, file.Size)
		require.Nil(t, file.Data)
		require.Contains(t, sess.Pinned(), file.Ref)
		rc, _, err := f.store.Open(ctx, "acme", file.Ref)
		require.NoError(t, err)
		b, _ := io.ReadAll(rc)
		require.NoError(t, rc.Close())
		require.Equal(t, "\x89PNG", string(b))
		require.JSONEq(t, fmt.Sprintf(`{"value":{"w":1},"files":[{"path":%q,"mime":"image/png","size":4,"$artifact":%q}]}`, file.Path, file.Ref), string(res.Value))
	}

	bare := f.invoker(t, invoker.Options{})
	res := bare.Invoke(ctx, newSession(bare, "acme"), call("img", `{}`))
	require.True(t, res.OK(), res.Message)
	require.Equal(t, []byte("\x89PNG"), res.Files[0].Data)
	require.Empty(t, res.Files[0].Ref)
}

func TestStoreFailureAfterSessionClosed(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxInlineResultBytes: 16}})
	sess := newSession(inv, "acme")
	require.NoError(t, sess.Close(ctx))
	res := inv.Invoke(ctx, sess, call("big", `{"n":40}`))
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonCancelled, res.Reason)
	require.Empty(t, sess.Pinned())
}
