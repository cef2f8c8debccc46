package main_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/wasmbuild"
)

// hostileCase is one submission of the survival test and the outcome it
// must always have: an HTTP code, and for a chain that ran its status and
// reason.
type hostileCase struct {
	name   string
	body   map[string]any
	code   int    // HTTP status of POST /v1/chains
	status string // the chain's status when code is 200
	reason string // the chain's reason, or the error's reason for a 4xx
}

// survivalCases are the attacks the survival test sends over and over, each
// with the outcome it must have every time, and a healthy chain among them.
var survivalCases = []hostileCase{
	{name: "healthy", body: map[string]any{"script": `const r = await tools.search_docs({query: "limits"}); return r.hits.length > 0`},
		code: 200, status: "ok"},
	{name: "endless loop", body: map[string]any{"script": `while (true) {}`, "limits": map[string]any{"timeout": "300ms"}},
		code: 200, status: "timeout", reason: "timeout"},
	{name: "memory bomb", body: map[string]any{"script": `const a = []; for (;;) a.push(new Array(1e5).fill(1));`},
		code: 200, status: "limit_exceeded", reason: "memory"},
	{name: "deep recursion", body: map[string]any{"script": `const f = n => f(n + 1) + 1; return f(0);`},
		code: 200, status: "error", reason: "script_error"}, // RangeError: Maximum call stack size exceeded
	{name: "log flood", body: map[string]any{"script": `for (;;) console.log("x".repeat(1000));`},
		code: 200, status: "limit_exceeded", reason: "logs"},
	{name: "huge string result", body: map[string]any{"script": `return "x".repeat(8 << 20);`},
		code: 200, status: "limit_exceeded", reason: "result"},
	{name: "call flood", body: map[string]any{"script": `for (let i = 0; ; i++) { try { await tools.kv_get({key: "k"}); } catch (e) { if (e.reason === "budget_exhausted") throw e; } }`},
		code: 200, status: "error", reason: "script_error"},
	{name: "never-returning tool", body: map[string]any{"script": `await tools.slow({ms: 60000});`, "policy": map[string]any{"call_timeout": "200ms"}},
		code: 200, status: "error", reason: "script_error"},
	// A 30,000-argument frame fits the default stack (the engine's stack
	// region, 504 KiB); under a 4 KiB stack it ends the chain.
	{name: "large interpreter frame", body: map[string]any{"script": "const g = (...a) => a.length;\n" +
		"const f = new Function('g', 'x', 'return g(' + Array(30000).fill('x').join(',') + ')');\nreturn f(g, 1)"},
		code: 200, status: "ok"},
	{name: "large interpreter frame on a small stack", body: map[string]any{"script": "const g = (...a) => a.length;\n" +
		"const f = new Function('g', 'x', 'return g(' + Array(30000).fill('x').join(',') + ')');\nreturn f(g, 1)",
		"limits": map[string]any{"max_stack_bytes": "4KiB"}},
		code: 200, status: "limit_exceeded", reason: "stack"},
	{name: "engine module import", body: map[string]any{"script": `const std = await import("qjs:std"); return std.loadFile("/etc/passwd");`},
		code: 200, status: "error", reason: "script_error"},
	{name: "empty console entries", body: map[string]any{"script": `for (;;) console.log();`},
		code: 200, status: "limit_exceeded", reason: "logs"},
	// Issue 10's host operations: timers, artifact reads, Intl, digests,
	// console rendering.
	{name: "interval beside a promise that never settles", body: map[string]any{"script": `setInterval(() => {}, 1); await new Promise(() => {});`,
		"limits": map[string]any{"timeout": "300ms"}}, code: 200, status: "timeout", reason: "timeout"},
	{name: "artifact read loop", body: map[string]any{"script": `const a = await tools.make_csv({rows: 60000, seed: 3}); for (;;) await a.text();`,
		"limits": map[string]any{"max_read_bytes": "4MiB"}}, code: 200, status: "error", reason: "script_error"}, // read_limit
	{name: "Intl storm", body: map[string]any{"script": `for (let i = 0; ; i++) new Intl.NumberFormat(["de-DE", "fr-FR", "ja-JP", "x-" + i][i % 4], {style: "currency", currency: "EUR"}).format(i / 7);`,
		"limits": map[string]any{"timeout": "300ms"}}, code: 200, status: "timeout", reason: "timeout"},
	{name: "digest of 1 MiB", body: map[string]any{"script": `const d = await crypto.subtle.digest("SHA-256", new Uint8Array(1 << 20)); return new Uint8Array(d).length;`},
		code: 200, status: "ok"},
	{name: "console of a deep chain", body: map[string]any{"script": `const o = {}; let c = o; for (let i = 0; i < 1e5; i++) { c.next = {i, m: new Map([[i, [i]]])}; c = c.next; } console.log(o); return 1;`},
		code: 200, status: "ok"},
	{name: "170k nested brackets", body: map[string]any{"script": strings.Repeat("[", 170000) + strings.Repeat("]", 170000)},
		code: 400, reason: "invalid_script"},
	{name: "2000 nested arrows", body: map[string]any{"script": "return " + strings.Repeat("a=>", 2000) + "1"},
		code: 400, reason: "invalid_script"},
	{name: "deep TypeScript types", body: map[string]any{"language": "typescript",
		"script": "let x: " + strings.Repeat("Array<", 50000) + "number" + strings.Repeat(">", 50000) + " = []; return x"},
		code: 400, reason: "invalid_script"},
	{name: "error storm", body: map[string]any{"script": strings.Repeat("let x;\n", 14000)},
		code: 400, reason: "invalid_script"},
	{name: "table.grow by 2^32-1", body: map[string]any{"language": "wasm", "script": b64(wasmbuild.TableGrow(0))},
		code: 200, status: "error", reason: "script_error"},
	{name: "tables past the memory limit", body: map[string]any{"language": "wasm", "script": b64(wasmbuild.TableGrow(600_000)),
		"limits": map[string]any{"memory": "4MiB"}}, code: 200, status: "limit_exceeded", reason: "memory"},
	{name: "2^28 locals", body: map[string]any{"language": "wasm",
		"script": b64(wasmbuild.ProcExitCommand(nil, wasmbuild.Body([][2]uint32{{1 << 27, uint32(wasmbuild.I64)}, {1 << 27, uint32(wasmbuild.I32)}}, 0x0b)))},
		code: 400, reason: "invalid_module"},
	{name: "200k nested wasm blocks", body: map[string]any{"language": "wasm", "script": b64(nestedBlocks(200_000))},
		code: 400, reason: "invalid_module"},
	{name: "fd_write flood", body: map[string]any{"language": "wasm", "script": b64(wasmbuild.FDWriteFlood())},
		code: 200, status: "limit_exceeded", reason: "logs"},
	{name: "airlock_log flood", body: map[string]any{"language": "wasm", "script": b64(wasmbuild.LogFlood())},
		code: 200, status: "limit_exceeded", reason: "logs"},
	// Issue 12: host memory of waiting calls and large parses of one tenant.
	// HIGH calls of 512 KiB at once: each is charged about 1 MiB of its
	// tenant's budget (approval.max_tenant_in_flight_bytes, 2MiB here), so
	// one waits for approval (approval_timeout) and the others end at once
	// with tenant_memory. (50 calls of 1 MiB, as in the issue, take the
	// guest over 10 s to encode on a busy machine under -race.)
	{name: "waiting calls of 512 KiB", body: map[string]any{"script": `const text = "y".repeat(512 << 10);
const r = await Promise.allSettled(Array.from({length: 8}, () => tools.send_message({to: "x", text})));
if (!r.every(s => s.status === "rejected") || !r.some(s => s.reason.reason === "tenant_memory"))
  throw new Error(JSON.stringify(r.map(s => s.status + "/" + (s.reason && s.reason.reason))));
return true;`,
		"policy": map[string]any{"approval_timeout": "2s", "call_timeout": "3s"}},
		code: 200, status: "ok"},
	// 300 KB of a name declared again: minutes of esbuild, killed in its
	// worker process at its budget (or refused while the tenant's slot is
	// taken).
	{name: "300 KB duplicate-declaration storm", body: map[string]any{"script": strings.Repeat("let x;\n", (300<<10)/7)},
		code: 400, reason: "invalid_script"},
	{name: "syntax error", body: map[string]any{"script": `return a +;`},
		code: 400, reason: "invalid_script"},
	{name: "not a module", body: map[string]any{"script": "AGFzbQEAAAA=", "language": "wasm"},
		code: 400, reason: "invalid_module"},
}

// TestSurvival starts a real airlock serve and sends it the hostile cases
// from three tenants at once for a bounded time. The process must stay up
// and answer /healthz throughout, every submission must end as its case
// says, its memory must stay under the documented bound, and its goroutines
// must come back to their baseline afterwards.
func TestSurvival(t *testing.T) {
	const (
		duration = 20 * time.Second
		workers  = 6
		// rssBound is the documented bound on the process's resident memory
		// under this load: max_concurrent_chains (8) × (memory 64MiB + the
		// engine's 16MiB) plus the process's own ~300MiB.
		rssBound = 1 << 30
	)
	keys := []string{"survive-a-0123456789abcdef", "survive-b-0123456789abcdef", "survive-c-0123456789abcdef"}
	// Tenant d floods event streams (streamFlood) beside the others.
	const streamKey, maxStreams = "survive-d-0123456789abcdef", 2
	s := serve(t, `
server:
  max_concurrent_chains: 8
  max_streams_per_tenant: `+strconv.Itoa(maxStreams)+`
  api_keys:
    - {key: "`+keys[0]+`", tenant: a}
    - {key: "`+keys[1]+`", tenant: b}
    - {key: "`+keys[2]+`", tenant: c}
    - {key: "`+streamKey+`", tenant: d}
approval:
  max_tenant_in_flight_bytes: 2MiB
limits:
  # Every case that should time out sets its own timeout; this one only
  # bounds the others, which on a loaded machine (load 12 on 2 cores, under
  # -race) took up to 10s ("console of a deep chain") and then failed.
  timeout: 30s
`)
	pid := s.cmd.Process.Pid
	client := &http.Client{Timeout: time.Minute}
	defer client.CloseIdleConnections()
	goroutines := func() int {
		req, _ := http.NewRequest("GET", s.url+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+keys[0])
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
				n, err := strconv.ParseFloat(v, 64)
				require.NoError(t, err)
				return int(n)
			}
		}
		t.Fatal("go_goroutines not in /metrics")
		return 0
	}
	baseline := goroutines()

	var (
		mu       sync.Mutex
		problems []string
		counts   = map[string]int{}
		maxRSS   int64
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	deadline := time.Now().Add(duration)
	// try submits case c with key and checks its outcome; false means stop.
	try := func(c hostileCase, key string) bool {
		b, _ := json.Marshal(c.body)
		req, _ := http.NewRequest("POST", s.url+"/v1/chains", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			fail("%s: %v", c.name, err)
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			time.Sleep(20 * time.Millisecond)
			return true
		}
		var v struct {
			Status string
			Result struct{ Status, Reason string }
			Error  struct{ Reason string }
		}
		_ = json.Unmarshal(body, &v)
		switch {
		case resp.StatusCode != c.code:
			fail("%s: HTTP %d, want %d: %s", c.name, resp.StatusCode, c.code, clipBody(body))
		case c.code == 200 && (v.Result.Status != c.status || v.Result.Reason != c.reason):
			fail("%s: %s/%s, want %s/%s", c.name, v.Result.Status, v.Result.Reason, c.status, c.reason)
		case c.code != 200 && v.Error.Reason != c.reason:
			fail("%s: reason %q, want %q", c.name, v.Error.Reason, c.reason)
		default:
			mu.Lock()
			counts[c.name]++
			mu.Unlock()
		}
		return true
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := keys[w%len(keys)]
			for i := w; time.Now().Before(deadline); i++ {
				if !try(survivalCases[i%len(survivalCases)], key) {
					return
				}
			}
		}()
	}
	// Stream flood: tenant d opens maxStreams event streams on a running
	// chain of its own; one more is refused with 429 too_many_streams while
	// the other tenants' chains run on. Cancelling the chain ends its
	// streams, and reading them to their end frees their places.
	const streamFlood = "stream flood"
	wg.Add(1)
	go func() {
		defer wg.Done()
		for time.Now().Before(deadline) {
			if !floodStreams(client, s.url, streamKey, maxStreams, fail) {
				return
			}
			mu.Lock()
			counts[streamFlood]++
			mu.Unlock()
		}
	}()
	// Health and memory, throughout.
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		for time.Now().Before(deadline) {
			resp, err := client.Get(s.url + "/healthz")
			if err != nil {
				fail("healthz: %v", err)
			} else {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					fail("healthz answered %d", resp.StatusCode)
				}
			}
			if rss := residentBytes(pid); rss > 0 {
				mu.Lock()
				maxRSS = max(maxRSS, rss)
				mu.Unlock()
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	wg.Wait()
	<-watchDone
	// On a loaded machine the round robin may not reach every case in
	// time: each one not reached runs once more now, alone, to its outcome.
	for _, c := range survivalCases {
		for attempt := 0; counts[c.name] == 0 && attempt < 20 && try(c, keys[0]); attempt++ {
		}
	}

	require.Empty(t, problems, "server log:\n%s", tail(s.logs(), 4000))
	for _, c := range survivalCases {
		require.Positive(t, counts[c.name], "case %q never ran to its outcome", c.name)
	}
	require.Positive(t, counts[streamFlood], "the stream flood never ran to its outcome")
	require.Nil(t, s.cmd.ProcessState, "the process exited")
	require.Less(t, maxRSS, int64(rssBound), "resident memory %d MiB", maxRSS>>20)
	client.CloseIdleConnections()
	// A parse over its budget (the error storm) is killed with its worker
	// process, so nothing of it runs on.
	require.Eventually(t, func() bool { return goroutines() <= baseline+4 }, time.Minute, 100*time.Millisecond,
		"goroutines did not come back to the baseline of %d", baseline)
	require.Eventually(t, func() bool { return len(childProcesses(s.cmd.Process.Pid)) == 0 }, 10*time.Second, 10*time.Millisecond,
		"parse workers outlived their parses: %v", childProcesses(s.cmd.Process.Pid))
	t.Logf("cases run: %v; peak RSS %d MiB; goroutines baseline %d", counts, maxRSS>>20, baseline)
	require.Equal(t, 0, s.stop(t, 30*time.Second))
}

// floodStreams submits a chain that runs until cancelled with key, opens
// max event streams on it (each must answer 200), checks that one more is
// refused with 429 too_many_streams, then cancels the chain and reads its
// streams to their end. It reports false on a problem (given to fail).
func floodStreams(client *http.Client, url, key string, max int, fail func(string, ...any)) bool {
	do := func(method, path string, body []byte) (*http.Response, error) {
		req, _ := http.NewRequest(method, url+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		return client.Do(req)
	}
	var id string
	for id == "" {
		resp, err := do("POST", "/v1/chains?async=1", []byte(`{"script": "await tools.slow({ms: 60000})"}`))
		if err != nil {
			fail("stream flood: submit: %v", err)
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusTooManyRequests: // too_many_chains: the others hold every place
			time.Sleep(20 * time.Millisecond)
		case http.StatusAccepted:
			var v struct{ ID string }
			if err := json.Unmarshal(body, &v); err != nil || v.ID == "" {
				fail("stream flood: submit answered %s", clipBody(body))
				return false
			}
			id = v.ID
		default:
			fail("stream flood: submit: HTTP %d: %s", resp.StatusCode, clipBody(body))
			return false
		}
	}
	ok := true
	var streams []*http.Response
	for range max {
		resp, err := do("GET", "/v1/chains/"+id+"/events", nil)
		if err != nil {
			fail("stream flood: stream: %v", err)
			ok = false
			break
		}
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fail("stream flood: stream %d: HTTP %d, want 200: %s", len(streams)+1, resp.StatusCode, clipBody(body))
			ok = false
			break
		}
		streams = append(streams, resp)
	}
	if ok {
		resp, err := do("GET", "/v1/chains/"+id+"/events", nil)
		if err != nil {
			fail("stream flood: extra stream: %v", err)
			ok = false
		} else {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var v struct{ Error struct{ Reason string } }
			_ = json.Unmarshal(body, &v)
			if resp.StatusCode != http.StatusTooManyRequests || v.Error.Reason != "too_many_streams" {
				fail("stream flood: extra stream: HTTP %d, want 429 too_many_streams: %s", resp.StatusCode, clipBody(body))
				ok = false
			}
		}
	}
	if resp, err := do("DELETE", "/v1/chains/"+id, nil); err != nil {
		fail("stream flood: cancel: %v", err)
		ok = false
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for _, st := range streams {
		if _, err := io.Copy(io.Discard, st.Body); err != nil {
			fail("stream flood: reading a stream to its end: %v", err)
			ok = false
		}
		st.Body.Close()
	}
	return ok
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// nestedBlocks is a module whose one function nests n blocks: wazero's
// compile time grows with the square of that (350k: over ten minutes).
func nestedBlocks(n int) []byte {
	body := append(append(bytes.Repeat([]byte{0x02, 0x40}, n), bytes.Repeat([]byte{0x0b}, n)...), 0x0b)
	return wasmbuild.ProcExitCommand(nil, wasmbuild.Body(nil, body...))
}

// residentBytes reads a process's resident set size from /proc; 0 where
// there is no /proc.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func clipBody(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// childProcesses are the live processes whose parent is pid (a server's
// parse workers); none where there is no /proc.
func childProcesses(pid int) []int {
	dirs, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range dirs {
		child, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) && f[0] != "Z" {
			pids = append(pids, child)
		}
	}
	return pids
}
