package invoker_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

var knownReasons = map[string]bool{
	"": true, invoker.ReasonBudgetExhausted: true, invoker.ReasonUnknownTool: true, invoker.ReasonNotCallable: true,
	invoker.ReasonArgumentsTooLarge: true, invoker.ReasonInvalidArguments: true, invoker.ReasonNoApprovalHandler: true,
	invoker.ReasonApprovalTimeout: true, invoker.ReasonApprovalDenied: true, invoker.ReasonApprovalFailed: true,
	invoker.ReasonArtifactNotFound: true, invoker.ReasonArtifactTooLarge: true, invoker.ReasonCancelled: true,
	invoker.ReasonCallTimeout: true, invoker.ReasonToolError: true, invoker.ReasonToolPanic: true,
	invoker.ReasonInvalidResult: true, invoker.ReasonStoreError: true, invoker.ReasonInternal: true,
	invoker.ReasonHostBusy: true, invoker.ReasonQuotaExceeded: true,
}

// FuzzInvoke feeds arbitrary tool names and argument bytes (the argument
// decoder, the schema gate and the artifact-ref resolver all parse them) to
// the pipeline. Whatever the input: no panic, a known status and reason, a
// message on failure, exactly one trace record, and a resolved call only ever
// sees refs of its own session.
func FuzzInvoke(f *testing.F) {
	for _, seed := range []struct{ tool, args string }{
		{"echo", `{"text":"hi"}`},
		{"echo", `{"value":{"$artifact":"blob_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}`},
		{"echo", `{"list":[{"$artifact":"../x"},{"$artifact":null},{"$artifact":[1]}]}`},
		{"echo", `{"text":{"$artifact":"REF","preview":"x","size":1,"mime":"text/plain"}}`},
		{"send", `{"to":"a","to":"b"}`},
		{"echo", `{"text":"\ud800"}`},
		{"echo", `[`},
		{"echo", `{"value":` + deep(200) + `}`},
		{"noop", ``},
		{"nope", `{}`},
		{"", `null`},
	} {
		f.Add(seed.tool, []byte(seed.args))
	}
	fx := newFixture(f)
	inv := fx.invoker(f, invoker.Options{
		Store:    fx.store,
		Approver: invoker.ApprovalFunc(approveAll),
		Policy:   invoker.Policy{MaxInlineResultBytes: 32, MaxArgumentBytes: 64 << 10},
	})
	owner := newSession(inv, "acme")
	own := inv.Invoke(context.Background(), owner, call("big", `{"n":100}`))
	if own.Artifact == nil {
		f.Fatal("setup: no artifact")
	}
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		if tool == "stubborn" || tool == "slow" {
			return // they block by design
		}
		// Let the fuzzer reach a real ref through the REF placeholder.
		args = []byte(string(replaceAll(args, "REF", own.Artifact.Ref)))
		sess := inv.NewSession(session.Options{Tenant: "acme"})
		res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: tool, Args: args})
		switch res.Status {
		case session.StatusOK:
			if res.Reason != "" || res.Message != "" || !json.Valid(res.Value) {
				t.Fatalf("bad ok result %+v", res)
			}
		case session.StatusError, session.StatusDenied:
			if res.Message == "" || res.Value != nil {
				t.Fatalf("bad failure result %+v", res)
			}
		default:
			t.Fatalf("unknown status %q", res.Status)
		}
		if !knownReasons[res.Reason] {
			t.Fatalf("unknown reason %q", res.Reason)
		}
		if n := len(sess.Trace()); n != 1 {
			t.Fatalf("%d trace records", n)
		}
		// This session neither made nor was granted the owner's ref.
		if res.OK() && tool == "echo" && containsRef(args, own.Artifact.Ref) {
			t.Fatalf("a foreign ref resolved: %s", args)
		}
		_ = sess.Close(context.Background())
	})
}

func deep(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		s += `{"a":[`
	}
	s += "1"
	for i := 0; i < n; i++ {
		s += `]}`
	}
	return s
}

func replaceAll(b []byte, old, new string) []byte {
	return []byte(strings.ReplaceAll(string(b), old, new))
}

func containsRef(args []byte, ref string) bool {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case map[string]any:
			if r, ok := t["$artifact"].(string); ok && r == ref {
				return true
			}
			for _, c := range t {
				if walk(c) {
					return true
				}
			}
		case []any:
			for _, c := range t {
				if walk(c) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
