package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// bystander runs a well-behaved chain on the same engine while a hostile one
// runs, and checks that it finished correctly.
func bystander(t *testing.T, e *ScriptEngine) (wait func()) {
	t.Helper()
	done := make(chan struct{})
	var res *Result
	var err error
	slow := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
		return okBridge(ctx, tool, args)
	}
	go func() {
		defer close(done)
		res, err = e.Run(context.Background(), Script{Source: `
			let sum = 0;
			for (let i = 0; i < 5; i++) {
				const [a, b] = await Promise.all([tools.n({i}), tools.n({i: i * 10})]);
				sum += a.args.i + b.args.i;
			}
			return sum;`}, slow, Limits{})
	}()
	return func() {
		<-done
		require.NoError(t, err)
		require.JSONEq(t, `110`, string(res.Value))
	}
}

func TestHostile(t *testing.T) {
	// See hostileCase for the fields: msg is a fragment of
	// ExitError.Message. How long each run took is logged, never asserted
	// (timings depend on the machine; make bench measures them).
	tests := []hostileCase{
		{name: "infinite loop", src: "while (true) {}", lim: Limits{Timeout: 300 * time.Millisecond}, kind: Timeout},
		{name: "infinite loop after a call", src: "await tools.a(); for (;;) {}", lim: Limits{Timeout: 300 * time.Millisecond}, kind: Timeout},
		{name: "exponential call tree", src: "const f = (n) => n === 0 ? 1 : f(n - 1) + f(n - 1); return f(60)",
			lim: Limits{Timeout: 300 * time.Millisecond}, kind: Timeout},
		{name: "regex backtracking (a C loop)", src: "return /(a+)+b/.test('a'.repeat(40))",
			lim: Limits{Timeout: 200 * time.Millisecond}, kind: Timeout},
		{name: "string replace over 16 Mi matches (C loops)", src: "return 'x'.repeat(1 << 24).replace(/x/g, 'yy').length",
			lim: Limits{Timeout: 200 * time.Millisecond, MemoryBytes: 256 << 20}, kind: Timeout},
		{name: "setInterval keeps the loop alive", src: "setInterval(() => {}, 1); await new Promise(() => {})",
			lim: Limits{Timeout: 300 * time.Millisecond}, kind: Timeout},
		{name: "deep recursion", src: "const f = (n) => f(n + 1) + 1; return f(0)", kind: ScriptError, msg: overflowMsg},
		{name: "deep recursion caught", src: "const f = (n) => f(n + 1) + 1; try { f(0) } catch (e) { return 'caught ' + e.name }",
			check: func(t *testing.T, res *Result) { require.JSONEq(t, `"caught RangeError"`, string(res.Value)) }},
		{name: "deep JSON", src: "return JSON.parse('['.repeat(100000) + ']'.repeat(100000))", kind: ScriptError, msg: overflowMsg},
		{name: "recursion under a small stack", src: "const f = (n) => n === 0 ? 0 : 1 + f(n - 1); return f(100)",
			lim: Limits{MaxStackBytes: 4 << 10}, kind: LimitExceeded, limit: LimitStack},
		{name: "memory bomb", src: "const mb = 'x'.repeat(1 << 20), a = []; for (;;) a.push(mb + a.length)",
			lim: Limits{MemoryBytes: 16 << 20}, kind: LimitExceeded, limit: LimitMemory},
		{name: "memory bomb with typed arrays", src: "const a = []; for (;;) a.push(new Uint8Array(1 << 20))",
			lim: Limits{MemoryBytes: 16 << 20}, kind: LimitExceeded, limit: LimitMemory},
		{name: "100 MiB string returned", src: "return 'x'.repeat(1 << 20).repeat(100)",
			lim: Limits{MemoryBytes: 512 << 20}, kind: LimitExceeded, limit: LimitResult},
		{name: "100 MiB string returned under 256 MiB", src: "return 'x'.repeat(100 * 1024 * 1024)",
			lim: Limits{MemoryBytes: 256 << 20}, kind: LimitExceeded, limit: LimitResult},
		{name: "100 MiB string in an array under 256 MiB", src: "return ['x'.repeat(100 * 1024 * 1024)]",
			lim: Limits{MemoryBytes: 256 << 20}, kind: LimitExceeded, limit: LimitMemory},
		{name: "huge string within MaxResultBytes, out of memory when encoded", src: "return ['\u00e9'.repeat(40 << 20)]",
			lim: Limits{MemoryBytes: 128 << 20, MaxResultBytes: 1 << 30}, kind: LimitExceeded, limit: LimitMemory},
		{name: "result just over the limit", src: "return 'y'.repeat(1000)",
			lim: Limits{MaxResultBytes: 1000}, kind: LimitExceeded, limit: LimitResult},
		{name: "log flood", src: "for (;;) console.log('spam '.repeat(100))", lim: Limits{MaxLogBytes: 64 << 10},
			kind: LimitExceeded, limit: LimitLogs, check: func(t *testing.T, res *Result) {
				require.True(t, res.LogsTruncated)
				n := 0
				for _, l := range res.Logs {
					n += len(l.Text)
				}
				require.Equal(t, 64<<10, n+LogEntryOverhead*len(res.Logs))
			}},
		{name: "oversized arguments", src: "await tools.a({blob: 'z'.repeat(2 << 20)})", kind: LimitExceeded, limit: LimitArgs},
		{name: "1e6 calls in a loop", src: "for (let i = 0; i < 1e6; i++) await tools.a({i})",
			lim: Limits{Timeout: time.Second}, kind: Timeout, check: func(t *testing.T, res *Result) {
				require.Positive(t, res.Stats.Calls)
			}},
		{name: "bypassing the prelude queue", lim: Limits{MaxInFlight: 2},
			src: "const h = Object.getOwnPropertyNames(globalThis).filter(n => n.startsWith('__airlock'));\n" +
				"return h.filter(n => n !== '__airlock_start' && n !== '__airlock_pump' && n !== '__airlock_mark')",
			check: func(t *testing.T, res *Result) { require.JSONEq(t, `[]`, string(res.Value)) }},
		// console reads a promise's state and value through OpPromise: what
		// a script hands it is any value, inspected over and over.
		{name: "promise inspection of hostile values",
			src: "const { proxy, revoke } = Proxy.revocable(Promise.resolve(1), {}); revoke();\n" +
				"class P extends Promise { static get [Symbol.species]() { throw new Error('no'); } }\n" +
				"let chain = Promise.resolve(0); for (let i = 0; i < 10000; i++) chain = Promise.resolve({ next: chain });\n" +
				"const values = [proxy, new Proxy(Promise.resolve(2), { get() { throw 1; } }), Object.create(Promise.prototype), P.resolve(3),\n" +
				"  chain, Promise.reject(Symbol('s')), new Promise(() => {}), Promise.resolve(new Proxy({}, { ownKeys() { throw 2; } }))];\n" +
				"values[5].catch(() => {});\n" +
				"let n = 0; for (let i = 0; i < 100; i++) for (const v of values) { try { console.log(v); n++; } catch (_) { n += 1000; } }\n" +
				"console.log(Promise.resolve('x'.repeat(1 << 19)));\n" +
				"return n",
			check: func(t *testing.T, res *Result) {
				require.JSONEq(t, `800`, string(res.Value))
				require.Len(t, res.Logs, 801)
				require.Equal(t, "Promise { <pending> }", res.Logs[6].Text)
			}},
		{name: "v-flag patterns nested deep or long", src: "const r = [];\n" +
			"for (const src of ['['.repeat(1e4) + ']'.repeat(1e4), '[a--b]'.repeat(5e3), '[\\\\p{'.repeat(1e4), '[\\\\q{' + 'a|'.repeat(1e4) + '}]']) {\n" +
			"  try { r.push(new RegExp(src, 'v').test('a')); } catch (e) { r.push(e.name); } }\n" +
			"return r",
			check: func(t *testing.T, res *Result) {
				// Too deep or too large for the translation or the engine's
				// compiler: an error the script can catch, in bounded time.
				var r []any
				require.NoError(t, json.Unmarshal(res.Value, &r))
				require.Len(t, r, 4)
				require.Contains(t, []any{"RangeError", "SyntaxError"}, r[0])
				require.Contains(t, []any{"RangeError", "SyntaxError", false}, r[1])
				require.Equal(t, []any{"SyntaxError", true}, r[2:])
			}},
	}
	tests = append(tests, stackCases()...)
	tests = append(tests, memoryCases()...)
	tests = append(tests, consoleCases()...)
	tests = append(tests, intlCases()...)
	e := engine(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each run is its own, on an engine safe for concurrent use
			wait := bystander(t, e)
			br := tt.br
			if br == nil {
				br = okBridge
			}
			start := time.Now()
			res, err := e.Run(context.Background(), Script{Source: tt.src}, br, tt.lim)
			wait()
			require.NotNil(t, res)
			if tt.kind == 0 {
				require.NoError(t, err)
			} else {
				var xe *ExitError
				require.ErrorAs(t, err, &xe)
				require.Equal(t, tt.kind, xe.Kind, "%v", err)
				require.Equal(t, tt.limit, xe.Limit, "%v", err)
				require.Contains(t, xe.Message, tt.msg)
				t.Logf("%v after %v", err, time.Since(start))
			}
			if tt.check != nil {
				tt.check(t, res)
			}
			// The engine still serves the next run.
			res, err = e.Run(context.Background(), Script{Source: "return 'alive'"}, okBridge, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, `"alive"`, string(res.Value))
		})
	}
}

// TestManyConcurrentCalls starts 10⁴ calls with Promise.all under
// MaxInFlight 16: all complete, and the bridge never sees more than 16 at
// once (but does see several).
func TestManyConcurrentCalls(t *testing.T) {
	var cur, peak atomic.Int64
	br := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(50 * time.Microsecond)
		cur.Add(-1)
		return []byte(`{"status":"ok","value":1}`), nil
	}
	wait := bystander(t, engine(t))
	res, err := run(t, `
		const ps = [];
		for (let i = 0; i < 10000; i++) ps.push(tools.inc({i}));
		const vs = await Promise.all(ps);
		return vs.reduce((a, b) => a + b, 0);`, br, Limits{MaxInFlight: 16})
	wait()
	require.NoError(t, err)
	require.JSONEq(t, `10000`, string(res.Value))
	require.Equal(t, 10000, res.Stats.Calls)
	require.LessOrEqual(t, peak.Load(), int64(16))
	require.Greater(t, peak.Load(), int64(1))
}

// TestNoHostAccess checks that a script reaches no file, environment
// variable, process or network: the globals are gone, and the engine's own
// modules, imported dynamically, see an empty filesystem and environment.
func TestNoHostAccess(t *testing.T) {
	t.Setenv("AIRLOCK_SECRET", "hunter2")
	tests := []struct {
		name string
		src  string
		want string
	}{
		{name: "globals", src: "return [typeof require, typeof process, typeof fetch, typeof std, typeof os, typeof XMLHttpRequest, typeof WebSocket, typeof bjson, typeof print]",
			want: `["undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined"]`},
		{name: "require call", src: "try { require('fs'); return 'reached' } catch (e) { return e.name }", want: `"ReferenceError"`},
		{name: "std.loadFile", src: "try { const std = await import('qjs:std'); return std.loadFile('/etc/passwd') } catch (e) { return e.name }",
			want: `"ReferenceError"`},
		{name: "module import from disk", src: "try { await import('/etc/passwd'); return 'reached' } catch (e) { return e.name }", want: `"ReferenceError"`},
		{name: "module import of a relative path", src: "try { await import('./go.mod'); return 'reached' } catch (e) { return e.name }", want: `"ReferenceError"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, tt.src, nil, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
	_, err := stat("/tmp/airlock-escape")
	require.Error(t, err)
}

// TestConcurrentRuns hammers one engine from many goroutines.
func TestConcurrentRuns(t *testing.T) {
	e := engine(t)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				src := fmt.Sprintf("const r = await Promise.all([tools.a({v: %d}), tools.b({v: %d})]); return r[0].args.v + r[1].args.v", g, i)
				res, err := e.Run(context.Background(), Script{Source: src}, okBridge, Limits{})
				if err == nil && strings.TrimSpace(string(res.Value)) != fmt.Sprint(g+i) {
					err = fmt.Errorf("got %s want %d", res.Value, g+i)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func stat(name string) (any, error) { return os.Stat(name) }
