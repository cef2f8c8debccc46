package jsprelude_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/sandbox"
)

// The compatibility corpus: every script in testdata/corpus runs under
// airlock and under Node 20 (testdata/node-run.mjs, TZ=UTC), with the
// fixture tools of compat_tools_test.go, and the two must agree on the
// result, the logs (level and text) and the error (message, line, column),
// except for the scripts listed in README.md's "Differences from Node",
// which must still differ.
const (
	corpusDir = "testdata/corpus"
	nodeRun   = "testdata/node-run.mjs"
	readme    = "README.md"
	// minCorpus and minCorpusTS are the least the corpus may hold (issue 10).
	minCorpus   = 100
	minCorpusTS = 25
	// corpusTimeout bounds one script's run on either side; every script
	// finishes in well under a second under Node. Under the race detector
	// (raceSlowdown) the host's share of a run (Intl formats, tool calls)
	// is several times slower, and a loaded CI machine runs the corpus
	// beside other packages: the bound stops a runaway script, it is not a
	// timing the test asserts.
	corpusTimeout = 5 * time.Second * raceSlowdown
)

// outcome is what a script did, on either side.
type outcome struct {
	Status string    `json:"status"` // "ok" or "error"
	Value  string    `json:"value"`  // the result's JSON text, for "ok"
	Logs   []logLine `json:"logs"`
	Error  *failure  `json:"error"` // for "error"
}

type logLine struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

type failure struct {
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

func TestCompatCorpus(t *testing.T) {
	scripts := corpusScripts(t)
	known := knownDifferences(t)
	for name := range known {
		require.Contains(t, scripts, name, "README.md lists %s under \"Differences from Node\", but there is no such script in %s", name, corpusDir)
	}
	node := nodeBinary(t)

	eng, err := sandbox.NewScriptEngine(context.Background(), sandbox.ScriptOptions{CompilationCacheDir: cacheDir()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, eng.Close(context.Background())) })

	for _, name := range scripts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(filepath.Join(corpusDir, name))
			require.NoError(t, err)
			var al, nd outcome
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); al = runAirlock(t, eng, name, string(src)) }()
			nd = runNode(t, node, name, string(src))
			wg.Wait()
			diff := compare(normalize(al), normalize(nd))
			why, listed := known[name]
			switch {
			case listed && diff == "":
				t.Errorf("%s now matches Node: remove it from the list in README.md (\"Differences from Node\"; it said: %s)", name, why)
			case listed:
				t.Logf("differs as listed (%s):\n%s", why, diff)
			case diff != "":
				t.Errorf("%s differs from Node:\n%s\nFix airlock, or list the script with the reason in README.md (\"Differences from Node\")", name, diff)
			}
		})
	}
}

// corpusScripts lists the corpus and checks its size.
func corpusScripts(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	require.NoError(t, err)
	var names []string
	ts := 0
	valid := regexp.MustCompile(`^\d{3}-[a-z0-9-]+\.(js|ts)$`)
	for _, e := range entries {
		require.Regexp(t, valid, e.Name(), "corpus scripts are named NNN-short-name.js or .ts")
		names = append(names, e.Name())
		if strings.HasSuffix(e.Name(), ".ts") {
			ts++
		}
	}
	require.GreaterOrEqual(t, len(names), minCorpus, "the corpus must hold at least %d scripts", minCorpus)
	require.GreaterOrEqual(t, ts, minCorpusTS, "the corpus must hold at least %d TypeScript scripts", minCorpusTS)
	return names
}

// differenceRow matches a row of the table in README.md's "Differences
// from Node": | `script` | what differs | why |.
var differenceRow = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|(.*)\\|(.*)\\|\\s*$")

// knownDifferences reads the scripts listed in README.md's "Differences
// from Node" table, with their reason.
func knownDifferences(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(readme)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]string{}
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line[3:]) == "Differences from Node"
			found = found || in
			continue
		}
		if !in {
			continue
		}
		m := differenceRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		_, dup := out[m[1]]
		require.False(t, dup, "README.md lists %s twice", m[1])
		why := strings.TrimSpace(m[3])
		require.NotEmpty(t, strings.TrimSpace(m[2]), "README.md: say what differs for %s", m[1])
		require.NotEmpty(t, why, "README.md: give the reason %s differs", m[1])
		out[m[1]] = why
	}
	require.NoError(t, sc.Err())
	require.True(t, found, "README.md has no section \"## Differences from Node\"")
	return out
}

// nodeBinary finds Node 20: missing, the test skips, except under CI=true
// where it fails (scripts/deps.sh installs it).
func nodeBinary(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed (scripts/deps.sh installs it): the compatibility corpus needs Node 20")
		}
		t.Skip("node is not installed: skipping the compatibility corpus (scripts/deps.sh installs it)")
	}
	out, err := exec.Command(node, "--version").Output()
	require.NoError(t, err, "%s --version", node)
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "v20.") {
		t.Fatalf("%s is Node %s: the compatibility corpus is compared with Node 20 (v20.x); install Node 20 first on PATH", node, v)
	}
	return node
}

func cacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return dir + "/airlock/wazero-test"
}

func lang(name string) sandbox.Lang {
	if strings.HasSuffix(name, ".ts") {
		return sandbox.LangTS
	}
	return sandbox.LangJS
}

func scriptName(name string) string {
	if lang(name) == sandbox.LangTS {
		return "script.ts"
	}
	return "script.js"
}

func runAirlock(t *testing.T, eng *sandbox.ScriptEngine, name, src string) outcome {
	fx := newFixtures()
	res, err := eng.Run(context.Background(), sandbox.Script{Source: src, Lang: lang(name)}, fx.bridge, sandbox.Limits{Timeout: corpusTimeout})
	var o outcome
	if res != nil {
		for _, l := range res.Logs {
			o.Logs = append(o.Logs, logLine{Level: string(l.Level), Text: l.Text})
		}
	}
	if err == nil {
		o.Status, o.Value = "ok", string(res.Value)
		return o
	}
	var xe *sandbox.ExitError
	if !errors.As(err, &xe) {
		t.Errorf("airlock: %v", err)
		return o
	}
	msg := xe.Message
	if xe.Kind != sandbox.ScriptError {
		msg = xe.Kind.String() + ": " + msg
	}
	o.Status, o.Error = "error", &failure{Message: msg, Line: xe.Line, Column: xe.Column}
	return o
}

// typeOnly matches a one-line `import type …` or `export type …`
// statement, which TypeScript erases.
var typeOnly = regexp.MustCompile(`(?m)^[ \t]*(import|export)[ \t]+type\b[^\n]*$`)

// runNode runs the script under Node with node-run.mjs. TypeScript goes
// through esbuild as airlock's does (as is, or wrapped as an async
// function body when that fails), with an inline source map node-run.mjs
// maps positions back through.
func runNode(t *testing.T, node, name, src string) outcome {
	file, wrap := filepath.Join(corpusDir, name), 0
	if lang(name) == sandbox.LangTS {
		opts := api.TransformOptions{
			Loader: api.LoaderTS, Target: api.ESNext, Sourcefile: "script.ts", Sourcemap: api.SourceMapInline,
			LegalComments: api.LegalCommentsNone, SourcesContent: api.SourcesContentExclude,
		}
		r := api.Transform(src, opts)
		if len(r.Errors) > 0 {
			wrap, r = 1, api.Transform("(async () => {\n"+src+"\n})", opts)
		}
		if len(r.Errors) > 0 {
			// A body with `import type` or `export type` lines: TypeScript
			// erases them, but esbuild cannot take them inside the wrapper.
			r = api.Transform("(async () => {\n"+typeOnly.ReplaceAllString(src, "")+"\n})", opts)
		}
		if len(r.Errors) > 0 {
			t.Fatalf("esbuild cannot transpile %s: %s", name, r.Errors[0].Text)
		}
		file = filepath.Join(t.TempDir(), "script.js")
		require.NoError(t, os.WriteFile(file, r.Code, 0o644))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*corpusTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, nodeRun, "--name", scriptName(name), "--wrap", fmt.Sprint(wrap), file)
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=en_US.UTF-8", "LANG=en_US.UTF-8")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node-run.mjs %s: %s", name, stderr.String())
	var o outcome
	require.NoError(t, json.Unmarshal(out, &o), "node-run.mjs %s printed %q", name, out)
	return o
}

// elapsed matches what console.timeEnd and console.timeLog print at the
// start of a line, the one part of a log that varies from run to run
// ("label: 12.345ms", "label: 1.002s …").
var elapsed = regexp.MustCompile(`^([^\n]*?): \d+(?:\.\d+)?(?:ms|s)( |$)`)

// normalize applies the one documented normalisation (README.md,
// "Differences from Node"): console.time durations.
func normalize(o outcome) outcome {
	logs := slices.Clone(o.Logs)
	for i := range logs {
		logs[i].Text = elapsed.ReplaceAllString(logs[i].Text, "$1: <elapsed>$2")
	}
	o.Logs = logs
	return o
}

// compare describes how a (airlock) differs from n (Node); "" when they
// agree.
func compare(a, n outcome) string {
	var b strings.Builder
	if a.Status != n.Status {
		fmt.Fprintf(&b, "  status: airlock %s, node %s\n", a.Status, n.Status)
	}
	if a.Status == "ok" && n.Status == "ok" && a.Value != n.Value {
		fmt.Fprintf(&b, "  value:\n    airlock %s\n    node    %s\n", clip(a.Value), clip(n.Value))
	}
	if a.Error != nil || n.Error != nil {
		ae, ne := deref(a.Error), deref(n.Error)
		if ae != ne {
			fmt.Fprintf(&b, "  error:\n    airlock %d:%d %q\n    node    %d:%d %q\n", ae.Line, ae.Column, ae.Message, ne.Line, ne.Column, ne.Message)
		}
	}
	for i := 0; i < max(len(a.Logs), len(n.Logs)); i++ {
		var al, nl logLine
		if i < len(a.Logs) {
			al = a.Logs[i]
		}
		if i < len(n.Logs) {
			nl = n.Logs[i]
		}
		if al != nl {
			fmt.Fprintf(&b, "  log %d:\n    airlock %s %q\n    node    %s %q\n", i, al.Level, clip(al.Text), nl.Level, clip(nl.Text))
		}
	}
	return b.String()
}

func deref(f *failure) failure {
	if f == nil {
		return failure{}
	}
	return *f
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// TestFixtureToolsAgree runs one sequence of calls through both
// implementations of the fixture tools and compares the envelopes.
func TestFixtureToolsAgree(t *testing.T) {
	node := nodeBinary(t)
	calls := [][2]any{
		{"echo", map[string]any{"a": []any{1, "x", nil}, "b": map[string]any{"c": true}}},
		{"users", map[string]any{}}, {"users", map[string]any{"n": 40, "offset": 3}},
		{"orders", map[string]any{}}, {"orders", map[string]any{"n": 5, "userId": 7}},
		{"weather", map[string]any{"city": "São Paulo"}}, {"weather", map[string]any{"city": "Atlantis"}}, {"weather", map[string]any{}},
		{"fail", map[string]any{}}, {"fail", map[string]any{"status": "denied", "reason": "approval_denied", "message": "no"}},
		{"delay", map[string]any{"ms": 5}}, {"delay", map[string]any{"ms": 1, "value": map[string]any{"x": 1}}}, {"delay", map[string]any{"value": nil}},
		{"big", map[string]any{}}, {"big", map[string]any{"n": 3}},
		{"flaky", map[string]any{"key": "k", "failTimes": 1}}, {"flaky", map[string]any{"key": "k", "failTimes": 1}}, {"flaky", map[string]any{}},
		{"search", map[string]any{"q": "KUBERNETES", "limit": 2}}, {"search", map[string]any{}},
		{"prices", map[string]any{"symbols": []any{"AAPL", "MSFT", "ÄÖ"}}},
		{"events", map[string]any{}},
		{"page", map[string]any{}}, {"page", map[string]any{"cursor": "c10"}},
		{"kv.set", map[string]any{"key": "a", "value": []any{1, 2}}}, {"kv.get", map[string]any{"key": "a"}}, {"kv.get", map[string]any{"key": "b"}},
		{"notify", map[string]any{"to": "ops"}}, {"notify", map[string]any{}},
		{"file", map[string]any{"name": "hello.txt"}}, {"file", map[string]any{"name": "report.csv"}}, {"file", map[string]any{"name": "x"}},
		{"csv", map[string]any{}},
		{"nope", map[string]any{}},
	}
	in, err := json.Marshal(calls)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "calls.json")
	require.NoError(t, os.WriteFile(path, in, 0o644))
	cmd := exec.Command(node, nodeRun, "--tools", path)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	require.NoError(t, err)
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, got, len(calls), "node-run.mjs --tools printed %d envelopes for %d calls", len(got), len(calls))
	fx := newFixtures()
	for i, c := range calls {
		args, err := marshal(c[1])
		require.NoError(t, err)
		env, err := fx.bridge(context.Background(), c[0].(string), args)
		require.NoError(t, err)
		if got[i] != string(env) {
			at := 0
			for at < min(len(got[i]), len(env)) && got[i][at] == env[at] {
				at++
			}
			t.Errorf("call %d: %s(%s): the fixtures differ from byte %d:\n  go   %s\n  node %s", i, c[0], args, at, clip(string(env[at:])), clip(got[i][at:]))
		}
	}
}
