package main_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/s3blob"
)

// fleetEnv is a bucket on the test MinIO, a configuration for a fleet of
// `airlock serve` processes on it, and a loopback HTTP endpoint whose
// notify tool counts its executions by message id.
type fleetEnv struct {
	t      *testing.T
	config string
	bucket string
	mu     sync.Mutex
	sent   map[string]int
}

const fleetAPIKey = "fleet-acme-key-0123456789"

func newFleetEnv(t *testing.T) *fleetEnv {
	t.Helper()
	endpoint := minioEndpoint(t, "the fleet tests")
	var b [4]byte
	_, _ = rand.Read(b[:])
	f := &fleetEnv{t: t, bucket: "airlock-fleet-" + hex.EncodeToString(b[:]), sent: map[string]int{}}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			ID string `json:"id"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		_ = json.Unmarshal(body, &in)
		f.mu.Lock()
		f.sent[in.ID]++
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"sent":%q}`, in.ID)
	}))
	t.Cleanup(hook.Close)
	f.config = fmt.Sprintf(`
store:
  kind: s3
  s3:
    endpoint: %s
    bucket: %s
    access_key: %s
    secret_key: %s
approval:
  mode: park
fleet:
  key: fleet-key-0123456789abcdef-0123456789
  lease: 2s
server:
  shutdown_timeout: 10s
  api_keys:
    - {key: %q, tenant: acme}
tools:
  http:
    - name: notify
      description: Sends a notification
      url: %s
      risk: HIGH
      input_schema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
`, endpoint, f.bucket, os.Getenv(s3blob.EnvAccessKey), os.Getenv(s3blob.EnvSecretKey), fleetAPIKey, hook.URL)
	return f
}

func (f *fleetEnv) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[id]
}

func (f *fleetEnv) serve() *served { return serve(f.t, f.config) }

// pins lists the pin markers in the fleet's bucket.
func (f *fleetEnv) pins() []string {
	f.t.Helper()
	d, err := s3blob.New(context.Background(), s3blob.Config{Endpoint: os.Getenv(s3blob.EnvEndpoint), Bucket: f.bucket,
		AccessKey: os.Getenv(s3blob.EnvAccessKey), SecretKey: os.Getenv(s3blob.EnvSecretKey)})
	require.NoError(f.t, err)
	defer d.Close()
	var out []string
	require.NoError(f.t, d.List(context.Background(), "", func(e blobstore.Entry) error {
		if strings.Contains(e.Key, "/pin/") {
			out = append(out, e.Key)
		}
		return nil
	}))
	return out
}

// kill ends s with SIGKILL: nothing of it runs after this.
func kill(t *testing.T, s *served) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGKILL))
	<-s.end
	_ = s.cmd.Wait()
}

func (c api) chain(id string) map[string]any {
	c.t.Helper()
	a := c.do("GET", "/v1/chains/"+id, fleetAPIKey, "", nil)
	require.Equal(c.t, http.StatusOK, a.code, "%s", a.body)
	var v map[string]any
	require.NoError(c.t, json.Unmarshal(a.body, &v))
	return v
}

// until polls chain id through c until its status is one of want.
func (c api) until(id string, want ...string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v := c.chain(id)
		for _, w := range want {
			if v["status"] == w {
				return v
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("chain %s is %v, not %v", id, v["status"], want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c api) decideAll(id, decision string) {
	c.t.Helper()
	// The chain may be running a moment (a timer woke it): wait until it
	// is parked on its calls.
	var v map[string]any
	var pending []any
	for deadline := time.Now().Add(15 * time.Second); len(pending) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		v = c.chain(id)
		pending, _ = v["pending"].([]any)
	}
	require.NotEmpty(c.t, pending, "%v", v)
	for _, p := range pending {
		a := p.(map[string]any)
		r := c.json("POST", "/v1/approvals/"+a["id"].(string), fleetAPIKey, map[string]string{"decision": decision, "args_hash": a["args_hash"].(string)})
		require.Contains(c.t, []int{http.StatusOK, http.StatusConflict}, r.code, "%s", r.body)
	}
}

// parkScript runs three calls at once, two of which need approval, with a
// timer pending, and keeps an offloaded artifact.
const parkScript = `
const csv = await tools.make_csv({rows: 20000, seed: 7});
let ticked = 0;
const timer = new Promise(r => setTimeout(() => { ticked = Date.now(); r(); }, 2000)); // pending when it parks
const [a, k, b] = await Promise.all([tools.notify({id: "ID-a"}), tools.kv_get({key: "x"}), tools.notify({id: "ID-b"})]);
await timer;
const rows = csv.split("\n").length;
return {a, b, k, rows, ticked: ticked > 0};
`

func TestFleetParkKillResumeElsewhere(t *testing.T) {
	f := newFleetEnv(t)
	a, b, c := f.serve(), f.serve(), f.serve()
	apiA, apiB, apiC := api{t: t, url: a.url}, api{t: t, url: b.url}, api{t: t, url: c.url}
	script := strings.ReplaceAll(parkScript, "ID-", "kill-")

	// A chain parks on A; A is killed; B decides; the chain resumes on B.
	r := apiA.json("POST", "/v1/chains", fleetAPIKey, map[string]any{"script": script})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, "parked", r.field(t, "status"), "%s", r.body)
	id := r.field(t, "id").(string)
	kill(t, a)
	apiB.decideAll(id, "approve")
	v := apiC.until(id, "ok", "error")
	require.Equal(t, "ok", v["status"], "%v", v)
	res := v["result"].(map[string]any)
	val := res["value"].(map[string]any)
	require.Equal(t, map[string]any{"sent": "kill-a"}, val["a"])
	require.Equal(t, map[string]any{"sent": "kill-b"}, val["b"])
	require.GreaterOrEqual(t, val["rows"], 20001.0)
	require.Equal(t, true, val["ticked"])
	require.Len(t, res["trace"], 4)
	require.Equal(t, 1, f.count("kill-a"))
	require.Equal(t, 1, f.count("kill-b"))

	// A process killed in the middle of a call leaves its chain
	// interrupted, the call listed as unknown, never run again.
	r = apiB.json("POST", "/v1/chains?async=1", fleetAPIKey, map[string]any{"script": `await tools.kv_get({key: "before"}); await tools.slow({ms: 20000}); return 1`})
	require.Equal(t, http.StatusAccepted, r.code, "%s", r.body)
	id = r.field(t, "id").(string)
	require.Eventually(t, func() bool {
		// The slow call, not kv_get: on a busy machine kv_get's call can
		// still be open when the record is first read.
		open, _ := apiC.chain(id)["open"].([]any)
		for _, o := range open {
			if o.(map[string]any)["tool"] == "slow" {
				return true
			}
		}
		return false
	}, 30*time.Second, 50*time.Millisecond, "the running chain's record lists its open slow call")
	kill(t, b)
	v = apiC.until(id, "interrupted")
	res = v["result"].(map[string]any)
	require.Equal(t, "process_lost", res["reason"])
	trace := res["trace"].([]any)
	require.Len(t, trace, 2, "the call that ended, then the one in progress")
	first, last := trace[0].(map[string]any), trace[1].(map[string]any)
	require.Equal(t, "kv_get", first["tool"])
	require.Equal(t, "ok", first["status"])
	require.Equal(t, "slow", last["tool"])
	require.Equal(t, "call_interrupted", last["reason"])
	require.Equal(t, 2.0, last["seq"])
	_ = c
}

// TestFleetSoak parks 200 chains across three processes and resumes them
// through whichever process is up, while one process is restarted twice:
// every chain must end ok, every approved call must run exactly once, and
// no pin may be left in the bucket. The counts are printed at the end.
func TestFleetSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs for tens of seconds")
	}
	f := newFleetEnv(t)
	const chains = 200
	var mu sync.Mutex
	procs := []*served{f.serve(), f.serve(), f.serve()}
	all := append([]*served(nil), procs...) // every process that ran, for the logs of a failure
	url := func(i int) string {
		mu.Lock()
		defer mu.Unlock()
		return procs[i%len(procs)].url
	}
	// call sends a request to process i, or the next one while a process
	// is going down (refused connection, 503 shutting_down), for at most a
	// minute.
	call := func(i int, method, path string, body any) (int, []byte) {
		deadline := time.Now().Add(time.Minute)
		for try := i; time.Now().Before(deadline); try++ {
			code, b, err := soakDo(url(try), method, path, body)
			if err == nil && code != http.StatusServiceUnavailable {
				return code, b
			}
			time.Sleep(50 * time.Millisecond)
		}
		return 0, nil
	}
	// One process restarts twice while chains park and resume.
	restarts := make(chan struct{})
	go func() {
		defer close(restarts)
		for range 2 {
			time.Sleep(3 * time.Second)
			mu.Lock()
			old := procs[2]
			mu.Unlock()
			_ = old.cmd.Process.Signal(syscall.SIGTERM)
			<-old.end
			_ = old.cmd.Wait()
			next := f.serve()
			mu.Lock()
			procs[2] = next
			all = append(all, next)
			mu.Unlock()
		}
	}()
	ids := make([]string, chains)
	problems := make(chan string, chains)
	var wg sync.WaitGroup
	work := make(chan int)
	start := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				src := fmt.Sprintf(`const r = await tools.notify({id: "soak-%d"}); return r.sent;`, i)
				code, b := call(i, "POST", "/v1/chains?async=1", map[string]any{"script": src})
				var v struct {
					ID      string `json:"id"`
					Status  string `json:"status"`
					Pending []struct {
						ID       string `json:"id"`
						ArgsHash string `json:"args_hash"`
					} `json:"pending"`
				}
				if code != http.StatusAccepted || json.Unmarshal(b, &v) != nil {
					problems <- fmt.Sprintf("submitting chain %d: %d %s", i, code, b)
					continue
				}
				ids[i] = v.ID
				// Wait for the park, then decide through some process.
				deadline := time.Now().Add(time.Minute)
				for len(v.Pending) == 0 && time.Now().Before(deadline) {
					time.Sleep(30 * time.Millisecond)
					_, b = call(i+1, "GET", "/v1/chains/"+ids[i], nil)
					_ = json.Unmarshal(b, &v)
				}
				if len(v.Pending) == 0 {
					problems <- fmt.Sprintf("chain %s never parked: %s", ids[i], b)
					continue
				}
				code, b = call(i+2, "POST", "/v1/approvals/"+v.Pending[0].ID, map[string]string{"decision": "approve", "args_hash": v.Pending[0].ArgsHash})
				if code != http.StatusOK && code != http.StatusConflict {
					problems <- fmt.Sprintf("deciding chain %s: %d %s", ids[i], code, b)
				}
			}
		}()
	}
	for i := range chains {
		work <- i
	}
	close(work)
	wg.Wait()
	<-restarts
	close(problems)
	for p := range problems {
		t.Error(p)
	}

	ok, lost, double := 0, 0, 0
	for i, id := range ids {
		status := ""
		for deadline := time.Now().Add(time.Minute); id != "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			_, b := call(i, "GET", "/v1/chains/"+id, nil)
			var v struct{ Status string }
			_ = json.Unmarshal(b, &v)
			if status = v.Status; status != "running" && status != "parked" {
				break
			}
		}
		if status == "ok" {
			ok++
		} else {
			lost++
			t.Errorf("chain %d (%s) ended %q", i, id, status)
			if lost == 1 {
				mu.Lock()
				for _, p := range all {
					for _, line := range strings.Split(p.logs(), "\n") {
						if strings.Contains(line, id) || strings.Contains(line, "fleet") || strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
							t.Log(line)
						}
					}
				}
				mu.Unlock()
			}
		}
		switch n := f.count(fmt.Sprintf("soak-%d", i)); {
		case n > 1:
			double++
			t.Errorf("chain %s's call ran %d times", id, n)
		case n == 0 && status == "ok":
			t.Errorf("chain %s is ok but its call never ran", id)
		}
	}
	mu.Lock()
	for _, p := range procs {
		p.stop(t, 30*time.Second)
	}
	mu.Unlock()
	pins := f.pins()
	msg := fmt.Sprintf("soak: %d chains over 3 processes with 2 restarts in %s: %d ok, %d lost, %d double executions, %d pins left",
		chains, time.Since(start).Round(time.Second), ok, lost, double, len(pins))
	t.Log(msg)
	fmt.Fprintln(os.Stderr, msg)
	require.Equal(t, chains, ok)
	require.Zero(t, double)
	require.Empty(t, pins, "leaked pins")
}

// soakDo sends one request with the fleet's API key.
func soakDo(url, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+fleetAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, b, err
}

// TestFleetChainsCLI drives `airlock chains` against the bucket a serve
// process parks chains in: list, show, approve (which resumes the chain in
// the CLI's process), cancel.
func TestFleetChainsCLI(t *testing.T) {
	f := newFleetEnv(t)
	s := f.serve()
	c := api{t: t, url: s.url}
	file := filepath.Join(t.TempDir(), "airlock.yaml")
	require.NoError(t, os.WriteFile(file, []byte(f.config), 0o600))
	cliIn := func(stdin string, args ...string) result {
		t.Helper()
		return airlock(t, stdin, nil, append(append([]string{"chains"}, args...), "--config", file, "--tenant", "acme")...)
	}
	cli := func(args ...string) result { t.Helper(); return cliIn("", args...) }
	park := func(id string) (string, string) {
		r := c.json("POST", "/v1/chains", fleetAPIKey, map[string]any{"script": `return (await tools.notify({id: "` + id + `"})).sent`})
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		require.Equal(t, "parked", r.field(t, "status"))
		chainID := r.field(t, "id").(string)
		pending := c.chain(chainID)["pending"].([]any)
		return chainID, pending[0].(map[string]any)["id"].(string)
	}
	first, approval := park("cli-1")
	res := cli("list")
	require.Equal(t, 0, res.code, res.stderr)
	require.Regexp(t, first+` +parked +\S+ +1`, res.stdout)
	res = cli("show", first)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, `"status": "parked"`)
	require.Contains(t, res.stdout, approval)

	// approve shows the call before deciding: tool, approval, arguments
	// (invisible characters escaped), their SHA-256; without --yes or
	// --args-hash it asks, and decides nothing unless the answer is y.
	req := c.do("GET", "/v1/approvals/"+approval, fleetAPIKey, "", nil)
	require.Equal(t, http.StatusOK, req.code, "%s", req.body)
	hash := req.field(t, "args_hash").(string)
	shown := func(res result) {
		t.Helper()
		require.Contains(t, res.stderr, "airlock: approval "+approval+" of chain "+first+": tool notify (HIGH risk)\n")
		require.Contains(t, res.stderr, "  arguments: {\"id\":\"cli-1\"}\n")
		require.Contains(t, res.stderr, "  sha256:    "+hash+"\n")
	}
	for _, tc := range []struct{ stdin, want string }{{"", "no answer on standard input"}, {"n\n", "not confirmed"}, {"yes please\n", "not confirmed"}} {
		res = cliIn(tc.stdin, "approve", approval)
		require.Equal(t, 2, res.code, res.stderr)
		shown(res)
		require.Contains(t, res.stderr, "approve? [y/N] ")
		require.Contains(t, res.stderr, tc.want)
	}
	// Bound to another args hash: refused, nothing decided.
	other := strings.Repeat("ab", 32)
	res = cli("approve", approval, "--args-hash", other)
	require.Equal(t, 2, res.code, res.stderr)
	shown(res)
	require.Contains(t, res.stderr, "the call's arguments do not have sha256 "+other+" (those shown above have "+hash+"); nothing was decided")
	res = cli("approve", approval, "--args-hash", hash, "--yes")
	require.Equal(t, 2, res.code, res.stderr)
	require.Equal(t, 0, f.count("cli-1"))
	require.Equal(t, "parked", c.chain(first)["status"], "nothing was decided")

	res = cliIn("y\n", "approve", approval)
	require.Equal(t, 0, res.code, res.stderr)
	shown(res)
	require.Contains(t, res.stdout, `"status": "ok"`)
	require.Contains(t, res.stdout, `"value": "cli-1"`)
	require.Equal(t, 1, f.count("cli-1"))
	require.Equal(t, "ok", c.chain(first)["status"], "the serve process reads the outcome from the bucket")
	res = cli("approve", approval, "--yes")
	require.NotEqual(t, 0, res.code, "a decided chain does not resume twice")
	require.Equal(t, 1, f.count("cli-1"))

	// Two processes decide and resume the same chain at once: the call
	// runs once.
	raced, raceApproval := park("cli-race")
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func() { defer wg.Done(); codes[i] = cli("approve", raceApproval, "--yes").code }()
	}
	wg.Wait()
	require.Contains(t, codes, 0, "one of them resumed it")
	require.Equal(t, "ok", c.until(raced, "ok", "error")["status"])
	require.Equal(t, 1, f.count("cli-race"))

	// deny, bound to the args hash the HTTP API shows; a bidirectional
	// override in the arguments is shown escaped.
	third, denied := park(`cli-\u202e3`)
	req = c.do("GET", "/v1/approvals/"+denied, fleetAPIKey, "", nil)
	require.Equal(t, http.StatusOK, req.code, "%s", req.body)
	res = cli("deny", denied, "--args-hash", req.field(t, "args_hash").(string))
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, `  arguments: {"id":"cli-\u202e3"}`+"\n")
	require.NotContains(t, res.stderr, "\u202e")
	require.Contains(t, res.stderr, "deny on the arguments with sha256 "+req.field(t, "args_hash").(string))
	require.Contains(t, res.stderr, "is denied")
	require.NotEqual(t, "parked", c.chain(third)["status"])
	require.Equal(t, 0, f.count("cli-\u202e3"))

	second, _ := park("cli-2")
	res = cli("cancel", second)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, `"status": "cancelled"`)
	require.Equal(t, "cancelled", c.chain(second)["status"])
	require.Equal(t, 0, f.count("cli-2"))

	res = cli("show", "ch_nosuchchain")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "no such chain")
	res = airlock(t, "", nil, "chains", "list")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "fleet.key")
}
