package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/airlockrt/airlock/internal/mcptest"
)

// The pages whose examples TestDocsExamples checks, relative to the
// repository root.
var docPages = []string{"README.md", "docs/*.md", "examples/*/README.md", "examples/*/*/README.md"}

// docBlock is one fenced code block of a page.
type docBlock struct {
	page string // relative to the repository root
	line int    // of the opening fence, 1-based
	lang string // the fence's info string, first word
	text string // the content, the fence's indentation removed
	// mark is the directive of a `<!-- doc-test: … -->` comment on the
	// line just before the fence: "parse-only", "stub", "serve" or "".
	mark string
	// arg is what follows the directive: the reason of parse-only, the
	// command names of stub.
	arg string
	// client is set for an example of a client's (`<!-- example: MODE -->`
	// on the line before the fence, docs/clients.md): the client's own
	// TestDocExamples runs it against real servers.
	client bool
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.page, b.line) }

var (
	fence   = regexp.MustCompile("^( *)(```+)\\s*([^`\\s]*)")
	docMark = regexp.MustCompile(`^\s*<!--\s*doc-test:\s*([a-z-]+)\s*(.*?)\s*-->\s*$`)
	// clientMark marks a client's example (clients/typescript and
	// clients/python run them).
	clientMark = regexp.MustCompile(`^\s*<!--\s*example:\s*[a-z ]+-->\s*$`)
)

// docBlocks returns every fenced block of the page.
func docBlocks(t *testing.T, root, page string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, page))
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		b := docBlock{page: page, line: i + 1, lang: m[3]}
		if i > 0 {
			if mm := docMark.FindStringSubmatch(lines[i-1]); mm != nil {
				b.mark, b.arg = mm[1], strings.TrimSpace(strings.TrimPrefix(mm[2], ":"))
			}
			b.client = clientMark.MatchString(lines[i-1])
		}
		indent, ticks := m[1], m[2]
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == ticks || strings.HasPrefix(lines[i], indent+ticks) && strings.TrimSpace(lines[i]) == ticks {
				closed = true
				break
			}
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		require.True(t, closed, "%s: the code block is not closed", b)
		b.text = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, b)
	}
	return blocks
}

// docTally counts what TestDocsExamples did with the blocks.
type docTally struct {
	executed, loaded, parsed, unchecked int
}

// TestDocsExamples checks every fenced code block of README.md, docs/*.md
// and the examples' READMEs, so an example that no longer works fails here:
//
//   - sh, bash, shell, console: `bash -n`, then run with bash from the
//     repository root (set -e, pipefail), the built binary first on PATH
//     (`go run ./cmd/airlock` and `go install ./cmd/airlock` stand for it).
//     A line that starts `airlock serve` is started by the test on a free
//     port of 127.0.0.1 (8080 in the block becomes that port) and stopped
//     after the block; curl fails on an HTTP error, and a chain printed on
//     stdout must have status ok. The blocks of a page run in order, each
//     after the `export` lines of the ones before.
//   - yaml: parsed, then loaded as an airlock configuration file by
//     `airlock config print` (every `${env:NAME}` it names set to a
//     distinct placeholder of at least 40 characters).
//   - json: parsed. js, ts: `airlock check`, then run with `airlock run`.
//     go: parsed (chain's TestReadmeExample runs README.md's program).
//   - python: parsed with python3 (clients/python's TestDocExamples runs
//     docs/clients.md's against real servers). A ts block marked as a
//     client's example (`<!-- example: run -->`) is a program using the
//     TypeScript client, not a chain: clients/typescript's TestDocExamples
//     compiles and runs it.
//   - go.mod: the lines a user adds to their module's go.mod; the page's
//     Go program (its go block with package main) is built and run in a
//     fresh module with those lines (/path/to/airlock the repository, no
//     network: airlock's go.sum, GOPROXY=off) and must print the page's
//     text block that follows the program.
//   - text, http: not checked (output and wire samples).
//
// A block that cannot run here (it needs an S3 bucket, another machine, a
// person) is marked on the line before its fence with
// `<!-- doc-test: parse-only: REASON -->`: it is still parsed. `<!-- doc-test:
// stub CMD...: REASON -->` runs the block with the named commands replaced by
// no-ops (`make test` cannot run inside the tests). `<!-- doc-test: serve -->`
// runs the block against an `airlock serve` started on a free port without
// a configuration file, with one API key (tenant docs), which the block
// finds in $AIRLOCK_KEY. Every other block must pass, and a fence without
// a language fails. A shell block that uses python3, jq, curl or node skips
// when it is missing (scripts/deps.sh installs them), except under CI=true.
func TestDocsExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var pages []string
	for _, pattern := range docPages {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		require.NoError(t, err)
		for _, p := range m {
			rel, _ := filepath.Rel(root, p)
			pages = append(pages, rel)
		}
	}
	require.NotEmpty(t, pages)

	var tally docTally
	total := 0
	for _, page := range pages {
		blocks := docBlocks(t, root, page)
		var exports []string // the export lines of the page's shell blocks so far
		for _, b := range blocks {
			total++
			t.Run(b.String(), func(t *testing.T) {
				checkDocBlock(t, root, b, blocks, exports, &tally)
			})
			if isShell(b.lang) {
				for _, l := range strings.Split(b.text, "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "export ") {
						exports = append(exports, strings.TrimSpace(l))
					}
				}
			}
		}
	}
	t.Logf("%d code blocks in %d pages: %d executed, %d loaded as configuration, %d parsed only, %d output samples not checked",
		total, len(pages), tally.executed, tally.loaded, tally.parsed, tally.unchecked)
}

func isShell(lang string) bool {
	switch lang {
	case "sh", "bash", "shell", "console":
		return true
	}
	return false
}

func checkDocBlock(t *testing.T, root string, b docBlock, page []docBlock, exports []string, tally *docTally) {
	switch b.mark {
	case "", "stub", "serve":
	case "parse-only":
		require.NotEmpty(t, b.arg, "%s: say why the block is parse-only: <!-- doc-test: parse-only: REASON -->", b)
	default:
		t.Fatalf("%s: unknown doc-test directive %q (parse-only, stub, serve)", b, b.mark)
	}
	parseOnly := b.mark == "parse-only"
	if b.client && (b.lang == "ts" || b.lang == "typescript") {
		// A program using the TypeScript client, not a chain: compiled and
		// run by clients/typescript's TestDocExamples.
		tally.unchecked++
		return
	}
	switch {
	case isShell(b.lang):
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(b.text)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: bash -n: %s", b, out)
		if parseOnly {
			tally.parsed++
			return
		}
		runShellBlock(t, root, b, exports)
		tally.executed++
	case b.lang == "yaml" || b.lang == "yml":
		var v any
		require.NoError(t, yaml.Unmarshal([]byte(b.text), &v), "%s: the YAML does not parse", b)
		if parseOnly {
			tally.parsed++
			return
		}
		file := filepath.Join(t.TempDir(), "airlock.yaml")
		require.NoError(t, os.WriteFile(file, []byte(b.text), 0o600))
		var extra []string // a distinct value of 40 characters or more for each
		for _, m := range envRef.FindAllStringSubmatch(b.text, -1) {
			v := "doc-test-" + strings.ToLower(m[1])
			extra = append(extra, m[1]+"="+v+strings.Repeat("0", max(0, 40-len(v))))
		}
		r := airlock(t, "", extra, "config", "print", "--config", file)
		require.Equal(t, 0, r.code, "%s: airlock config print refuses the example:\n%s", b, r.stderr)
		tally.loaded++
	case b.lang == "json":
		require.True(t, json.Valid([]byte(b.text)), "%s: the JSON does not parse:\n%s", b, b.text)
		tally.parsed++
	case b.lang == "js" || b.lang == "ts" || b.lang == "javascript" || b.lang == "typescript":
		ext := ".js"
		if strings.HasPrefix(b.lang, "t") {
			ext = ".ts"
		}
		file := filepath.Join(t.TempDir(), "example"+ext)
		require.NoError(t, os.WriteFile(file, []byte(b.text), 0o600))
		r := airlock(t, "", nil, "check", file)
		require.Equal(t, 0, r.code, "%s: airlock check: %s%s", b, r.stdout, r.stderr)
		if parseOnly {
			tally.parsed++
			return
		}
		r = airlock(t, "", nil, "run", "--approve", "deny", file)
		require.Equal(t, 0, r.code, "%s: airlock run:\n%s%s", b, r.stdout, r.stderr)
		tally.executed++
	case b.lang == "python":
		// Parsed here; clients/python's TestDocExamples runs the examples of
		// docs/clients.md against real servers.
		py, err := exec.LookPath("python3")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s: python3 is not installed; make test installs it (scripts/deps.sh)", b)
			}
			t.Skipf("%s: python3 is not installed", b)
		}
		file := filepath.Join(t.TempDir(), "example.py")
		require.NoError(t, os.WriteFile(file, []byte(b.text), 0o600))
		out, err := exec.Command(py, "-B", "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])", file).CombinedOutput()
		require.NoError(t, err, "%s: the Python does not parse:\n%s", b, out)
		tally.parsed++
	case b.lang == "go":
		_, err := parser.ParseFile(token.NewFileSet(), b.String(), b.text, 0)
		require.NoError(t, err, "%s: the Go does not parse", b)
		tally.parsed++
	case b.lang == "go.mod":
		require.False(t, parseOnly, "%s: a go.mod block always runs", b)
		runGoModBlock(t, root, b, page)
		tally.executed++
	case b.lang == "text" || b.lang == "http":
		tally.unchecked++
	case b.lang == "":
		t.Fatalf("%s: give the code block a language (sh, yaml, json, js, go; text for output)", b)
	default:
		t.Fatalf("%s: TestDocsExamples does not know the language %q", b, b.lang)
	}
}

var (
	envRef = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)
	// serveLine is a command line that starts the server.
	serveLine = regexp.MustCompile(`^\s*(airlock|go run \./cmd/airlock) serve\b`)
)

// docShellPrelude runs before every shell block.
const docShellPrelude = `set -eo pipefail
# go install ./cmd/airlock builds what is already on PATH.
go() { if [ "$1" = install ] && [ "$2" = ./cmd/airlock ]; then return 0; fi; command go "$@"; }
# make test runs these tests: never from a block (mark it stub make).
make() { echo "doc-test: make cannot run inside the tests; mark the block <!-- doc-test: stub make: REASON -->" >&2; return 1; }
# An HTTP error is a failure, with the body on stdout.
curl() { command curl --fail-with-body "$@"; }
# npx of a package scripts/mcp-deps.sh pins runs the installed copy.
npx() {
	case "$1" in
	@modelcontextprotocol/inspector@2.12.0) shift; node "$AIRLOCK_NPM_DIR/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" "$@" ;;
	*) command npx "$@" ;;
	esac
}
`

func runShellBlock(t *testing.T, root string, b docBlock, exports []string) {
	if strings.Contains(b.text, "mcp-deps.sh") || strings.Contains(b.text, "npx ") {
		mcptest.Everything(t) // skips without the npm packages, fails under CI=true
		mcptest.Inspector(t)
	}
	// The programs scripts/deps.sh installs: skip without one, except
	// under CI=true.
	for _, prog := range []string{"python3", "jq", "curl", "node"} {
		if !regexp.MustCompile(`\b` + prog + `\b`).MatchString(b.text) {
			continue
		}
		if _, err := exec.LookPath(prog); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s: %s is not installed; scripts/deps.sh installs it", b, prog)
			}
			t.Skipf("%s is not installed (scripts/deps.sh installs it)", prog)
		}
	}
	port := mcptest.FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	substitute := func(s string) string {
		s = strings.ReplaceAll(s, "go run ./cmd/airlock", "airlock")
		return strings.ReplaceAll(s, ":8080", fmt.Sprintf(":%d", port))
	}

	var script, serveCmd []string
	for _, l := range strings.Split(b.text, "\n") {
		if serveLine.MatchString(l) {
			if i := strings.Index(l, " #"); i >= 0 {
				l = l[:i] // its comment
			}
			l = strings.TrimSpace(strings.TrimSuffix(l, "&"))
			if !strings.Contains(l, "--addr") {
				l += " --addr " + addr
			}
			serveCmd = append(serveCmd, substitute(l))
			continue
		}
		script = append(script, substitute(l))
	}
	if b.mark == "serve" {
		serveCmd = append(serveCmd, "airlock serve --addr "+addr)
	}
	require.LessOrEqual(t, len(serveCmd), 1, "%s: one airlock serve per block", b)

	pre := docShellPrelude + strings.Join(exports, "\n") + "\n"
	if b.mark == "stub" {
		list, reason, _ := strings.Cut(b.arg, ":")
		names := strings.Fields(list)
		require.True(t, len(names) > 0 && strings.TrimSpace(reason) != "",
			"%s: write <!-- doc-test: stub CMD...: REASON -->", b)
		for _, name := range names {
			require.Regexp(t, `^[a-z0-9_-]+$`, name, "%s: stub names commands", b)
			pre += fmt.Sprintf("%s() { echo \"doc-test: not running %s $*\"; }\n", name, name)
		}
	}
	environ := env("PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "AIRLOCK_NPM_DIR="+mcptest.Dir())
	if b.mark == "serve" { // one API key, the block's $AIRLOCK_KEY
		key := fmt.Sprintf("doc-test-key-%d-0123456789abcdef", port)
		environ = append(environ, "AIRLOCK_SERVER_API_KEYS=docs:"+key, "AIRLOCK_KEY="+key)
	}

	if len(serveCmd) == 1 {
		startDocServer(t, root, environ, pre+"exec "+serveCmd[0], addr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", pre+strings.Join(script, "\n"))
	cmd.Dir = root
	cmd.Env = environ
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "%s: the block failed:\n%s\nstdout:\n%s\nstderr:\n%s", b, strings.Join(script, "\n"), stdout.String(), stderr.String())
	requireChainsOK(t, b, stdout.String())
}

// startDocServer runs the shell line that starts the server and waits
// until addr accepts connections; the test's cleanup stops it.
func startDocServer(t *testing.T, root string, environ []string, line, addr string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = root
	cmd.Env = environ
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("%s exited before it listened:\n%s", line, log.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the server did not listen on %s within 30s", addr)
}

// requireChainsOK: every chain (an object with an id ch_… and a status)
// printed as a JSON line ended ok.
func requireChainsOK(t *testing.T, b docBlock, stdout string) {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		var c struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if json.Unmarshal([]byte(l), &c) != nil || !strings.HasPrefix(c.ID, "ch_") {
			continue
		}
		require.Equal(t, "ok", c.Status, "%s: a chain the example submits ended %s:\n%s", b, c.Status, l)
	}
}

// runGoModBlock builds and runs the page's Go program in a new module
// whose go.mod holds the block's lines.
func runGoModBlock(t *testing.T, root string, b docBlock, page []docBlock) {
	t.Helper()
	var program, want string
	for i, pb := range page {
		if pb.lang == "go" && strings.HasPrefix(strings.TrimSpace(pb.text), "package main") {
			program = pb.text
			if i+1 < len(page) && page[i+1].lang == "text" {
				want = page[i+1].text
			}
		}
	}
	require.NotEmpty(t, program, "%s: the page has no Go program (a go block with package main) to build", b)
	require.Contains(t, b.text, "/path/to/airlock", "%s: the replace line points at /path/to/airlock", b)

	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(mod)
	require.NotNil(t, goLine)
	dir := t.TempDir()
	gomod := "module example.com/docs\n\n" + string(goLine) + "\n\n" + strings.ReplaceAll(b.text, "/path/to/airlock", root)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o600))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o600))

	// The real build and module caches: a fresh one would compile
	// everything again.
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	require.NoError(t, err)
	caches := strings.Split(strings.TrimSpace(string(goEnv)), "\n")
	require.Len(t, caches, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".")
	cmd.Dir = dir
	cmd.Env = env("GOCACHE="+caches[0], "GOMODCACHE="+caches[1], "GOPATH="+caches[2],
		"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s: go run of the page's program with this go.mod:\n%s\n%s", b, gomod, stderr.String())
	if want != "" {
		require.Equal(t, want, stdout.String(), "%s: the program prints what the page says", b)
	}
}
