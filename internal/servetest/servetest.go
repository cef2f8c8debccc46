// Package servetest starts real `airlock serve` processes for the tests of
// clients that speak the HTTP API (clients/typescript, clients/python): it
// builds ./cmd/airlock once per test binary, writes a configuration with
// API keys for two tenants, starts one process or a fleet sharing one
// bucket on loopback ports, waits until each answers /readyz and stops them
// when the test ends.
//
//	func TestMain(m *testing.M) { os.Exit(servetest.Main(m)) }
//
//	func TestClient(t *testing.T) {
//		s := servetest.Start(t, servetest.Options{Processes: 2, ApprovalMode: "park"})
//		cmd := exec.Command("node", "--test", "dist/test/")
//		cmd.Env = append(os.Environ(), s.Env()...)
//		...
//	}
//
// # Fleets
//
// A fleet (Processes > 1, or ApprovalMode "park", which needs one) shares a
// fresh bucket on the test MinIO when AIRLOCK_S3_ENDPOINT names one
// (scripts/minio.sh run exports it; make test runs every test so), and
// otherwise a shared fs directory with fleet.allow_unlocked_store. Under
// CI=true a fleet without MinIO fails the test instead: CI must exercise
// the real bucket.
//
// # Concurrency
//
// Start may be called from parallel tests; each call starts its own
// processes with their own store. The build happens once, guarded by a
// sync.Once.
//
// # Errors
//
// Every failure (the build, a configuration serve refuses, a process that
// exits or does not become ready within 60 s) fails the test with the
// process's log.
package servetest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// Tenant is one tenant of the served configuration and its API keys, one
// per role (docs/http-api.md, "Roles").
type Tenant struct {
	// Name is the tenant's name.
	Name string
	// All is a key of role all: everything for the tenant.
	All string
	// Submit is a key of role submit: submit and cancel, never decide.
	Submit string
	// Approver is a key of role approver: decide, never submit or cancel.
	Approver string
}

// Acme and Globex are the two tenants every served configuration has.
// Their keys are fixed test values, at least 16 characters as serve requires.
var (
	Acme = Tenant{Name: "acme",
		All: "servetest-acme-all-0123456789", Submit: "servetest-acme-submit-0123456789", Approver: "servetest-acme-approver-0123456789"}
	Globex = Tenant{Name: "globex",
		All: "servetest-globex-all-0123456789", Submit: "servetest-globex-submit-0123456789", Approver: "servetest-globex-approver-0123456789"}
)

// FleetKey is the fleet.key of every fleet Start configures.
const FleetKey = "servetest-fleet-key-0123456789abcdef"

// Options says what to start. The zero value starts one process, approval
// mode queue, the fs store in a fresh directory, no fleet.
type Options struct {
	// Processes is how many `airlock serve` processes to start; 0 means 1.
	// More than one makes a fleet sharing one bucket.
	Processes int
	// ApprovalMode is approval.mode: "" (queue, serve's default), "queue",
	// "park" (needs a fleet: Start configures one even for one process),
	// "allow" or "deny".
	ApprovalMode string
	// Config is extra YAML merged into the generated configuration: its
	// mappings merge key by key, anything else (a list, a scalar) replaces
	// the generated value. Example: "policy: {call_timeout: 5s}".
	Config string
	// Env is extra KEY=VALUE environment for the processes, after the test
	// process's own without its AIRLOCK_* variables.
	Env []string
}

// Process is one running `airlock serve`.
type Process struct {
	// URL is its base URL, http://127.0.0.1:PORT.
	URL string

	cmd  *exec.Cmd
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{} // closed when its stderr is drained
}

// Served is what Start started.
type Served struct {
	// Processes are the processes, in order of start.
	Processes []*Process
	// Config is the YAML configuration every process was started with
	// (it holds the S3 secret key of a MinIO fleet: do not log it).
	Config string
	// S3 is true when the fleet shares a MinIO bucket, false for the fs
	// store.
	S3 bool
}

// URL is the first process's base URL.
func (s *Served) URL() string { return s.Processes[0].URL }

// Env returns the variables that tell a client's test suite where the
// servers are and which keys to use:
//
//	AIRLOCK_TEST_URL           the first process's base URL
//	AIRLOCK_TEST_URLS          every process's base URL, comma-separated
//	AIRLOCK_TEST_APPROVAL_MODE the approval mode (queue, park, …)
//	AIRLOCK_TEST_TENANT        Acme's name; AIRLOCK_TEST_OTHER_TENANT Globex's
//	AIRLOCK_TEST_KEY           Acme's key of role all
//	AIRLOCK_TEST_SUBMIT_KEY    Acme's submit key
//	AIRLOCK_TEST_APPROVER_KEY  Acme's approver key
//	AIRLOCK_TEST_OTHER_KEY     Globex's key of role all
func (s *Served) Env() []string {
	urls := make([]string, len(s.Processes))
	for i, p := range s.Processes {
		urls[i] = p.URL
	}
	return []string{
		"AIRLOCK_TEST_URL=" + s.URL(),
		"AIRLOCK_TEST_URLS=" + strings.Join(urls, ","),
		"AIRLOCK_TEST_APPROVAL_MODE=" + s.mode(),
		"AIRLOCK_TEST_TENANT=" + Acme.Name,
		"AIRLOCK_TEST_OTHER_TENANT=" + Globex.Name,
		"AIRLOCK_TEST_KEY=" + Acme.All,
		"AIRLOCK_TEST_SUBMIT_KEY=" + Acme.Submit,
		"AIRLOCK_TEST_APPROVER_KEY=" + Acme.Approver,
		"AIRLOCK_TEST_OTHER_KEY=" + Globex.All,
	}
}

func (s *Served) mode() string {
	var c struct {
		Approval struct {
			Mode string `yaml:"mode"`
		} `yaml:"approval"`
	}
	_ = yaml.Unmarshal([]byte(s.Config), &c)
	if c.Approval.Mode == "" {
		return "queue"
	}
	return c.Approval.Mode
}

// Logs returns what the process wrote to stderr so far.
func (p *Process) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Kill ends the process with SIGKILL and waits for it.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("servetest: killing %s: %v", p.URL, err)
	}
	<-p.done
	_ = p.cmd.Wait()
}

// Stop sends SIGTERM and waits up to 30 s for the process to exit.
func (p *Process) Stop(t testing.TB) {
	t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		_ = p.cmd.Wait()
	case <-time.After(30 * time.Second):
		p.Kill(t)
		t.Errorf("servetest: %s did not stop within 30s of SIGTERM:\n%s", p.URL, p.Logs())
	}
}

// build is the once-per-binary build of cmd/airlock.
var build struct {
	once   sync.Once
	dir    string // holds the binary and the processes' cache home
	bin    string
	err    error
	output []byte
}

// Main runs the tests of m and then removes the binary Start built. Call
// it from TestMain; without it the binary stays in the temporary
// directory.
func Main(m *testing.M) int {
	code := m.Run()
	if build.dir != "" {
		_ = os.RemoveAll(build.dir)
	}
	return code
}

// binary builds cmd/airlock once and returns its path and the cache home
// the processes share (QuickJS compiled once for all of them).
func binary(t testing.TB) (bin, cacheHome string) {
	t.Helper()
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "airlock-servetest-")
		if build.err != nil {
			return
		}
		build.bin = filepath.Join(build.dir, "airlock")
		cmd := exec.Command("go", "build", "-o", build.bin, "github.com/airlockrt/airlock/cmd/airlock")
		build.output, build.err = cmd.CombinedOutput()
	})
	if build.err != nil {
		t.Fatalf("servetest: building cmd/airlock: %v\n%s", build.err, build.output)
	}
	return build.bin, filepath.Join(build.dir, "cache")
}

// Start starts what o describes and returns once every process answers
// /readyz. The processes are killed when the test ends.
func Start(t testing.TB, o Options) *Served {
	t.Helper()
	bin, cacheHome := binary(t)
	n := o.Processes
	if n <= 0 {
		n = 1
	}
	config, s3, err := configure(t, n, o)
	if err != nil {
		t.Fatalf("servetest: %v", err)
	}
	file := filepath.Join(t.TempDir(), "airlock.yaml")
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatalf("servetest: %v", err)
	}
	s := &Served{Config: config, S3: s3}
	for i := 0; i < n; i++ {
		s.Processes = append(s.Processes, start(t, bin, cacheHome, file, o.Env))
	}
	return s
}

// configure returns the YAML configuration of o for n processes.
func configure(t testing.TB, n int, o Options) (string, bool, error) {
	apiKeys := []any{}
	for _, tn := range []Tenant{Acme, Globex} {
		apiKeys = append(apiKeys,
			map[string]any{"key": tn.All, "tenant": tn.Name, "role": "all"},
			map[string]any{"key": tn.Submit, "tenant": tn.Name, "role": "submit"},
			map[string]any{"key": tn.Approver, "tenant": tn.Name, "role": "approver"})
	}
	c := map[string]any{
		"server": map[string]any{"api_keys": apiKeys, "shutdown_timeout": "10s"},
		"store":  map[string]any{"kind": "fs", "dir": filepath.Join(t.TempDir(), "blobs")},
	}
	if o.ApprovalMode != "" {
		c["approval"] = map[string]any{"mode": o.ApprovalMode}
	}
	s3 := false
	if n > 1 || o.ApprovalMode == "park" {
		c["fleet"] = map[string]any{"key": FleetKey, "lease": "2s"}
		if endpoint := os.Getenv("AIRLOCK_S3_ENDPOINT"); endpoint != "" {
			var b [4]byte
			_, _ = rand.Read(b[:])
			tls, _ := strconv.ParseBool(os.Getenv("AIRLOCK_S3_USE_TLS"))
			c["store"] = map[string]any{"kind": "s3", "s3": map[string]any{
				"endpoint":   endpoint,
				"bucket":     "airlock-servetest-" + hex.EncodeToString(b[:]),
				"access_key": os.Getenv("AIRLOCK_S3_ACCESS_KEY"),
				"secret_key": os.Getenv("AIRLOCK_S3_SECRET_KEY"),
				"use_tls":    tls,
			}}
			s3 = true
		} else if os.Getenv("CI") == "true" {
			return "", false, fmt.Errorf("CI=true but AIRLOCK_S3_ENDPOINT is unset: a fleet's tests run on MinIO in CI (scripts/minio.sh run -- go test ...)")
		} else {
			c["fleet"].(map[string]any)["allow_unlocked_store"] = true
		}
	}
	if o.Config != "" {
		var extra map[string]any
		if err := yaml.Unmarshal([]byte(o.Config), &extra); err != nil {
			return "", false, fmt.Errorf("Options.Config is not a YAML mapping: %w", err)
		}
		merge(c, extra)
	}
	out, err := yaml.Marshal(c)
	if err != nil {
		return "", false, fmt.Errorf("encoding the configuration: %w", err)
	}
	return string(out), s3, nil
}

// merge merges src into dst: mappings key by key, anything else replaced.
func merge(dst, src map[string]any) {
	for k, v := range src {
		sm, sok := v.(map[string]any)
		dm, dok := dst[k].(map[string]any)
		if sok && dok {
			merge(dm, sm)
			continue
		}
		dst[k] = v
	}
}

var listening = regexp.MustCompile(`msg=listening addr=(\S+)`)

// start starts one process on a free loopback port and waits until it
// answers /readyz.
func start(t testing.TB, bin, cacheHome, config string, extraEnv []string) *Process {
	t.Helper()
	p := &Process{done: make(chan struct{})}
	p.cmd = exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--config", config)
	p.cmd.Env = environ(cacheHome, extraEnv)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatalf("servetest: %v", err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("servetest: starting airlock serve: %v", err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.done
			_ = p.cmd.Wait()
		}
	})
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	deadline := time.Now().Add(60 * time.Second)
	select {
	case a := <-addr:
		p.URL = "http://" + a
	case <-p.done:
		_ = p.cmd.Wait()
		t.Fatalf("servetest: airlock serve exited before listening:\n%s", p.Logs())
	case <-time.After(time.Until(deadline)):
		t.Fatalf("servetest: airlock serve did not listen within 60s:\n%s", p.Logs())
	}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("servetest: %s/readyz did not answer 200 within 60s (last: %v):\n%s", p.URL, err, p.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// environ is this process's environment without AIRLOCK_* (they would
// configure serve behind the file's back), HOME and XDG_CACHE_HOME set to
// the shared cache home, plus extra.
func environ(cacheHome string, extra []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AIRLOCK_") || strings.HasPrefix(kv, "XDG_CACHE_HOME=") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		out = append(out, kv)
	}
	return append(append(out, "XDG_CACHE_HOME="+cacheHome, "HOME="+cacheHome), extra...)
}
