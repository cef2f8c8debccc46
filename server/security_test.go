package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// TestOverridesOnlyLowerWithoutCeiling: with no Options.Ceiling a request
// may lower the server's policy and limits but raise none of them; above
// all it cannot lift max_risk_unapproved to skip approvals.
func TestOverridesOnlyLowerWithoutCeiling(t *testing.T) {
	e := newEnv(t, func(o *setup) {
		o.Policy = invoker.Policy{MaxRiskUnapproved: toolbox.High}
		o.Limits = sandbox.Limits{MemoryBytes: 32 << 20}
	})
	tests := []struct {
		name   string
		body   string
		code   int
		reason string
	}{
		{"risk above the server's", `{"script":"return 1","policy":{"max_risk_unapproved":"CRITICAL"}}`, 400, server.ReasonAboveLimit},
		{"more tool calls", `{"script":"return 1","policy":{"max_tool_calls":51}}`, 400, server.ReasonAboveLimit},
		{"longer call timeout", `{"script":"return 1","policy":{"call_timeout":"61s"}}`, 400, server.ReasonAboveLimit},
		{"longer approval wait", `{"script":"return 1","policy":{"approval_timeout":"56s"}}`, 400, server.ReasonAboveLimit},
		{"longer wall clock", `{"script":"return 1","limits":{"timeout":"301s"}}`, 400, server.ReasonAboveLimit},
		{"more memory", `{"script":"return 1","limits":{"memory":"33MiB"}}`, 400, server.ReasonAboveLimit},
		{"more logs", `{"script":"return 1","limits":{"max_log_bytes":"2MiB"}}`, 400, server.ReasonAboveLimit},
		{"larger result", `{"script":"return 1","limits":{"max_result_bytes":"2MiB"}}`, 400, server.ReasonAboveLimit},
		{"the server's own values", `{"script":"return 1","policy":{"max_risk_unapproved":"HIGH","max_tool_calls":50},"limits":{"memory":"32MiB"}}`, 200, ""},
		{"lower values", `{"script":"return 1","policy":{"max_risk_unapproved":"SAFE","max_tool_calls":3,"call_timeout":"5s"},"limits":{"timeout":"10s","memory":"16MiB","max_log_bytes":1024,"max_result_bytes":1024}}`, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(t, "POST", "/v1/chains", keyAcme, tc.body)
			require.Equal(t, tc.code, r.code, "%s", r.body)
			if tc.reason != "" {
				require.Equal(t, tc.reason, r.reason(t))
			}
		})
	}
	r := e.do(t, "POST", "/v1/chains", keyAcme, `{"script":"return 1","policy":{"max_risk_unapproved":"CRITICAL"}}`)
	require.Contains(t, string(r.body), "max_risk_unapproved CRITICAL is above this server's value of HIGH")
}

// TestLoopbackOnlyWithoutKeys: without API keys, only loopback Host values
// and loopback (or no) Origins are served, against DNS rebinding and
// cross-site requests; with keys, the headers do not matter.
func TestLoopbackOnlyWithoutKeys(t *testing.T) {
	open := newEnv(t, func(o *setup) { o.Authenticate = nil })
	keyed := newEnv(t, nil)
	tests := []struct {
		name         string
		env          *env
		host, origin string
		code         int
		reason       string
	}{
		{"rebound name", open, "attacker.example:8080", "", 403, server.ReasonForbiddenHost},
		{"rebound name without port", open, "attacker.example", "", 403, server.ReasonForbiddenHost},
		{"sub-domain of localhost", open, "evil.localhost:8080", "", 403, server.ReasonForbiddenHost},
		{"private address", open, "192.168.1.10:8080", "", 403, server.ReasonForbiddenHost},
		{"foreign origin", open, "", "http://attacker.example", 403, server.ReasonForbiddenOrigin},
		{"null origin", open, "", "null", 403, server.ReasonForbiddenOrigin},
		{"origin with a loopback-looking name", open, "", "http://127.0.0.1.attacker.example", 403, server.ReasonForbiddenOrigin},
		{"127.0.0.1", open, "", "", 200, ""},
		{"localhost", open, "localhost:8080", "", 200, ""},
		{"LOCALHOST, no port", open, "LOCALHOST", "", 200, ""},
		{"127.8.9.10", open, "127.8.9.10:1", "", 200, ""},
		{"::1", open, "[::1]:8080", "", 200, ""},
		{"loopback origin", open, "", "http://localhost:3000", 200, ""},
		{"keys: any host", keyed, "airlock.example.com", "https://app.example.com", 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/v1/tools", "/healthz"} {
				req, err := http.NewRequest("GET", tc.env.http.URL+path, nil)
				require.NoError(t, err)
				if tc.host != "" {
					req.Host = tc.host
				}
				if tc.origin != "" {
					req.Header.Set("Origin", tc.origin)
				}
				req.Header.Set("Authorization", "Bearer "+keyAcme)
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				require.Equal(t, tc.code, resp.StatusCode, "%s %s", path, b)
				if tc.reason != "" {
					require.Equal(t, tc.reason, reply{body: b}.reason(t))
				}
			}
		})
	}
}

// TestBodyNeedsContentType: a body without Content-Type (what a browser
// sends cross-site without a preflight, e.g. a Blob) is refused.
func TestBodyNeedsContentType(t *testing.T) {
	for _, keys := range []bool{false, true} {
		t.Run(fmt.Sprint("keys=", keys), func(t *testing.T) {
			e := newEnv(t, func(o *setup) {
				if !keys {
					o.Authenticate = nil
				}
			})
			for _, path := range []string{"/v1/chains", "/v1/approvals/NOPE"} {
				req, err := http.NewRequest("POST", e.http.URL+path, strings.NewReader(`{"script":"return 1","decision":"approve","args_hash":"00"}`))
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer "+keyAcme)
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				require.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, "%s", b)
				require.Equal(t, server.ReasonUnsupportedMediaType, reply{body: b}.reason(t))
			}
			require.Equal(t, 0.0, e.metric(t, "airlock_chains_total", nil))
		})
	}
}

// TestApprovalArgsLeaveTheStream: an approval_required event carries the
// arguments while its request is pending, and only their hash and size
// once it is decided, and after the chain ended.
func TestApprovalArgsLeaveTheStream(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `
		await tools.send_message({ to: "a@example.com", text: "first-secret" });
		await tools.send_message({ to: "b@example.com", text: "second-secret" });
		return 1;`}, true)
	first := e.pending(t, keyAcme)
	r := e.do(t, "POST", "/v1/approvals/"+first["id"].(string), keyAcme, map[string]any{"decision": "approve", "args_hash": first["args_hash"]})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var second map[string]any
	require.Eventually(t, func() bool { second = e.pending(t, keyAcme); return second["id"] != first["id"] }, 10*time.Second, 10*time.Millisecond)

	approvals := func(events <-chan sse, n int) []map[string]any {
		var out []map[string]any
		for len(out) < n {
			ev := next(t, events)
			if ev.name == server.EventApprovalRequired {
				var m map[string]any
				require.NoError(t, json.Unmarshal([]byte(ev.data), &m))
				out = append(out, m)
			}
		}
		return out
	}
	got := approvals(e.stream(t, keyAcme, v.ID, ""), 2)
	require.NotContains(t, got[0], "args", "decided: no arguments")
	require.Equal(t, first["args_hash"], got[0]["args_hash"])
	require.EqualValues(t, len(`{"text":"first-secret","to":"a@example.com"}`), got[0]["args_size"])
	require.Equal(t, map[string]any{"text": "second-secret", "to": "b@example.com"}, got[1]["args"], "pending: the arguments")

	r = e.do(t, "POST", "/v1/approvals/"+second["id"].(string), keyAcme, map[string]any{"decision": "deny", "args_hash": second["args_hash"]})
	require.Equal(t, http.StatusOK, r.code)
	e.wait(t, keyAcme, v.ID)
	var all []string
	for ev := range e.stream(t, keyAcme, v.ID, "") {
		if !lifecycle(ev) {
			all = append(all, ev.data)
		}
		require.NotContains(t, ev.data, "secret")
	}
	require.Len(t, all, 6, "two approvals, one call, two results, done")
	for _, d := range all {
		require.NotContains(t, d, "secret")
	}
}

// TestCompileTakesASlot: a module is compiled only once the submission
// holds a concurrency slot.
func TestCompileTakesASlot(t *testing.T) {
	e := newEnv(t, func(o *setup) {
		o.MaxConcurrentChains = 1
		o.Modules = modules(t)
	})
	slow := e.submit(t, keyAcme, map[string]any{"script": `await tools.slow({ms: 60000});`}, true)
	r := e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": base64.StdEncoding.EncodeToString([]byte("\x00asm\x01\x00\x00\x00")), "language": "wasm"})
	require.Equal(t, http.StatusTooManyRequests, r.code, "%s", r.body)
	require.Equal(t, server.ReasonTooManyChains, r.reason(t))
	require.Equal(t, http.StatusOK, e.do(t, "DELETE", "/v1/chains/"+slow.ID, keyAcme, nil).code)
}

func modules(t *testing.T) *sandbox.ModuleEngine {
	t.Helper()
	m, err := sandbox.NewModuleEngine(context.Background(), sandbox.ModuleOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	return m
}

// TestInvalidModule: a module that is not base64, or not a chain module,
// is refused with invalid_module.
func TestInvalidModule(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.Modules = modules(t) })
	for name, script := range map[string]string{
		"not base64":      "%%%",
		"not webassembly": base64.StdEncoding.EncodeToString([]byte("hello")),
		"no entry point":  base64.StdEncoding.EncodeToString([]byte("\x00asm\x01\x00\x00\x00")),
	} {
		t.Run(name, func(t *testing.T) {
			r := e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": script, "language": "wasm"})
			require.Equal(t, http.StatusBadRequest, r.code, "%s", r.body)
			require.Equal(t, server.ReasonInvalidModule, r.reason(t))
		})
	}
	require.Equal(t, 0.0, e.metric(t, "airlock_chains_total", nil))
}

// TestInternalError: a store failure is a 500 internal_error.
func TestInternalError(t *testing.T) {
	e := newEnv(t, nil)
	require.NoError(t, e.store.Close())
	r := e.do(t, "GET", "/v1/artifacts/blob_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", keyAcme, nil)
	require.Equal(t, http.StatusInternalServerError, r.code, "%s", r.body)
	require.Equal(t, server.ReasonInternal, r.reason(t))
}

// TestResultTTL: a finished chain is forgotten after ResultTTL.
func TestResultTTL(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.ResultTTL = 300 * time.Millisecond })
	v := e.submit(t, keyAcme, map[string]any{"script": "return 1"}, false)
	require.Equal(t, http.StatusOK, e.do(t, "GET", "/v1/chains/"+v.ID, keyAcme, nil).code)
	time.Sleep(400 * time.Millisecond)
	r := e.do(t, "GET", "/v1/chains/"+v.ID, keyAcme, nil)
	require.Equal(t, http.StatusNotFound, r.code)
	require.Equal(t, server.ReasonChainNotFound, r.reason(t))
}

// TestEventCap: a chain's stream keeps its most recent 1024 tool and
// approval events.
func TestEventCap(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.Policy.MaxToolCalls = 700 })
	v := e.submit(t, keyAcme, map[string]any{"script": `
		for (let i = 0; i < 600; i++) await tools.kv_set({key: "k", value: i});
		return 1;`}, false)
	require.Equal(t, "ok", v.Status, v.Result)
	var tool []sse
	var done sse
	for ev := range e.stream(t, keyAcme, v.ID, "") {
		switch ev.name {
		case server.EventDone:
			done = ev
		default:
			tool = append(tool, ev)
		}
	}
	require.Len(t, tool, 1024)
	require.Equal(t, "1977", tool[0].id, "600 calls made 3000 events (tool.before, policy.before, tool_call, tool_result, tool.after); the first 1976 were dropped")
	require.Equal(t, "3000", tool[len(tool)-1].id)
	require.Equal(t, "3001", done.id)
}

// panicTracer panics when a chain span starts: a failure in the server's
// own code while it runs a chain.
type panicTracer struct{ noop.TracerProvider }

func (panicTracer) Tracer(string, ...trace.TracerOption) trace.Tracer { return panicStart{} }

type panicStart struct{ noop.Tracer }

func (panicStart) Start(context.Context, string, ...trace.SpanStartOption) (context.Context, trace.Span) {
	panic("value-that-must-not-be-logged")
}

// lockedBuffer is a log sink for a test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPanicInARun: a panic while a chain runs ends the chain with
// host_error, frees its slot, and logs the panic's type, not its value.
func TestPanicInARun(t *testing.T) {
	var logs lockedBuffer
	e := newEnv(t, func(o *setup) {
		o.MaxConcurrentChains = 1
		o.TracerProvider = panicTracer{}
		o.Options.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	for range 2 {
		v := e.submit(t, keyAcme, map[string]any{"script": "return 1"}, false)
		require.Equal(t, string(chain.StatusError), v.Status)
		require.Equal(t, "host_error", v.Result.Reason)
		require.Equal(t, "the server failed while running the chain; see its log", v.Result.Error)
	}
	require.Contains(t, logs.String(), "panic_type=string")
	require.NotContains(t, logs.String(), "value-that-must-not-be-logged")
	require.Equal(t, 0.0, e.metric(t, "airlock_chains_in_flight", nil))
	require.Equal(t, 2.0, e.metric(t, "airlock_chains_total", map[string]string{"status": "error"}))
}

// TestKeyRoles: a submit key cannot decide approvals (an agent loop cannot
// approve its own calls), an approver key cannot submit or cancel chains.
func TestKeyRoles(t *testing.T) {
	const (
		keySubmit   = "acme-submit-key-0123456789"
		keyApprover = "acme-approver-key-0123456789"
	)
	e := newEnv(t, func(o *setup) {
		o.Authenticate = func(key string) (string, bool) {
			return "acme", key == keySubmit || key == keyApprover || key == keyAcme
		}
		o.KeyRole = func(key string) service.Role {
			switch key {
			case keySubmit:
				return service.RoleSubmit
			case keyApprover:
				return service.RoleApprover
			}
			return service.RoleAll
		}
	})
	r := e.do(t, "POST", "/v1/chains?async=1", keyApprover, map[string]any{"script": approvalScript})
	require.Equal(t, http.StatusForbidden, r.code, "%s", r.body)
	require.Equal(t, server.ReasonForbiddenRole, r.reason(t))

	v := e.submit(t, keySubmit, map[string]any{"script": approvalScript}, true)
	req := e.pending(t, keySubmit)
	decision := map[string]any{"decision": "approve", "args_hash": req["args_hash"]}
	r = e.do(t, "POST", "/v1/approvals/"+req["id"].(string), keySubmit, decision)
	require.Equal(t, http.StatusForbidden, r.code, "%s", r.body)
	require.Equal(t, server.ReasonForbiddenRole, r.reason(t))
	r = e.do(t, "DELETE", "/v1/chains/"+v.ID, keyApprover, nil)
	require.Equal(t, http.StatusForbidden, r.code, "%s", r.body)
	require.Equal(t, server.ReasonForbiddenRole, r.reason(t))

	require.Equal(t, http.StatusOK, e.do(t, "GET", "/v1/approvals/"+req["id"].(string), keyApprover, nil).code, "every role reads")
	r = e.do(t, "POST", "/v1/approvals/"+req["id"].(string), keyApprover, decision)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	done := e.wait(t, keySubmit, v.ID)
	require.JSONEq(t, `{"sent":true,"to":"ops@example.com"}`, string(done.Result.Value))
	r = e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1"})
	require.Equal(t, http.StatusOK, r.code, "a key without a role does everything")
}

// TestToolSubsetSharesTheInvoker: a request that names a subset of tools
// runs on the process's one invoker, with an allow-list on its session: the
// process-wide cap on resolved artifact bytes counts its calls together with
// every other chain's, and a tool outside the subset is unknown to it.
func TestToolSubsetSharesTheInvoker(t *testing.T) {
	entered, release := make(chan struct{}, 4), make(chan struct{})
	hold := toolbox.Func("hold", "waits, holding its resolved argument", func(ctx context.Context, in struct {
		Data string `json:"data"`
	}) (int, error) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return len(in.Data), nil
	})
	big := toolbox.Func("big", "returns 6000 bytes, stored as an artifact", func(context.Context, struct{}) (string, error) {
		return strings.Repeat("x", 6000), nil
	})
	e := newEnv(t, func(o *setup) {
		o.Tools = []toolbox.Tool{hold, big}
		o.MaxResolvingBytes = 10000 // room for one resolved artifact, not two
		// The strict form: the chain holds the ref, so hold's argument is resolved.
		o.Policy.MaxGuestValueBytes = invoker.DefaultMaxInlineResultBytes
	})
	script := `const a = await tools.big({}); try { return await tools.hold({data: a}); } catch (e) { return e.reason; }`

	first := e.submit(t, keyAcme, map[string]any{"script": script}, true)
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the first chain never reached hold")
	}
	second := e.submit(t, keyAcme, map[string]any{"script": script, "tools": []string{"big", "hold"}}, false)
	require.Equal(t, "ok", second.Status, second.Result)
	require.JSONEq(t, `"host_busy"`, string(second.Result.Value), "the subset chain counts against the same cap")
	close(release)

	outside := e.submit(t, keyAcme, map[string]any{"script": `try { await tools.kv_get({key: "a"}); } catch (e) { return e.reason; }`, "tools": []string{"hold"}}, false)
	require.JSONEq(t, `"unknown_tool"`, string(outside.Result.Value))
	r := e.do(t, "GET", "/v1/chains/"+first.ID, keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code)
}

// TestBodyTimeout: a body that dribbles in — with a key the server refuses,
// or with a good one — costs the server at most BodyTimeout, not a
// connection held forever.
func TestBodyTimeout(t *testing.T) {
	e := newEnv(t, func(o *setup) { o.BodyTimeout = 300 * time.Millisecond })
	for _, tc := range []struct {
		name, key string
		status    string
	}{
		{"refused key", "not-a-key-0123456789abcdef", "401"},
		{"good key", keyAcme, "408"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(e.http.URL, "http://"))
			require.NoError(t, err)
			defer conn.Close()
			_, err = fmt.Fprintf(conn, "POST /v1/chains HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", tc.key)
			require.NoError(t, err)
			// Dribble a byte now and then, until the answer starts; the
			// server must answer and hang up. (A byte written after it
			// hung up makes its kernel reset the connection, which may
			// then reach the read first: the dribble stops at the first
			// byte read, and a reset after the status line counts as the
			// hang-up it follows.)
			done, answered := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				for range 600 {
					select {
					case <-answered:
						return
					default:
					}
					if _, err := conn.Write([]byte(" ")); err != nil {
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
			got, err := io.ReadAll(&firstRead{r: conn, first: answered})
			if errors.Is(err, syscall.ECONNRESET) && strings.Contains(string(got), "HTTP/1.1 "+tc.status) {
				err = nil
			}
			require.NoError(t, err, "the server closes the connection (a read deadline error means it held it)")
			require.Contains(t, string(got), "HTTP/1.1 "+tc.status)
			if tc.status == "408" {
				require.Contains(t, string(got), `"reason":"body_timeout"`)
			}
			_ = conn.Close()
			<-done
		})
	}
	// A body sent at once is unaffected, and a synchronous chain outlives
	// the deadline.
	v := e.submit(t, keyAcme, map[string]any{"script": `await tools.slow({ms: 600}); return 1`}, false)
	require.Equal(t, "ok", v.Status, v.Result)
}

// TestMetricsAccess: with API keys, /metrics needs one (or the metrics key
// when set), never nothing.
func TestMetricsAccess(t *testing.T) {
	e := newEnv(t, nil)
	require.Equal(t, http.StatusUnauthorized, e.do(t, "GET", "/metrics", "", nil).code)
	require.Equal(t, http.StatusUnauthorized, e.do(t, "GET", "/metrics", "wrong-key-0123456789", nil).code)
	require.Equal(t, http.StatusOK, e.do(t, "GET", "/metrics", keyGlobex, nil).code)

	e = newEnv(t, func(o *setup) { o.MetricsKey = "metrics-key-0123456789abcdef" })
	r := e.do(t, "GET", "/metrics", keyAcme, nil)
	require.Equal(t, http.StatusUnauthorized, r.code, "a tenant key is not the metrics key")
	require.Equal(t, server.ReasonUnauthenticated, r.reason(t))
	require.Equal(t, http.StatusOK, e.do(t, "GET", "/metrics", "metrics-key-0123456789abcdef", nil).code)

	e = newEnv(t, func(o *setup) { o.NoMetrics = true })
	require.Equal(t, http.StatusNotFound, e.do(t, "GET", "/metrics", keyAcme, nil).code)
}

// TestRetainedBytes: finished chains are forgotten by bytes too, oldest
// first.
func TestRetainedBytes(t *testing.T) {
	e := newEnv(t, func(o *setup) {
		o.MaxResultsBytes = 300 << 10
		o.Policy.MaxFinalValueBytes = 1 << 20 // kept in the result, not stored
	})
	script := `return "x".repeat(120 * 1024)`
	var ids []string
	for range 3 {
		ids = append(ids, e.submit(t, keyAcme, map[string]any{"script": script}, false).ID)
	}
	require.Equal(t, http.StatusNotFound, e.do(t, "GET", "/v1/chains/"+ids[0], keyAcme, nil).code, "the oldest went past the byte budget")
	require.Equal(t, http.StatusOK, e.do(t, "GET", "/v1/chains/"+ids[1], keyAcme, nil).code)
	require.Equal(t, http.StatusOK, e.do(t, "GET", "/v1/chains/"+ids[2], keyAcme, nil).code)
}

// TestApprovalPreviewIsVisible: GET /v1/approvals and the approval_required
// event show a person the arguments with a bidirectional override escaped
// and padding counted (args_text), beside the exact arguments and hash,
// which the decision stays bound to (THREATS.md, row 6).
func TestApprovalPreviewIsVisible(t *testing.T) {
	e := newEnv(t, nil)
	v := e.submit(t, keyAcme, map[string]any{"script": `
		await tools.send_message({ to: "ops\u202Eeta.live@evil", text: "ok" + " ".repeat(300) + "and more" });
		return 1;`}, true)
	req := e.pending(t, keyAcme)
	const want = `{"text":"ok⟨300 spaces⟩and more","to":"ops\u202eeta.live@evil"}`
	require.Equal(t, want, req["args_text"])
	require.Equal(t, "ops\u202eeta.live@evil", req["args"].(map[string]any)["to"], "the raw arguments too")
	for ev := range e.stream(t, keyAcme, v.ID, "") {
		if ev.name == server.EventApprovalRequired {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(ev.data), &m))
			require.Equal(t, want, m["args_text"])
			require.NotContains(t, m["args_text"], "\u202e")
			break
		}
	}
	r := e.do(t, "POST", "/v1/approvals/"+req["id"].(string), keyAcme, map[string]any{"decision": "deny", "args_hash": req["args_hash"]})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	e.wait(t, keyAcme, v.ID)
}

// firstRead closes first when its first read returns bytes.
type firstRead struct {
	r     io.Reader
	first chan struct{}
	seen  bool
}

func (f *firstRead) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 && !f.seen {
		f.seen = true
		close(f.first)
	}
	return n, err
}
