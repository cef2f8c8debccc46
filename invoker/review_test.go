package invoker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// TestApprovalBindsArtifactContent: the approver sees the store's facts about
// a ref (sha256, size, type), never the preview a script made up, and the
// content with that hash is what runs.
func TestApprovalBindsArtifactContent(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var seen invoker.ApprovalRequest
	inv := f.invoker(t, invoker.Options{Store: f.store, Approver: invoker.ApprovalFunc(func(_ context.Context, r invoker.ApprovalRequest) (invoker.Decision, error) {
		seen = r
		return invoker.Approved, nil
	})})
	sess := newSession(inv, "acme")
	payload := "rm -rf / --no-preserve-root"
	attrs, err := f.store.Put(ctx, "acme", strings.NewReader(payload), "text/plain")
	require.NoError(t, err)
	sess.Grant(attrs.Ref)

	res := inv.Invoke(ctx, sess, call("send", fmt.Sprintf(`{"to":"ops","body":{"$artifact":%q,"preview":"ls -la","size":6,"mime":"text/plain"}}`, attrs.Ref)))
	require.True(t, res.OK(), res.Message)
	sum := sha256.Sum256([]byte(payload))
	require.Equal(t, fmt.Sprintf(`{"body":{"$artifact":%q,"mime":"text/plain","sha256":%q,"size":%d},"to":"ops"}`,
		attrs.Ref, hex.EncodeToString(sum[:]), len(payload)), string(seen.Args))
	require.NotContains(t, string(seen.Args), "ls -la")
	require.JSONEq(t, `{"to":"ops","body":"`+payload+`"}`, f.arg("send"))

	// A ref the session cannot read is refused before anyone is asked.
	seen = invoker.ApprovalRequest{}
	res = inv.Invoke(ctx, newSession(inv, "acme"), call("send", fmt.Sprintf(`{"to":"ops","body":{"$artifact":%q}}`, attrs.Ref)))
	require.Equal(t, invoker.ReasonArtifactNotFound, res.Reason)
	require.Empty(t, seen.Tool)
}

func TestCanonicalArgsKeepHTMLCharacters(t *testing.T) {
	f := newFixture(t)
	var seen invoker.ApprovalRequest
	inv := f.invoker(t, invoker.Options{
		Policy: invoker.Policy{MaxArgumentBytes: 64},
		Approver: invoker.ApprovalFunc(func(_ context.Context, r invoker.ApprovalRequest) (invoker.Decision, error) {
			seen = r
			return invoker.Approved, nil
		})})
	sess := newSession(inv, "acme")
	// 60 bytes as sent; json.Marshal would make each of <>& six bytes.
	res := inv.Invoke(context.Background(), sess, call("send", `{"to":"<<<<<<<<<<&&&&&&&&&&>>>>>>>>>>","body":"<&>"}`))
	require.True(t, res.OK(), res.Message)
	require.Equal(t, `{"body":"<&>","to":"<<<<<<<<<<&&&&&&&&&&>>>>>>>>>>"}`, string(seen.Args))
}

func TestProcessWideResolvingCap(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, MaxResolvingBytes: 50})
	sess := newSession(inv, "acme")
	small, err := f.store.Put(ctx, "acme", strings.NewReader(strings.Repeat("s", 40)), "text/plain")
	require.NoError(t, err)
	big, err := f.store.Put(ctx, "acme", strings.NewReader(strings.Repeat("b", 60)), "text/plain")
	require.NoError(t, err)
	sess.Grant(small.Ref, big.Ref)
	for i := 0; i < 3; i++ { // the 40 bytes are released after each call
		res := inv.Invoke(ctx, sess, call("echo", fmt.Sprintf(`{"text":{"$artifact":%q}}`, small.Ref)))
		require.True(t, res.OK(), res.Message)
	}
	res := inv.Invoke(ctx, sess, call("echo", fmt.Sprintf(`{"text":{"$artifact":%q}}`, big.Ref)))
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonHostBusy, res.Reason)
}

func TestInvalidJSONArtifact(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store})
	sess := newSession(inv, "acme")
	attrs, err := f.store.Put(ctx, "acme", strings.NewReader(`{"broken":`), "application/json")
	require.NoError(t, err)
	sess.Grant(attrs.Ref)
	res := inv.Invoke(ctx, sess, call("echo", fmt.Sprintf(`{"value":{"$artifact":%q}}`, attrs.Ref)))
	require.Equal(t, invoker.ReasonInvalidArguments, res.Reason)
	require.Contains(t, res.Message, "does not hold valid JSON")
}

// failingStore fails or panics on Put; everything else goes to the real store.
type failingStore struct {
	*blobstore.Store
	panics bool
}

func (s failingStore) Put(ctx context.Context, tenant string, r io.Reader, ct string) (blobstore.Attrs, error) {
	if s.panics {
		panic("store bug")
	}
	return blobstore.Attrs{}, errors.New("bucket unreachable at s3.internal:9000")
}

func TestStoreErrorAndInternalError(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name   string
		panics bool
		reason string
	}{
		{"store fails", false, invoker.ReasonStoreError},
		{"store panics", true, invoker.ReasonInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ended []string
			inv := f.invoker(t, invoker.Options{
				Store:  failingStore{f.store, tc.panics},
				Policy: invoker.Policy{MaxInlineResultBytes: 16},
				Hooks: invoker.Hooks{OnToolEnd: func(_ context.Context, ev invoker.Event) {
					ended = append(ended, ev.Reason)
				}},
			})
			sess := newSession(inv, "acme")
			res := inv.Invoke(context.Background(), sess, call("big", `{"n":100}`))
			require.Equal(t, session.StatusError, res.Status)
			require.Equal(t, tc.reason, res.Reason)
			require.NotContains(t, res.Message, "s3.internal", "store internals stay out of the chain")
			require.Len(t, sess.Trace(), 1)
			require.Equal(t, tc.reason, sess.Trace()[0].Reason)
			require.Equal(t, []string{tc.reason}, ended)
		})
	}
}

func TestApprovalOutcomeInEvents(t *testing.T) {
	tests := []struct {
		name     string
		approver invoker.ApprovalHandler
		tool     string
		want     string
	}{
		{"not needed", nil, "noop", ""},
		{"no handler", nil, "send", invoker.ApprovalNoHandler},
		{"approved", invoker.ApprovalFunc(approveAll), "send", invoker.ApprovalApproved},
		{"denied", invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return invoker.Denied, nil }), "send", invoker.ApprovalDenied},
		{"failed", invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return 0, errors.New("x") }), "send", invoker.ApprovalFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var got string
			inv := f.invoker(t, invoker.Options{Approver: tc.approver, Hooks: invoker.Hooks{
				OnToolEnd: func(_ context.Context, ev invoker.Event) { got = ev.Approval },
			}})
			inv.Invoke(context.Background(), newSession(inv, "acme"), call(tc.tool, `{"to":"x"}`))
			if tc.tool == "noop" {
				inv.Invoke(context.Background(), newSession(inv, "acme"), call("noop", `{}`))
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestMessagesAndNamesAreBoundedValidUTF8(t *testing.T) {
	box, err := toolbox.New(toolbox.Func("loud", "fails loudly", func(context.Context, struct{}) (int, error) {
		return 0, errors.New(strings.Repeat("é", 10000))
	}))
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{})
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "loud"})
	require.Equal(t, invoker.ReasonToolError, res.Reason)
	require.LessOrEqual(t, len(res.Message), 512+len("…"))
	require.True(t, utf8.ValidString(res.Message))

	name := strings.Repeat("a", 127) + strings.Repeat("é", 10)
	inv.Invoke(context.Background(), sess, invoker.Call{Tool: name})
	rec := sess.Trace()[1]
	require.True(t, utf8.ValidString(rec.Tool), "a name cut mid-character would break exporters")
	require.True(t, strings.HasPrefix(rec.Tool, strings.Repeat("a", 127)))
	inv.Invoke(context.Background(), sess, invoker.Call{Tool: "bad\xffname"})
	require.True(t, utf8.ValidString(sess.Trace()[2].Tool))
}

func TestToolsSeeTheirCaller(t *testing.T) {
	var tenant, id string
	var isSession bool
	box, err := toolbox.New(toolbox.Func("who", "reports the caller", func(ctx context.Context, _ struct{}) (bool, error) {
		c, ok := toolbox.CallerFrom(ctx)
		if ok {
			tenant, id = c.Tenant(), c.ID()
			_, isSession = c.(interface {
				Append(session.Record) session.Record
			})
		}
		return ok, nil
	}))
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{Tenant: "globex"})
	require.JSONEq(t, `true`, string(inv.Invoke(context.Background(), sess, invoker.Call{Tool: "who"}).Value))
	require.Equal(t, "globex", tenant)
	require.Equal(t, sess.ID(), id)
	require.False(t, isSession, "a tool sees a read-only view, not the session it could append to")
	require.Len(t, sess.Trace(), 1, "the tool could not forge trace records")
}

// TestAllowListIsUnknownTool: a tool outside the session's allow-list is
// refused at the registry gate exactly as a tool that does not exist.
func TestAllowListIsUnknownTool(t *testing.T) {
	box, err := toolbox.New(
		toolbox.Func("a", "a", func(context.Context, struct{}) (int, error) { return 1, nil }),
		toolbox.Func("b", "b", func(context.Context, struct{}) (int, error) { return 2, nil }))
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{Tools: []string{"a"}})
	require.Equal(t, session.StatusOK, inv.Invoke(context.Background(), sess, invoker.Call{Tool: "a"}).Status)
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "b"})
	require.Equal(t, invoker.ReasonUnknownTool, res.Reason)
	require.Equal(t, `no tool named "b"; call one of the tools declared on `+"`tools`", res.Message)
}

// TestObserver: a context's Observer sees the events of the calls made
// with it, after the invoker's own hooks, and no other call's.
func TestObserver(t *testing.T) {
	box, err := toolbox.New(toolbox.Func("a", "a", func(context.Context, struct{}) (int, error) { return 1, nil }))
	require.NoError(t, err)
	var order []string
	inv, err := invoker.New(box, invoker.Options{
		Hooks:    invoker.Hooks{OnToolEnd: func(context.Context, invoker.Event) { order = append(order, "global end") }},
		Progress: func(_ context.Context, ev invoker.Event) { order = append(order, "global "+ev.Kind.String()) },
	})
	require.NoError(t, err)
	obs := &invoker.Observer{
		Hooks: invoker.Hooks{
			OnToolStart: func(context.Context, invoker.Event) { order = append(order, "chain start") },
			OnToolEnd:   func(context.Context, invoker.Event) { order = append(order, "chain end") },
		},
		Progress: func(_ context.Context, ev invoker.Event) { order = append(order, "chain "+ev.Kind.String()) },
	}
	sess := inv.NewSession(session.Options{})
	inv.Invoke(invoker.WithObserver(context.Background(), obs), sess, invoker.Call{Tool: "a"})
	require.Equal(t, []string{"chain start", "global TOOL_CALL", "chain TOOL_CALL", "global TOOL_RESULT", "chain TOOL_RESULT", "global end", "chain end"}, order)
	order = nil
	inv.Invoke(context.Background(), sess, invoker.Call{Tool: "a"})
	require.Equal(t, []string{"global TOOL_CALL", "global TOOL_RESULT", "global end"}, order)
}
