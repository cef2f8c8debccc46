// Package typescript_test builds the TypeScript client (clients/typescript)
// with its pinned tsc and runs its node tests from go test: the unit tests
// against a stub, and the live tests against real `airlock serve`
// processes started with internal/servetest (one process; a fleet of two
// in park mode). It also checks that src/openapi.ts is what
// openapi-typescript generates from docs/openapi.yaml, that the client
// stops compiling when the specification changes under it, and that the
// examples of docs/clients.md compile and run.
//
// Node and npm come from scripts/deps.sh, the tools of package-lock.json
// from scripts/ts-client-deps.sh (make test runs both). Without them the
// tests skip, except under CI=true where they fail.
package typescript_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/airlockrt/airlock/internal/servetest"
)

func TestMain(m *testing.M) {
	code := servetest.Main(m)
	if compiled.dir != "" {
		_ = os.RemoveAll(compiled.dir)
	}
	os.Exit(code)
}

// tools returns node and the directory of the pinned npm binaries, or
// skips (fails under CI=true) without them.
func tools(t *testing.T) (node, bin string) {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI must have it (scripts/deps.sh installs node and npm, scripts/ts-client-deps.sh the client's tools)", what)
		}
		t.Skipf("%s: run scripts/ts-client-deps.sh", what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		missing("npm is not installed")
	}
	abs, err := filepath.Abs("node_modules/.bin")
	require.NoError(t, err)
	for _, b := range []string{"tsc", "openapi-typescript"} {
		if _, err := os.Stat(filepath.Join(abs, b)); err != nil {
			missing(b + " is not installed in clients/typescript/node_modules")
		}
	}
	return node, abs
}

func run(t *testing.T, timeout time.Duration, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// compiled is the output of the one tsc run the tests share.
var compiled struct {
	once sync.Once
	dir  string
	out  string
	err  error
}

// build compiles src, test and the TypeScript examples of docs/clients.md
// (as examples/exN.ts, importing the client by a relative path) with tsc,
// once per test binary, and returns the output directory: its dist/test
// holds the compiled tests, dist/examples the examples.
func build(t *testing.T, bin string) string {
	t.Helper()
	compiled.once.Do(func() {
		compiled.dir, compiled.err = os.MkdirTemp("", "airlock-ts-client-")
		if compiled.err != nil {
			return
		}
		d := compiled.dir
		copyTree(t, "src", filepath.Join(d, "src"))
		copyTree(t, "test", filepath.Join(d, "test"))
		pkg, err := os.ReadFile("package.json") // "type": "module"
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(d, "package.json"), pkg, 0o600))
		require.NoError(t, os.MkdirAll(filepath.Join(d, "examples"), 0o755))
		for i, ex := range docExamples(t) {
			src := strings.ReplaceAll(ex.code, `from "@airlockrt/client"`, `from "../src/index.js"`)
			require.NoError(t, os.WriteFile(filepath.Join(d, "examples", fmt.Sprintf("ex%d.ts", i)), []byte(src), 0o600))
		}
		writeTSConfig(t, d, `"outDir": "dist"`, `"src/**/*.ts", "test/**/*.ts", "examples/*.ts"`)
		compiled.out, compiled.err = run(t, 5*time.Minute, nil, filepath.Join(bin, "tsc"), "-p", d)
	})
	require.NoError(t, compiled.err, "tsc:\n%s", compiled.out)
	return filepath.Join(compiled.dir, "dist")
}

// writeTSConfig writes dir/tsconfig.json: the package's, with these
// compiler options and inputs, its types found in the package's
// node_modules.
func writeTSConfig(t *testing.T, dir, options, include string) {
	t.Helper()
	c := fmt.Sprintf(`{"extends": %q, "compilerOptions": {"rootDir": ".", "typeRoots": [%q], %s}, "include": [%s]}`,
		filepath.Join(mustAbs(t, "."), "tsconfig.json"), mustAbs(t, "node_modules/@types"), options, include)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(c), 0o600))
}

// example is a TypeScript example of docs/clients.md: its code, how it is
// checked (run, run fleet, run identity, compile) and the output it shows.
type example struct {
	mode, code, output string
}

var exampleBlock = regexp.MustCompile("(?s)<!-- example: ([a-z ]+) -->\n```ts\n(.*?)```(?:\n\n```text\n(.*?)```)?")

// docExamples returns the examples of the TypeScript section of
// docs/clients.md; every ts block there must be marked as one.
func docExamples(t *testing.T) []example {
	t.Helper()
	b, err := os.ReadFile("../../docs/clients.md")
	require.NoError(t, err)
	doc := string(b)
	start := strings.Index(doc, "\n## TypeScript\n")
	require.GreaterOrEqual(t, start, 0, "docs/clients.md has no ## TypeScript section")
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var out []example
	for _, m := range exampleBlock.FindAllStringSubmatch(section, -1) {
		require.Contains(t, []string{"run", "run fleet", "run identity", "compile"}, m[1], "unknown example mode")
		out = append(out, example{mode: m[1], code: m[2], output: m[3]})
	}
	require.Equal(t, strings.Count(section, "```ts\n"), len(out), "every ts block of docs/clients.md's TypeScript section needs an <!-- example: run|run fleet|run identity|compile --> line before it")
	require.NotEmpty(t, out)
	return out
}

var counts = regexp.MustCompile(`(?m)^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$`)

// nodeTest runs node --test on the compiled test files and requires them
// all to pass, at least min tests, none skipped.
func nodeTest(t *testing.T, node string, env []string, min int, files ...string) string {
	t.Helper()
	args := append([]string{"--test", "--test-reporter=tap", "--test-timeout=120000"}, files...)
	out, err := run(t, 10*time.Minute, env, node, args...)
	require.NoError(t, err, "node --test:\n%s", out)
	got := map[string]int{}
	for _, m := range counts.FindAllStringSubmatch(out, -1) {
		got[m[1]], _ = strconv.Atoi(m[2])
	}
	require.GreaterOrEqual(t, got["tests"], min, "too few tests ran:\n%s", out)
	require.Equal(t, got["tests"], got["pass"], "not every test passed:\n%s", out)
	require.Zero(t, got["skipped"]+got["todo"]+got["cancelled"]+got["fail"], "%s", out)
	return out
}

// TestUnit runs the unit tests (the SSE parser, the client against a stub).
func TestUnit(t *testing.T) {
	node, bin := tools(t)
	dist := build(t, bin)
	out := nodeTest(t, node, nil, 14, filepath.Join(dist, "test", "client.test.js"))
	require.Contains(t, out, "refuses every bad answer with its reason code")
}

// TestLive runs the live tests against one `airlock serve`.
func TestLive(t *testing.T) {
	node, bin := tools(t)
	dist := build(t, bin)
	s := servetest.Start(t, servetest.Options{})
	out := nodeTest(t, node, s.Env(), 9, filepath.Join(dist, "test", "live.test.js"))
	require.Contains(t, out, "a denied call throws a ToolError with reason approval_denied in the script")
}

// TestLiveCallerTools runs the caller-tool tests against one `airlock
// serve` whose caller tools take results of at most 1 KiB.
func TestLiveCallerTools(t *testing.T) {
	node, bin := tools(t)
	dist := build(t, bin)
	s := servetest.Start(t, servetest.Options{Config: "server: {max_caller_result_bytes: 1KiB}"})
	out := nodeTest(t, node, s.Env(), 8, filepath.Join(dist, "test", "callers.test.js"))
	require.Contains(t, out, "refuses every bad answer by its reason code")
}

// TestLiveIdentity runs the delegated-identity live tests
// (test/identity.test.ts): against one process, a chain acts for its
// user's token and a running chain whose token expired gets a fresh one
// from onCredentialRequired and retries; against a fleet of two in park
// mode, a chain whose token expired parks, is handed a fresh one by the
// handler (or through the other process) and ends ok, and one without a
// handler stays parked until cancelled.
func TestLiveIdentity(t *testing.T) {
	node, bin := tools(t)
	dist := build(t, bin)
	t.Run("one process", func(t *testing.T) {
		_, env := servetest.StartDelegated(t, servetest.Options{})
		out := nodeTest(t, node, env, 3, filepath.Join(dist, "test", "identity.test.js"))
		require.Contains(t, out, "a running chain whose token expired gets a fresh one from onCredentialRequired")
	})
	t.Run("fleet in park mode", func(t *testing.T) {
		s, env := servetest.StartDelegated(t, servetest.Options{Processes: 2, ApprovalMode: "park"})
		out := nodeTest(t, node, env, 3, filepath.Join(dist, "test", "identity.test.js"))
		require.Contains(t, out, "a chain whose token expired parks, gets a fresh one from onCredentialRequired")
		for _, p := range s.Processes {
			require.NotContains(t, p.Logs(), "subj~", "no subject token in a server's log")
		}
	})
}

// TestEventNames: the client knows every event the specification lists
// in x-sse-events, and every event it knows is there or call_pending.
func TestEventNames(t *testing.T) {
	spec, err := os.ReadFile("../../docs/openapi.yaml")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(spec, &doc))
	var events map[string]any
	node := any(doc)
	for _, k := range []string{"paths", "/v1/chains/{id}/events", "get", "responses", "200", "content", "text/event-stream", "x-sse-events"} {
		m, ok := node.(map[string]any)
		require.True(t, ok, "openapi.yaml has no %s where the events are expected", k)
		node = m[k]
	}
	events, _ = node.(map[string]any)
	require.NotEmpty(t, events)
	src, err := os.ReadFile("src/client.ts")
	require.NoError(t, err)
	block := regexp.MustCompile(`(?s)export interface EventMap \{(.*?)\n\}`).FindSubmatch(src)
	require.NotNil(t, block)
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+"?([a-z_.]+)"?: `).FindAllSubmatch(block[1], -1) {
		known[string(m[1])] = true
	}
	for name := range events {
		require.True(t, known[name], "the client's EventMap lacks the event %s of openapi.yaml", name)
		require.Contains(t, string(src), `"`+name+`"`, "knownEvents lacks %s", name)
	}
	for name := range known {
		if name != "call_pending" {
			require.Contains(t, events, name, "the client knows an event %s that openapi.yaml does not list", name)
		}
	}
}

// TestLiveFleet runs the fleet tests against two processes sharing one
// bucket in approval mode park.
func TestLiveFleet(t *testing.T) {
	node, bin := tools(t)
	dist := build(t, bin)
	s := servetest.Start(t, servetest.Options{Processes: 2, ApprovalMode: "park"})
	out := nodeTest(t, node, s.Env(), 5, filepath.Join(dist, "test", "fleet.test.js"))
	require.Contains(t, out, "a chain parked on one process is resumed through the other")
}

// TestDocExamples runs the TypeScript examples of docs/clients.md marked
// run against one process (those marked run fleet against a fleet of two
// in park mode, those marked run identity against a process of a parking
// fleet with delegated identities on (servetest.StartDelegated), with USER_TOKEN an
// expired token of alice and FRESH_USER_TOKEN a valid one) and compares
// what each prints with the output the page shows; tsc has compiled every
// one of them (build).
func TestDocExamples(t *testing.T) {
	node, bin := tools(t)
	dist := build(t, bin)
	examples := docExamples(t)
	servers := map[string]*servetest.Served{}
	var userTokens []string // the environment of the run identity examples
	for _, ex := range examples {
		if servers[ex.mode] != nil || ex.mode == "compile" {
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
			if ex.mode == "compile" {
				return // compiled by build
			}
			var urls []string
			for _, p := range servers[ex.mode].Processes {
				urls = append(urls, p.URL)
			}
			env := []string{"AIRLOCK_URL=" + urls[0], "AIRLOCK_URLS=" + strings.Join(urls, ","),
				"AIRLOCK_API_KEY=" + servetest.Acme.Submit, "AIRLOCK_APPROVER_KEY=" + servetest.Acme.Approver}
			if ex.mode == "run identity" {
				env = append(env, userTokens...)
			}
			out, err := run(t, 2*time.Minute, env, node, filepath.Join(dist, "examples", fmt.Sprintf("ex%d.js", i)))
			require.NoError(t, err, "example %d:\n%s\n%s", i, ex.code, out)
			require.Equal(t, strings.TrimSpace(ex.output), strings.TrimSpace(out), "example %d prints other than docs/clients.md shows:\n%s", i, ex.code)
		})
	}
}

// TestGenerated: src/openapi.ts is exactly what the pinned
// openapi-typescript makes of docs/openapi.yaml (regenerate with
// `npm run generate` in clients/typescript).
func TestGenerated(t *testing.T) {
	_, bin := tools(t)
	fresh := filepath.Join(t.TempDir(), "openapi.ts")
	out, err := run(t, 2*time.Minute, nil, filepath.Join(bin, "openapi-typescript"), generateArgs(t, "../../docs/openapi.yaml", fresh)...)
	require.NoError(t, err, "%s", out)
	want, err := os.ReadFile(fresh)
	require.NoError(t, err)
	have, err := os.ReadFile("src/openapi.ts")
	require.NoError(t, err)
	require.Equal(t, string(want), string(have), "src/openapi.ts is stale: run `npm run generate` in clients/typescript")
}

// generateArgs returns the arguments of package.json's generate script
// with the input and output replaced.
func generateArgs(t *testing.T, in, out string) []string {
	t.Helper()
	pkg, err := os.ReadFile("package.json")
	require.NoError(t, err)
	m := regexp.MustCompile(`"generate": "openapi-typescript ([^"]*)"`).FindSubmatch(pkg)
	require.NotNil(t, m, "package.json has no generate script")
	args := strings.Fields(string(m[1]))
	require.Equal(t, "../../docs/openapi.yaml", args[0])
	require.Equal(t, "-o", args[len(args)-2])
	return append(append([]string{in}, args[1:len(args)-1]...), out)
}

// TestClientFollowsSpec: the client's requests are typed by the generated
// types, so a specification that changes a path, a body or an answer the
// client uses makes tsc --noEmit fail.
func TestClientFollowsSpec(t *testing.T) {
	_, bin := tools(t)
	spec, err := os.ReadFile("../../docs/openapi.yaml")
	require.NoError(t, err)
	cases := []struct{ name, from, to, wantErr string }{
		{"a decision's field renamed",
			"        args_hash: {type: string, description: The args_hash of the request as shown.}",
			"        argsHash: {type: string, description: The args_hash of the request as shown.}", "args_hash"},
		{"a route removed", "  /v1/approvals/{id}/context:", "  /v1/approvals/{id}/ctx:", "/v1/approvals/{id}/context"},
		{"a list's field renamed", "                required: [approvals]\n                properties:\n                  approvals:", "                required: [requests]\n                properties:\n                  requests:", "approvals"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Contains(t, string(spec), c.from)
			dir := t.TempDir()
			mutated := filepath.Join(dir, "openapi.yaml")
			require.NoError(t, os.WriteFile(mutated, []byte(strings.Replace(string(spec), c.from, c.to, 1)), 0o600))
			copyTree(t, "src", filepath.Join(dir, "src"))
			out, err := run(t, 2*time.Minute, nil, filepath.Join(bin, "openapi-typescript"), generateArgs(t, mutated, filepath.Join(dir, "src", "openapi.ts"))...)
			require.NoError(t, err, "%s", out)
			writeTSConfig(t, dir, `"noEmit": true`, `"src/**/*.ts"`)
			out, err = run(t, 2*time.Minute, nil, filepath.Join(bin, "tsc"), "-p", dir)
			require.Error(t, err, "tsc accepted the client against a spec where %s:\n%s", c.name, out)
			require.Contains(t, out, "error TS")
			require.Contains(t, out, c.wantErr)
		})
	}
	// The control: the unchanged spec compiles the same way.
	dir := t.TempDir()
	copyTree(t, "src", filepath.Join(dir, "src"))
	writeTSConfig(t, dir, `"noEmit": true`, `"src/**/*.ts"`)
	out, err := run(t, 2*time.Minute, nil, filepath.Join(bin, "tsc"), "-p", dir)
	require.NoError(t, err, "%s", out)
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	require.NoError(t, err)
	return a
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("copying %s: %w", p, err)
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	}))
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
