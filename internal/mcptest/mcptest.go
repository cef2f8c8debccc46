// Package mcptest finds and starts the MCP programs the tests talk to,
// installed by scripts/mcp-deps.sh (make test runs it): the reference
// server @modelcontextprotocol/server-everything and the inspector
// (@modelcontextprotocol/inspector, whose --cli mode is an MCP client).
// Without them a test skips, except under CI=true where it fails.
package mcptest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Dir is where scripts/mcp-deps.sh installs the packages.
func Dir() string {
	if d := os.Getenv("AIRLOCK_NPM_DIR"); d != "" {
		return d
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "airlock", "npm")
}

func need(t testing.TB, path, what string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed at %s; scripts/mcp-deps.sh installs it (make test runs it)", what, path)
		}
		t.Skipf("%s is not installed (run scripts/mcp-deps.sh)", what)
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required under CI=true")
		}
		t.Skip("node is not installed")
	}
	return path
}

// Everything returns the path of server-everything's entry script
// (`node PATH` serves MCP on stdio).
func Everything(t testing.TB) string {
	return need(t, filepath.Join(Dir(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "@modelcontextprotocol/server-everything")
}

// Inspector returns the path of the inspector's entry script (its bin
// `inspector`); `node PATH --cli ARGS...` runs it as a command-line MCP
// client, from any working directory.
func Inspector(t testing.TB) string {
	return need(t, filepath.Join(Dir(), "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"), "@modelcontextprotocol/inspector")
}

// Localhost returns scripts/localhost.cjs, which makes a node server listen
// on 127.0.0.1 only.
func Localhost() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "localhost.cjs")
}

// Server is a running streamable-HTTP server-everything.
type Server struct {
	URL string // its MCP endpoint, http://127.0.0.1:PORT/mcp
	cmd *exec.Cmd
	// Exited is closed when the process ended.
	Exited chan struct{}
}

// StartHTTP starts server-everything over streamable HTTP on a free port
// of 127.0.0.1 and waits until it listens. The test's cleanup stops it.
func StartHTTP(t testing.TB) *Server {
	t.Helper()
	return StartHTTPOn(t, FreePort(t))
}

// FreePort returns a port of 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}

// StartHTTPOn is StartHTTP on a port of the test's choosing, so that a
// test can start the server again on the same port.
func StartHTTPOn(t testing.TB, port int) *Server {
	t.Helper()
	entry := Everything(t)
	cmd := exec.Command("node", "-r", Localhost(), entry, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), cmd: cmd, Exited: make(chan struct{})}
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			if !once && strings.Contains(sc.Text(), "listening on port") {
				once = true
				close(listening)
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(s.Exited) }()
	t.Cleanup(s.Kill)
	select {
	case <-listening:
	case <-s.Exited:
		t.Fatal("server-everything exited before it listened")
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything did not listen within 30s")
	}
	return s
}

// Kill kills the server's process group and waits for it to end.
func (s *Server) Kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.Exited
}
