// Package python_test runs the tests of the Python client (clients/python,
// package airlock_client) from go test: its unit tests against a stub
// server (tests/), and its live tests (livetests/) against real `airlock
// serve` processes that internal/servetest starts: one process in approval
// mode queue, and a fleet of two in park mode; and the examples of
// docs/clients.md's Python section.
//
// python3 comes from scripts/deps.sh (make test runs it). Without it the
// tests skip, except under CI=true where they fail.
package python_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/servetest"
)

func TestMain(m *testing.M) { os.Exit(servetest.Main(m)) }

// python3 returns the interpreter; without one the test fails under
// CI=true (scripts/deps.sh installs it) and skips elsewhere.
func python3(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is not installed; make test installs it (scripts/deps.sh)")
		}
		t.Skip("python3 is not installed")
	}
	return py
}

// unittest runs python3 -B -m unittest ARGS in clients/python and
// returns its output once every test passed; it fails the test otherwise,
// and when fewer than min tests ran.
func unittest(t *testing.T, env []string, min int, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python3(t), append([]string{"-B", "-m", "unittest"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`(?m)^Ran (\d+) tests? in`).FindStringSubmatch(string(out))
	require.NotNil(t, m, "%s", out)
	ran, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	require.GreaterOrEqual(t, ran, min, "%s", out)
	require.Regexp(t, `(?m)^OK$`, string(out))
	require.NotContains(t, string(out), "skipped", "no live or unit test may skip")
	return string(out)
}

// TestUnit runs the unit tests: both clients against a stub server (every
// refusal by its reason code, bad answers, streams, run and wait).
func TestUnit(t *testing.T) {
	out := unittest(t, nil, 90, "discover", "-v", "-s", "tests", "-t", ".")
	for _, name := range []string{"test_every_answer_refusal_keeps_its_reason", "test_bad_answers_are_unexpected_response",
		"test_run_answers_two_calls_at_once", "test_events_reconnect_with_last_event_id"} {
		require.Contains(t, out, name+" (tests.test_client.SyncTest")
		require.Contains(t, out, name+" (tests.test_client.AsyncTest")
	}
}

// TestLive runs the live tests against real servers.
func TestLive(t *testing.T) {
	python3(t)
	t.Run("one process", func(t *testing.T) {
		s := servetest.Start(t, servetest.Options{Config: "server: {max_caller_result_bytes: 8KiB}"})
		out := unittest(t, s.Env(), 20, "-v", "livetests.test_live")
		require.Contains(t, out, "test_every_refused_answer_has_its_reason (livetests.test_live.LiveAsync")
	})
	t.Run("fleet in park mode", func(t *testing.T) {
		s := servetest.Start(t, servetest.Options{Processes: 2, ApprovalMode: "park"})
		out := unittest(t, s.Env(), 8, "-v", "livetests.test_fleet")
		// The chains the tests parked on the first process and answered
		// on the second ended on the second.
		ids := regexp.MustCompile(`(?m)^RESUMED_ON_SECOND (ch_\w+)$`).FindAllStringSubmatch(out, -1)
		require.Len(t, ids, 4, "%s", out) // two tests, each with both clients
		for _, m := range ids {
			finished := regexp.MustCompile(`msg="chain finished" chain=` + m[1] + ` status=ok`)
			require.Regexp(t, finished, s.Processes[1].Logs())
			require.NotRegexp(t, finished, s.Processes[0].Logs())
			require.True(t, strings.Contains(s.Processes[0].Logs(), m[1]), "the first process ran it first")
		}
	})
}

// TestLiveIdentity runs the delegated-identity live tests
// (livetests/test_identity.py) of both clients: against one process, a
// chain acts for its user's token and a running chain whose token expired
// gets a fresh one from on_credential_required and retries; against a
// fleet of two in park mode, a chain whose token expired parks, is handed
// a fresh one by the handler (or through the other process) and ends ok,
// and one without a handler stays parked until cancelled.
func TestLiveIdentity(t *testing.T) {
	python3(t)
	t.Run("one process", func(t *testing.T) {
		_, env := servetest.StartDelegated(t, servetest.Options{})
		out := unittest(t, env, 6, "-v", "livetests.test_identity.Running", "livetests.test_identity.RunningAsync")
		require.Contains(t, out, "test_a_chain_acts_for_its_user (livetests.test_identity.RunningAsync")
	})
	t.Run("fleet in park mode", func(t *testing.T) {
		s, env := servetest.StartDelegated(t, servetest.Options{Processes: 2, ApprovalMode: "park"})
		out := unittest(t, env, 6, "-v", "livetests.test_identity.Parked", "livetests.test_identity.ParkedAsync")
		require.Contains(t, out, "test_a_parked_chain_resumes_with_a_fresh_identity (livetests.test_identity.ParkedAsync")
		for _, p := range s.Processes {
			require.NotContains(t, p.Logs(), "subj~", "no subject token in a server's log")
		}
	})
}

// example is a Python example of docs/clients.md: how it is checked (run:
// against one process; run fleet: against a fleet of two in park mode; run
// identity: with delegated identities on; parse: only parsed), its code
// and the output it shows.
type example struct {
	mode, code, output string
}

var exampleBlock = regexp.MustCompile("(?s)<!-- example: ([a-z ]+) -->\n```python\n(.*?)```(?:\n\n```text\n(.*?)```)?")

// docExamples returns the examples of the Python section of
// docs/clients.md; every python block there must be marked as one.
func docExamples(t *testing.T) []example {
	t.Helper()
	b, err := os.ReadFile("../../docs/clients.md")
	require.NoError(t, err)
	doc := string(b)
	start := strings.Index(doc, "\n## Python\n")
	require.GreaterOrEqual(t, start, 0, "docs/clients.md has no ## Python section")
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var out []example
	for _, m := range exampleBlock.FindAllStringSubmatch(section, -1) {
		require.Contains(t, []string{"run", "run fleet", "run identity", "parse"}, m[1], "unknown example mode")
		out = append(out, example{mode: m[1], code: m[2], output: m[3]})
	}
	require.Equal(t, strings.Count(section, "```python\n"), len(out),
		"every python block of docs/clients.md's Python section needs an <!-- example: run|run fleet|run identity|parse --> line before it")
	require.NotEmpty(t, out)
	return out
}

// TestDocExamples runs the Python examples of docs/clients.md against real
// servers (the package on PYTHONPATH, the server's address and keys in
// AIRLOCK_URL, AIRLOCK_URLS, AIRLOCK_API_KEY (role submit) and
// AIRLOCK_APPROVER_KEY) and compares what each prints with the output the
// page shows. Those marked run identity run against a process of a parking
// fleet with delegated identities on (servetest.StartDelegated), with USER_TOKEN an
// expired token of alice and FRESH_USER_TOKEN a valid one.
func TestDocExamples(t *testing.T) {
	py := python3(t)
	examples := docExamples(t)
	pkg, err := filepath.Abs(".")
	require.NoError(t, err)
	servers := map[string]*servetest.Served{}
	var userTokens []string // the environment of the run identity examples
	for _, ex := range examples {
		if servers[ex.mode] != nil || ex.mode == "parse" {
			continue
		}
		switch ex.mode {
		case "run fleet":
			servers[ex.mode] = servetest.Start(t, servetest.Options{Processes: 2, ApprovalMode: "park"})
		case "run identity":
			// One process of a parking fleet with delegated identities: the
			// user's token (USER_TOKEN) has expired, FRESH_USER_TOKEN is
			// the one the application would get by refreshing it.
			s, env := servetest.StartDelegated(t, servetest.Options{ApprovalMode: "park"})
			servers[ex.mode] = s
			userTokens = []string{"USER_TOKEN=" + lookupEnv(env, "AIRLOCK_TEST_EXPIRED_TOKEN"),
				"FRESH_USER_TOKEN=" + lookupEnv(env, "AIRLOCK_TEST_FRESH_TOKEN")}
		default:
			servers[ex.mode] = servetest.Start(t, servetest.Options{})
		}
	}
	for i, ex := range examples {
		t.Run(fmt.Sprintf("ex%d", i), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), fmt.Sprintf("ex%d.py", i))
			require.NoError(t, os.WriteFile(file, []byte(ex.code), 0o600))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if ex.mode == "parse" {
				out, err := exec.CommandContext(ctx, py, "-B", "-m", "py_compile", file).CombinedOutput()
				require.NoError(t, err, "example %d:\n%s\n%s", i, ex.code, out)
				return
			}
			var urls []string
			for _, p := range servers[ex.mode].Processes {
				urls = append(urls, p.URL)
			}
			cmd := exec.CommandContext(ctx, py, "-B", file)
			cmd.Env = append(os.Environ(), "PYTHONPATH="+pkg, "AIRLOCK_URL="+urls[0], "AIRLOCK_URLS="+strings.Join(urls, ","),
				"AIRLOCK_API_KEY="+servetest.Acme.Submit, "AIRLOCK_APPROVER_KEY="+servetest.Acme.Approver)
			if ex.mode == "run identity" {
				cmd.Env = append(cmd.Env, userTokens...)
			}
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "example %d:\n%s\n%s", i, ex.code, out)
			require.Equal(t, strings.TrimSpace(ex.output), strings.TrimSpace(string(out)),
				"example %d prints other than docs/clients.md shows:\n%s", i, ex.code)
		})
	}
}

// TestPackage builds the client's source distribution from pyproject.toml
// (setuptools, offline, in a copy of the directory) and imports the
// package from it: the name, the version (the client's own VERSION), the
// modules and no test code are what pip would install.
func TestPackage(t *testing.T) {
	py := python3(t)
	src := t.TempDir()
	require.NoError(t, os.CopyFS(src, os.DirFS(".")))
	require.NoError(t, os.RemoveAll(filepath.Join(src, "tests")))
	require.NoError(t, os.RemoveAll(filepath.Join(src, "livetests")))
	out := t.TempDir()
	build := exec.Command(py, "-B", "-c", "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))", out)
	build.Dir = src
	b, err := build.CombinedOutput()
	require.NoError(t, err, "%s", b)
	version := regexp.MustCompile(`(?m)^VERSION = "([^"]+)"$`).FindStringSubmatch(string(must(os.ReadFile("airlock_client/_core.py"))))
	require.NotNil(t, version)
	sdist := filepath.Join(out, "airlock-client-"+version[1]+".tar.gz")
	require.FileExists(t, sdist)
	unpacked := t.TempDir()
	untar := exec.Command("tar", "xzf", sdist, "-C", unpacked)
	b, err = untar.CombinedOutput()
	require.NoError(t, err, "%s", b)
	root := filepath.Join(unpacked, "airlock-client-"+version[1])
	info := string(must(os.ReadFile(filepath.Join(root, "PKG-INFO"))))
	require.Contains(t, info, "Name: airlock-client\n")
	require.Contains(t, info, "Version: "+version[1]+"\n")
	require.Contains(t, info, "Requires-Python: >=3.9\n")
	require.NotContains(t, info, "Requires-Dist", "no runtime dependencies")
	_, err = os.Stat(filepath.Join(root, "tests"))
	require.True(t, os.IsNotExist(err), "no test code in the package")
	imp := exec.Command(py, "-B", "-c", "import airlock_client as a; print(a.__version__, a.Airlock.__name__, a.AsyncAirlock.__name__)")
	imp.Dir = t.TempDir()
	imp.Env = append(os.Environ(), "PYTHONPATH="+root)
	b, err = imp.CombinedOutput()
	require.NoError(t, err, "%s", b)
	require.Equal(t, version[1]+" Airlock AsyncAirlock\n", string(b))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// lookupEnv returns the value of key in env (KEY=VALUE entries), or "".
func lookupEnv(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}
