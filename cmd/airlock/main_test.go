package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/airlockrt/airlock/sandbox"
)

// bin is the airlock binary the tests run; cacheHome is the user cache
// directory every run shares (compiled QuickJS, the fs blob store, media
// files), so only the first process compiles the engine.
var bin, cacheHome string

func TestMain(m *testing.M) {
	if os.Getenv(hostileMCPEnv) == "1" {
		hostileMCPServer() // exits
	}
	sandbox.RunParseWorker() // the tests run the built binary, whose main is a worker too; this keeps the test binary one
	dir, err := os.MkdirTemp("", "airlock-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "airlock")
	cacheHome = filepath.Join(dir, "cache")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building airlock: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// env is the environment of every airlock process: this one's, without
// AIRLOCK_* variables, with the shared cache directory, plus extra.
func env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AIRLOCK_") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			out = append(out, kv)
		}
	}
	return append(append(out, "XDG_CACHE_HOME="+cacheHome, "HOME="+cacheHome), extra...)
}

type result struct {
	stdout, stderr string
	code           int
}

// airlock runs the binary with args and waits (at most a minute).
func airlock(t *testing.T, stdin string, extraEnv []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env(extraEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		xe, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running airlock %v: %v", args, err)
		}
		code = xe.ExitCode()
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// served is a running `airlock serve`.
type served struct {
	url string
	cmd *exec.Cmd
	mu  sync.Mutex
	log bytes.Buffer
	end chan struct{}
}

var listening = regexp.MustCompile(`msg=listening addr=(\S+)`)

// serve starts `airlock serve` on a free loopback port with the config
// file text (if any) and waits until it listens. The process is stopped
// at the end of the test if the test did not stop it.
func serve(t *testing.T, config string, extraEnv ...string) *served {
	t.Helper()
	args := []string{"serve", "--addr", "127.0.0.1:0"}
	if config != "" {
		file := filepath.Join(t.TempDir(), "airlock.yaml")
		if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", file)
	}
	s := &served{cmd: exec.Command(bin, args...), end: make(chan struct{})}
	s.cmd.Env = env(extraEnv...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		defer close(s.end)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
		}
	})
	select {
	case a := <-addr:
		s.url = "http://" + a
	case <-s.end:
		_ = s.cmd.Wait()
		t.Fatalf("airlock serve exited before listening:\n%s", s.logs())
	case <-time.After(30 * time.Second):
		t.Fatalf("airlock serve did not listen within 30s:\n%s", s.logs())
	}
	return s
}

func (s *served) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// stop sends SIGTERM and waits for the process, returning its exit code.
func (s *served) stop(t *testing.T, within time.Duration) int {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { <-s.end; done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if xe, ok := err.(*exec.ExitError); ok {
			return xe.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		t.Fatalf("airlock serve did not stop within %s:\n%s", within, s.logs())
	}
	return -1
}
