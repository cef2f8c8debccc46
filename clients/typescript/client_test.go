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

// build compiles src and test with tsc, once per test binary, and returns
// the output directory (its test/ holds the compiled tests).
func build(t *testing.T, bin string) string {
	t.Helper()
	compiled.once.Do(func() {
		compiled.dir, compiled.err = os.MkdirTemp("", "airlock-ts-client-")
		if compiled.err == nil {
			compiled.out, compiled.err = run(t, 5*time.Minute, nil, filepath.Join(bin, "tsc"), "-p", ".", "--outDir", compiled.dir)
		}
	})
	require.NoError(t, compiled.err, "tsc:\n%s", compiled.out)
	return compiled.dir
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
	out := nodeTest(t, node, nil, 13, filepath.Join(dist, "test", "client.test.js"))
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
			tsconfig := `{"extends": "` + filepath.Join(mustAbs(t, "."), "tsconfig.json") + `", "compilerOptions": {"rootDir": ".", "noEmit": true, "typeRoots": ["` + mustAbs(t, "node_modules/@types") + `"]}, "include": ["src/**/*.ts"]}`
			require.NoError(t, os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(tsconfig), 0o600))
			out, err = run(t, 2*time.Minute, nil, filepath.Join(bin, "tsc"), "-p", dir)
			require.Error(t, err, "tsc accepted the client against a spec where %s:\n%s", c.name, out)
			require.Contains(t, out, "error TS")
			require.Contains(t, out, c.wantErr)
		})
	}
	// The control: the unchanged spec compiles the same way.
	dir := t.TempDir()
	copyTree(t, "src", filepath.Join(dir, "src"))
	tsconfig := `{"extends": "` + filepath.Join(mustAbs(t, "."), "tsconfig.json") + `", "compilerOptions": {"rootDir": ".", "noEmit": true, "typeRoots": ["` + mustAbs(t, "node_modules/@types") + `"]}, "include": ["src/**/*.ts"]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(tsconfig), 0o600))
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
