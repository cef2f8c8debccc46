package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/enginetest"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// scripts is the test binary's one script engine.
func scripts(t testing.TB) *sandbox.ScriptEngine { return enginetest.Scripts(t) }

type env struct {
	runner  *chain.Runner
	drv     blobstore.Driver
	store   *blobstore.Store
	got     sync.Map // tool -> last args (json)
	sent    atomic.Int64
	release chan struct{}
	hanging atomic.Int64 // calls parked in hang
	maxHang atomic.Int64
}

func (e *env) inflight() int64    { return e.hanging.Load() }
func (e *env) inflightMax() int64 { return e.maxHang.Load() }

type lookupIn struct {
	ID int `json:"id"`
}

type blobIn struct {
	MiB int `json:"mib"`
}

type sizeIn struct {
	Text string `json:"text"`
}

type sendIn struct {
	To string `json:"to"`
}

func newEnv(t testing.TB, opts invoker.Options) *env {
	e := &env{release: make(chan struct{})}
	e.drv = memblob.New()
	e.store = blobstore.New(e.drv, blobstore.Options{})
	t.Cleanup(func() { _ = e.store.Close() })
	box, err := toolbox.New(
		toolbox.Func("lookup", "Looks up a record", func(_ context.Context, in lookupIn) (map[string]int, error) {
			return map[string]int{"id": in.ID, "score": in.ID * 10}, nil
		}),
		toolbox.Func("blob", "Returns MiB mebibytes of text", func(_ context.Context, in blobIn) (string, error) {
			return strings.Repeat("a", in.MiB<<20), nil
		}),
		toolbox.Func("size", "Measures text", func(_ context.Context, in sizeIn) (int, error) {
			e.got.Store("size", len(in.Text))
			return len(in.Text), nil
		}),
		toolbox.Func("send", "Sends a message", func(_ context.Context, in sendIn) (string, error) {
			e.sent.Add(1)
			return "sent to " + in.To, nil
		}).WithRisk(toolbox.High),
		toolbox.Func("explode", "Panics", func(context.Context, struct{}) (int, error) { panic("kaboom") }),
		toolbox.Func("hang", "Waits until the test releases it, ignoring its context", func(context.Context, struct{}) (int, error) {
			n := e.hanging.Add(1)
			for m := e.maxHang.Load(); n > m && !e.maxHang.CompareAndSwap(m, n); m = e.maxHang.Load() {
			}
			defer e.hanging.Add(-1)
			<-e.release
			return 0, nil
		}),
		toolbox.Func("weather", "Current temperature of a city", func(_ context.Context, in struct {
			City string `json:"city"`
		}) (map[string]any, error) {
			temps := map[string]int{"Oslo": 4, "Lima": 19, "Cairo": 31}
			c, ok := temps[in.City]
			if !ok {
				return nil, fmt.Errorf("no station in %q", in.City)
			}
			return map[string]any{"city": in.City, "temp_c": c}, nil
		}),
		toolbox.HostedTool{Name: "web_search", Description: "hosted"},
		toolbox.ProviderDefinedTool{Name: "computer", Description: "provider"},
	)
	require.NoError(t, err)
	if opts.Store == nil {
		opts.Store = e.store
	}
	inv, err := invoker.New(box, opts)
	require.NoError(t, err)
	require.NoError(t, box.Add(chain.Tool(nil, chain.Options{}))) // registered, never callable from a chain
	e.runner, err = chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	t.Cleanup(func() {
		select {
		case <-e.release:
		default:
			close(e.release)
		}
	})
	return e
}

func (e *env) run(t testing.TB, src string, opts chain.Options) *chain.RunResult {
	t.Helper()
	res, err := e.runner.Run(context.Background(), sandbox.Script{Source: src}, opts)
	require.NoError(t, err)
	return res
}

func TestMultiStepWithPromiseAll(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	res := e.run(t, `
		const ids = [1, 2, 3, 4];
		const rows = await Promise.all(ids.map(id => tools.lookup({id})));
		console.log("fetched", rows.length);
		return rows.reduce((s, r) => s + r.score, 0);`, chain.Options{Tenant: "acme"})
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `100`, string(res.Value))
	require.Len(t, res.Trace, 4)
	for _, r := range res.Trace {
		require.Equal(t, "lookup", r.Tool)
		require.Equal(t, "ok", string(r.Status))
	}
	require.Equal(t, []sandbox.LogEntry{{Level: sandbox.LogInfo, Text: "fetched 4"}}, res.Logs)
	require.Equal(t, 4, res.Stats.Calls)
	require.NotEmpty(t, res.ID)
}

// TestLargeResultByRef: a 5 MiB result never enters the sandbox; the script
// passes its ref on and the second tool receives the bytes.
func TestLargeResultByRef(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	res := e.run(t, `
		const big = await tools.blob({mib: 5});
		const n = await tools.size({text: big});
		return {ref: big.$artifact, size: big.size, mime: big.mime, preview: big.preview.length, n};`, chain.Options{Tenant: "acme"})
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	var v struct {
		Ref     string
		Size    int
		Mime    string
		Preview int
		N       int
	}
	require.NoError(t, json.Unmarshal(res.Value, &v))
	require.Equal(t, 5<<20, v.Size)
	require.Equal(t, 5<<20, v.N)
	require.Equal(t, "text/plain; charset=utf-8", v.Mime)
	require.Equal(t, 256, v.Preview)
	require.Len(t, res.Artifacts, 1)
	require.Equal(t, v.Ref, res.Artifacts[0].Ref)
	got, _ := e.got.Load("size")
	require.Equal(t, 5<<20, got)
	// The session is closed and unpinned: the blob still exists until swept.
	_, err := e.store.Stat(context.Background(), "acme", v.Ref)
	require.NoError(t, err)
}

func TestApprovalGatedWrite(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decision invoker.Decision
		want     string
		sent     int64
	}{
		{"approved", invoker.Approved, `"sent to ops"`, 1},
		{"denied", invoker.Denied, `"denied/approval_denied"`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, invoker.Options{Approver: invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) {
				return tc.decision, nil
			})})
			res := e.run(t, `
				try { return await tools.send({to: "ops"}); }
				catch (e) { return e.status + "/" + e.reason; }`, chain.Options{})
			require.Equal(t, chain.StatusOK, res.Status, res.Error)
			require.JSONEq(t, tc.want, string(res.Value))
			require.Equal(t, tc.sent, e.sent.Load())
		})
	}
}

// TestRefusalsReachTheScript checks that each refusal arrives in the script
// as a ToolError with the exact status and reason, and the chain goes on.
func TestRefusalsReachTheScript(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	other := e.run(t, `return (await tools.blob({mib: 1})).$artifact;`, chain.Options{Tenant: "acme"})
	require.Equal(t, chain.StatusOK, other.Status, other.Error)
	var otherRef string
	require.NoError(t, json.Unmarshal(other.Value, &otherRef))

	tests := []struct{ call, want string }{
		{`tools.nope({})`, "error/unknown_tool"},
		{`tools.web_search({})`, "error/not_callable_from_chain"},
		{`tools.computer({})`, "error/not_callable_from_chain"},
		{`tools.tool_chain({script: "return 1"})`, "error/not_callable_from_chain"},
		{`tools.lookup({id: "x"})`, "error/invalid_arguments"},
		{`tools.lookup({id: 1, extra: true})`, "error/invalid_arguments"},
		{`tools.send({to: "x"})`, "denied/no_approval_handler"},
		{`tools.explode({})`, "error/tool_panic"},
		{`tools.hang({})`, "error/call_timeout"}, // run with a 100ms CallTimeout below
		{`tools.size({text: {$artifact: "blob_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}})`, "error/artifact_not_found"},
		{`tools.size({text: {$artifact: "../../etc/passwd"}})`, "error/artifact_not_found"},
		{fmt.Sprintf(`tools.size({text: {$artifact: %q}})`, otherRef), "error/artifact_not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.call, func(t *testing.T) {
			opts := chain.Options{Tenant: "acme"}
			if strings.HasPrefix(tc.call, "tools.hang") {
				opts.Policy = &invoker.Policy{CallTimeout: 100 * time.Millisecond, ApprovalTimeout: 50 * time.Millisecond}
			}
			res := e.run(t, `
				try { await `+tc.call+`; return "no error"; }
				catch (e) { return e instanceof ToolError ? e.status + "/" + e.reason : "other: " + e; }`, opts)
			require.Equal(t, chain.StatusOK, res.Status, res.Error)
			require.JSONEq(t, fmt.Sprintf("%q", tc.want), string(res.Value))
			require.Len(t, res.Trace, 1)
			require.Equal(t, strings.SplitN(tc.want, "/", 2)[1], res.Trace[0].Reason)
		})
	}
	// The granted ref of another chain resolves.
	res := e.run(t, fmt.Sprintf(`return await tools.size({text: {$artifact: %q}});`, otherRef), chain.Options{Tenant: "acme", Grants: []string{otherRef}})
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `1048576`, string(res.Value))
}

func TestBudgetInAChain(t *testing.T) {
	e := newEnv(t, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 5}})
	res := e.run(t, `
		let ok = 0, refused = 0;
		for (let i = 0; i < 8; i++) {
			try { await tools.lookup({id: i}); ok++; }
			catch (e) { if (e.reason === "budget_exhausted") refused++; else throw e; }
		}
		return {ok, refused};`, chain.Options{})
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `{"ok":5,"refused":3}`, string(res.Value))
	require.Len(t, res.Trace, 8)

	// A per-chain policy overrides the invoker's.
	res = e.run(t, `
		let ok = 0;
		for (let i = 0; i < 4; i++) { try { await tools.lookup({id: i}); ok++; } catch (e) {} }
		return ok;`, chain.Options{Policy: &invoker.Policy{MaxToolCalls: 2}})
	require.JSONEq(t, `2`, string(res.Value))

	_, err := e.runner.Run(context.Background(), sandbox.Script{Source: "return 1"},
		chain.Options{Policy: &invoker.Policy{CallTimeout: time.Second, ApprovalTimeout: time.Second}})
	require.ErrorIs(t, err, invoker.ErrInvalidPolicy)
}

// TestHostileScripts: each ends with the exact status and reason, and a
// normal chain running at the same time is unharmed.
func TestHostileScripts(t *testing.T) {
	e := newEnv(t, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 50}})
	tests := []struct {
		name   string
		src    string
		limits sandbox.Limits
		status chain.Status
		reason string
		check  func(t *testing.T, res *chain.RunResult)
	}{
		{name: "infinite loop", src: `while (true) {}`, limits: sandbox.Limits{Timeout: 300 * time.Millisecond},
			status: chain.StatusTimeout, reason: "timeout"},
		{name: "exponential call tree", src: `
			const f = (n) => n === 0 ? tools.lookup({id: 1}) : Promise.all([f(n - 1), f(n - 1)]);
			await f(12); return "done";`, limits: sandbox.Limits{Timeout: 20 * time.Second},
			// Promise.all rejects at the first refused call: the budget ends the chain.
			status: chain.StatusError, reason: "script_error", check: func(t *testing.T, res *chain.RunResult) {
				require.Contains(t, res.Error, "ToolError: this chain used its budget of 50 tool calls")
				require.Equal(t, 50, countReason(res, ""))
				require.Greater(t, countReason(res, invoker.ReasonBudgetExhausted), 0)
			}},
		{name: "a million calls", src: `for (let i = 0; i < 1e6; i++) { try { await tools.lookup({id: i}); } catch (e) {} } return "done";`,
			limits: sandbox.Limits{Timeout: time.Second}, status: chain.StatusTimeout, reason: "timeout",
			check: func(t *testing.T, res *chain.RunResult) {
				require.Equal(t, 50, countReason(res, ""))
				require.Greater(t, countReason(res, invoker.ReasonBudgetExhausted), 0)
			}},
		{name: "ten thousand concurrent calls", src: `
			const rs = await Promise.allSettled(Array.from({length: 10000}, (_, i) => tools.lookup({id: i})));
			return rs.filter(r => r.status === "fulfilled").length;`, limits: sandbox.Limits{Timeout: 20 * time.Second},
			status: chain.StatusOK, check: func(t *testing.T, res *chain.RunResult) {
				require.JSONEq(t, `50`, string(res.Value))
				require.Equal(t, 10000, res.Stats.Calls)
			}},
		{name: "memory bomb", src: `const a = []; while (true) a.push(new Array(1e6).fill(1));`,
			limits: sandbox.Limits{MemoryBytes: 32 << 20}, status: chain.StatusLimitExceeded, reason: sandbox.LimitMemory},
		{name: "huge result", src: `return "x".repeat(100 * 1024 * 1024);`, limits: sandbox.Limits{MemoryBytes: 512 << 20},
			status: chain.StatusLimitExceeded, reason: sandbox.LimitResult},
		{name: "log flood", src: `for (;;) console.log("spam spam spam spam");`,
			status: chain.StatusLimitExceeded, reason: sandbox.LimitLogs,
			check: func(t *testing.T, res *chain.RunResult) { require.True(t, res.LogsTruncated) }},
		{name: "syntax error", src: "const a = 1;\nreturn a +;", status: chain.StatusError, reason: "script_error",
			check: func(t *testing.T, res *chain.RunResult) { require.Equal(t, 2, res.Line) }},
		{name: "thrown non-Error", src: `throw {code: 42};`, status: chain.StatusError, reason: "script_error",
			check: func(t *testing.T, res *chain.RunResult) { require.Contains(t, res.Error, "42") }},
		{name: "host filesystem", src: `return std.loadFile("/etc/passwd");`, status: chain.StatusError, reason: "script_error"},
		{name: "host environment", src: `return process.env.HOME;`, status: chain.StatusError, reason: "script_error"},
		{name: "network", src: `return await fetch("http://127.0.0.1/");`, status: chain.StatusError, reason: "script_error"},
		{name: "require", src: `return require("fs");`, status: chain.StatusError, reason: "script_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var wg sync.WaitGroup
			var normal *chain.RunResult
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := e.runner.Run(context.Background(), sandbox.Script{Source: `
					const r = await Promise.all([tools.lookup({id: 2}), tools.lookup({id: 3})]);
					return r[0].score + r[1].score;`}, chain.Options{})
				if err == nil {
					normal = res
				}
			}()
			res := e.run(t, tc.src, chain.Options{Limits: tc.limits})
			wg.Wait()
			require.Equal(t, tc.status, res.Status, "%s: %s", res.Reason, res.Error)
			require.Equal(t, tc.reason, res.Reason)
			if tc.status != chain.StatusOK {
				require.Nil(t, res.Value)
				require.NotEmpty(t, res.Error)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
			require.NotNil(t, normal)
			require.Equal(t, chain.StatusOK, normal.Status, normal.Error)
			require.JSONEq(t, `50`, string(normal.Value))
		})
	}
}

func countReason(res *chain.RunResult, reason string) int {
	n := 0
	for _, r := range res.Trace {
		if r.Reason == reason {
			n++
		}
	}
	return n
}

func TestCancelAndTimeoutOfTheChain(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *chain.RunResult)
	go func() {
		res, _ := e.runner.Run(ctx, sandbox.Script{Source: `await tools.hang({}); return 1;`}, chain.Options{})
		done <- res
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	res := <-done
	require.Equal(t, chain.StatusCancelled, res.Status)
	require.Equal(t, "cancelled", res.Reason)
	require.Len(t, res.Trace, 1)
	require.Equal(t, invoker.ReasonCancelled, res.Trace[0].Reason)

	res = e.run(t, `await tools.hang({}); return 1;`, chain.Options{Limits: sandbox.Limits{Timeout: 200 * time.Millisecond}})
	require.Equal(t, chain.StatusTimeout, res.Status)
}

func TestTypeScriptChain(t *testing.T) {
	e := newEnv(t, invoker.Options{})
	res, err := e.runner.Run(context.Background(), sandbox.Script{Lang: sandbox.LangTS, Source: `
		interface Row { id: number; score: number }
		const r: Row = await tools.lookup({id: 7});
		return r.score as number;`}, chain.Options{})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `70`, string(res.Value))

	err = e.runner.Check(sandbox.Script{Lang: sandbox.LangTS, Source: "const a: number = 1;\nconst b: = 2;"})
	var exit *sandbox.ExitError
	require.True(t, errors.As(err, &exit))
	require.Equal(t, 2, exit.Line)
}

func TestMisuse(t *testing.T) {
	_, err := chain.New(nil, chain.Engines{})
	require.ErrorIs(t, err, chain.ErrNilInvoker)
	box, _ := toolbox.New()
	inv, _ := invoker.New(box, invoker.Options{})
	_, err = chain.New(inv, chain.Engines{})
	require.ErrorIs(t, err, chain.ErrNoEngine)
	r, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	_, err = r.RunModule(context.Background(), nil, nil, chain.Options{})
	require.ErrorIs(t, err, chain.ErrNilModule)
}

func TestEnvelope(t *testing.T) {
	require.Equal(t, `{"status":"ok","value":{"a":1}}`, string(chain.Envelope(invoker.Result{Status: "ok", Value: json.RawMessage(`{"a":1}`)})))
	require.Equal(t, `{"status":"ok","value":null}`, string(chain.Envelope(invoker.Result{Status: "ok"})))
	b := chain.Envelope(invoker.Result{Status: "denied", Reason: "approval_denied", Message: "no \"way\"\n\x00"})
	require.True(t, json.Valid(b))
	require.Equal(t, `{"status":"denied","reason":"approval_denied","message":"no \"way\"\n\u0000"}`, string(b))
}
