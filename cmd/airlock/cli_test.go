package main_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const chains = "../../examples/chains/"

// runResult is the --json document, decoded loosely.
type runResult struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Reason string          `json:"reason"`
	Error  string          `json:"error"`
	Line   int             `json:"line"`
	Column int             `json:"column"`
	Value  json.RawMessage `json:"value"`
	Logs   []struct{ Level, Text string }
	Trace  []struct {
		Seq                  int
		Tool, Status, Reason string
	}
	Files []struct {
		Path, MIME string
		Ref        string `json:"$artifact"`
	}
	Artifacts []struct {
		Ref  string `json:"$artifact"`
		Size int64
		MIME string
	}
	Stats struct{ Calls int }
}

func goGuest(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "chain.wasm")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = chains + "go-guest"
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	return out
}

// TestRunExamples runs every example chain through the binary, checking
// the exit code, the --json document and the human report.
func TestRunExamples(t *testing.T) {
	outDir := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		code  int
		check func(t *testing.T, r runResult)
	}{
		{"quickstart", []string{chains + "quickstart.js"}, 0, func(t *testing.T, r runResult) {
			require.Equal(t, 5, r.Stats.Calls)
			var v struct{ Calls int }
			require.NoError(t, json.Unmarshal(r.Value, &v))
			require.Equal(t, 5, v.Calls)
			require.Equal(t, "searched 3 topics, 9 hits", r.Logs[0].Text)
		}},
		{"artifact pipeline", []string{chains + "artifact_pipeline.js", "--out", outDir}, 0, func(t *testing.T, r runResult) {
			require.Len(t, r.Artifacts, 1)
			require.Greater(t, r.Artifacts[0].Size, int64(4096))
			require.Len(t, r.Files, 1)
			png, err := os.ReadFile(filepath.Join(outDir, r.ID, "render_chart_0.png"))
			require.NoError(t, err, "the media file is written to --out/<chain id>/")
			require.Equal(t, "\x89PNG", string(png[:4]))
		}},
		{"approval allowed", []string{chains + "approval_write.js", "--approve", "allow"}, 0, func(t *testing.T, r runResult) {
			require.JSONEq(t, `{"sent":true,"to":"ops@example.com"}`, string(r.Value))
			require.Equal(t, "ok", r.Trace[0].Status)
		}},
		{"approval denied", []string{chains + "approval_write.js", "--approve", "deny"}, 0, func(t *testing.T, r runResult) {
			require.JSONEq(t, `{"sent":false,"reason":"approval_denied"}`, string(r.Value))
			require.Equal(t, "denied", r.Trace[0].Status)
			require.Equal(t, "approval_denied", r.Trace[0].Reason)
		}},
		{"budget", []string{chains + "budget.js", "--max-calls", "5"}, 0, func(t *testing.T, r runResult) {
			require.JSONEq(t, `{"done":5,"stopped_at":5,"reason":"budget_exhausted"}`, string(r.Value))
			require.Len(t, r.Trace, 6)
			require.Equal(t, "budget_exhausted", r.Trace[5].Reason)
		}},
		{"typescript", []string{chains + "report.ts"}, 0, func(t *testing.T, r runResult) {
			require.Equal(t, 2, r.Stats.Calls)
		}},
		{"timeout", []string{"testdata/loop.js", "--timeout", "300ms"}, 1, func(t *testing.T, r runResult) {
			require.Equal(t, "timeout", r.Status)
			require.Nil(t, r.Value)
		}},
		{"script error", []string{"testdata/throws.js"}, 1, func(t *testing.T, r runResult) {
			require.Equal(t, "error", r.Status)
			require.Equal(t, "script_error", r.Reason)
			require.Equal(t, 3, r.Line)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run"}, tc.args...)
			res := airlock(t, "", nil, append(args, "--json")...)
			require.Equal(t, tc.code, res.code, "stderr: %s", res.stderr)
			var doc map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &doc), "stdout is one JSON document: %s", res.stdout)
			for _, k := range []string{"id", "status", "logs", "trace", "files", "artifacts", "stats"} {
				require.Contains(t, doc, k)
			}
			var r runResult
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &r))
			want := "ok"
			if tc.code != 0 {
				want = r.Status
				require.NotEqual(t, "ok", want)
			}
			require.Equal(t, want, r.Status)
			tc.check(t, r)

			// The same run for a person: the result, the trace, the exit code.
			human := airlock(t, "", nil, args...)
			require.Equal(t, tc.code, human.code, human.stderr)
			require.Contains(t, human.stdout, r.Status)
			if len(r.Trace) > 0 {
				require.Contains(t, human.stdout, "TOOL")
				require.Contains(t, human.stdout, r.Trace[0].Tool)
			}
		})
	}

	t.Run("go guest", func(t *testing.T) {
		wasm := goGuest(t)
		res := airlock(t, "", nil, "run", wasm, "--json", "--input", `{"cities":["Oslo","Atlantis","Cairo","Lima"]}`)
		require.Equal(t, 0, res.code, res.stderr)
		var r runResult
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &r))
		require.JSONEq(t, `{"warmest":{"city":"Cairo","temp_c":31},"checked":3,"skipped":["Atlantis"]}`, string(r.Value))
	})

	t.Run("human report names where things went", func(t *testing.T) {
		res := airlock(t, "", nil, "run", chains+"artifact_pipeline.js", "--out", outDir)
		require.Equal(t, 0, res.code, res.stderr)
		for _, want := range []string{"result:", "trace:", "make_csv", "artifacts", filepath.Join(cacheHome, "airlock", "blobs"), outDir, "render_chart_0.png"} {
			require.Contains(t, res.stdout, want)
		}
	})
}

func TestRunArgsAndConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "run takes one script"},
		{[]string{"run", "x.py"}, "a chain is a .js, .ts or .wasm file"},
		{[]string{"run", chains + "quickstart.js", "--max-calls", "many"}, "flag --max-calls: policy.max_tool_calls"},
		{[]string{"run", chains + "quickstart.js", "--approve", "queue"}, "is for `airlock serve`"},
		{[]string{"run", chains + "quickstart.js", "--input", "{}"}, "--input is for .wasm chains"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		res := airlock(t, "", nil, tc.args...)
		require.Equal(t, 2, res.code, "%v: %s", tc.args, res.stderr)
		require.Contains(t, res.stderr, tc.want)
	}
	// The environment overrides flags: AIRLOCK_POLICY_MAX_TOOL_CALLS wins over --max-calls.
	res := airlock(t, "", []string{"AIRLOCK_POLICY_MAX_TOOL_CALLS=3"}, "run", chains+"budget.js", "--max-calls", "5", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, `"stopped_at": 3`)
}

// TestRunAsk answers the terminal prompt of --approve ask.
func TestRunAsk(t *testing.T) {
	for _, answer := range []string{"y", "n"} {
		t.Run(answer, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "run", chains+"approval_write.js", "--approve", "ask", "--json")
			cmd.Env = env()
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			var stdout strings.Builder
			cmd.Stdout = &stdout
			require.NoError(t, cmd.Start())
			var prompt strings.Builder
			rd := bufio.NewReader(stderr)
			for !strings.Contains(prompt.String(), "approve? [y/N]") {
				b, err := rd.ReadByte()
				require.NoError(t, err, "stderr so far: %s", prompt.String())
				prompt.WriteByte(b)
			}
			require.Contains(t, prompt.String(), "tool send_message (HIGH risk)")
			require.Contains(t, prompt.String(), `{"text":"nightly report is ready","to":"ops@example.com"}`)
			_, err = io.WriteString(stdin, answer+"\n")
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, rd)
			require.NoError(t, cmd.Wait())
			var r runResult
			require.NoError(t, json.Unmarshal([]byte(stdout.String()), &r))
			if answer == "y" {
				require.JSONEq(t, `{"sent":true,"to":"ops@example.com"}`, string(r.Value))
			} else {
				require.JSONEq(t, `{"sent":false,"reason":"approval_denied"}`, string(r.Value))
			}
		})
	}
}

// TestRunNonInteractiveDenies: standard input that is not a terminal —
// /dev/null is a character device, but no terminal — means deny, without a
// prompt.
func TestRunNonInteractiveDenies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", chains+"approval_write.js", "--json")
	cmd.Env = env()
	devnull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer devnull.Close()
	cmd.Stdin = devnull
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	require.NotContains(t, stderr.String(), "approve?")
	var r runResult
	require.NoError(t, json.Unmarshal([]byte(stdout.String()), &r))
	require.JSONEq(t, `{"sent":false,"reason":"approval_denied"}`, string(r.Value))
	require.Equal(t, "approval_denied", r.Trace[len(r.Trace)-1].Reason)
}

// TestHelp: every command answers -h with its synopsis, what it does and
// its flags with their defaults; config's subcommands too.
func TestHelp(t *testing.T) {
	res := airlock(t, "", nil, "run", "--help")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "usage: airlock run SCRIPT.js|.ts|.wasm [flags]")
	require.Contains(t, res.stderr, "Runs one chain in a fresh sandbox")
	require.Contains(t, res.stderr, "(config policy.max_tool_calls, default 50)")
	require.Contains(t, res.stderr, "(config limits.timeout, default 5m0s)")
	res = airlock(t, "", nil, "config", "--help")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "usage: airlock config print|keys")
	res = airlock(t, "", nil, "config", "print", "-h")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "usage: airlock config print [flags]")
	for _, cmd := range []string{"serve", "tools", "types", "check"} {
		res = airlock(t, "", nil, cmd, "-h")
		require.Equal(t, 0, res.code, "%s: %s", cmd, res.stderr)
		require.Contains(t, res.stderr, "usage: airlock "+cmd)
	}
}

// TestSyntaxErrorSameEverywhere: a script's syntax error reads the same
// from airlock check and airlock run (and the server, which checks with the
// same parser).
func TestSyntaxErrorSameEverywhere(t *testing.T) {
	check := airlock(t, "", nil, "check", "testdata/syntax.js")
	require.Equal(t, 1, check.code)
	run := airlock(t, "", nil, "run", "testdata/syntax.js", "--json")
	require.Equal(t, 1, run.code, run.stderr)
	var r runResult
	require.NoError(t, json.Unmarshal([]byte(run.stdout), &r))
	require.Equal(t, fmt.Sprintf("testdata/syntax.js:%d:%d: %s\n", r.Line, r.Column, r.Error), check.stdout)
}

func TestCheck(t *testing.T) {
	res := airlock(t, "", nil, "check", "testdata/syntax.js", chains+"quickstart.js", chains+"report.ts")
	require.Equal(t, 1, res.code, res.stderr)
	require.Contains(t, res.stdout, "testdata/syntax.js:2:11: SyntaxError")
	require.Contains(t, res.stdout, "quickstart.js: ok")
	res = airlock(t, "", nil, "check", "testdata/syntax.ts")
	require.Equal(t, 1, res.code)
	require.Contains(t, res.stdout, "testdata/syntax.ts:3:10: SyntaxError")
	res = airlock(t, "", nil, "check", chains+"budget.js")
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	// A module parses, but a script is not run as one: refused at the export.
	res = airlock(t, "", nil, "check", "testdata/export.js")
	require.Equal(t, 1, res.code, res.stdout+res.stderr)
	require.Contains(t, res.stdout, "testdata/export.js:1:1: SyntaxError: export is not available in chains")
}

func TestConfigPrintRedactsSecrets(t *testing.T) {
	file := filepath.Join(t.TempDir(), "airlock.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`
policy: {max_tool_calls: 20}
limits: {timeout: 40s}
server:
  api_keys:
    - {key: "acme-secret-key-0123456789", tenant: acme}
store:
  s3: {secret_key: "s3-secret-value-xyz"}
tools:
  http:
    - name: lookup
      description: Look something up
      url: https://api.example.com/lookup
      method: GET
      headers: {Authorization: "Bearer literal-token-abc", X-Key: "${env:LOOKUP_KEY}"}
`), 0o600))
	res := airlock(t, "", []string{"AIRLOCK_LIMITS_MEMORY=32MiB"}, "config", "print", "--config", file, "--memory", "128MiB", "--max-calls", "7")
	require.Equal(t, 0, res.code, res.stderr)
	for _, secret := range []string{"acme-secret-key", "s3-secret-value", "literal-token-abc"} {
		require.NotContains(t, res.stdout, secret)
	}
	require.Contains(t, res.stdout, "[REDACTED]")
	require.Contains(t, res.stdout, "${env:LOOKUP_KEY}")
	require.Contains(t, res.stdout, "max_tool_calls: 7", "a flag overrides the file")
	require.Contains(t, res.stdout, "memory: 32MiB", "the environment overrides flags")
	require.Contains(t, res.stdout, "timeout: 40s", "the file overrides the defaults")

	res = airlock(t, "", nil, "config", "keys")
	require.Equal(t, 0, res.code)
	require.Contains(t, res.stdout, "AIRLOCK_LIMITS_TIMEOUT")

	require.NoError(t, os.WriteFile(file, []byte("policy:\n  max_tool_calls: 20\n  call_timeuot: 3s\n"), 0o600))
	res = airlock(t, "", nil, "config", "print", "--config", file)
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "airlock.yaml:3")
}

func TestToolsAndTypes(t *testing.T) {
	res := airlock(t, "", nil, "tools", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var list struct {
		Tools []struct {
			Name, Risk, Kind string
			InputSchema      map[string]any `json:"input_schema"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &list))
	risks := map[string]string{}
	for _, tool := range list.Tools {
		risks[tool.Name] = tool.Risk
		require.Equal(t, "local", tool.Kind)
	}
	require.Equal(t, "HIGH", risks["send_message"])
	require.Equal(t, "SAFE", risks["search_docs"])

	res = airlock(t, "", nil, "tools")
	require.Equal(t, 0, res.code)
	require.Regexp(t, `send_message +HIGH +network +- +healthy`, res.stdout)

	res = airlock(t, "", nil, "types")
	require.Equal(t, 0, res.code)
	require.Contains(t, res.stdout, "declare const tools: {")
	require.Contains(t, res.stdout, "search_docs(args:")

	res = airlock(t, "", nil, "tools", "--tools", "")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "TOOL  RISK  CLASS  SCOPES  HEALTH  ARGUMENTS  DESCRIPTION\n", res.stdout)
}

// TestStoreFlags: --store, --store-dir and the --s3-* flags choose the blob
// store; S3 credentials come only from the environment or the config file.
func TestStoreFlags(t *testing.T) {
	res := airlock(t, "", nil, "run", "--store", "s3", chains+"quickstart.js")
	require.Equal(t, 2, res.code, res.stderr)
	require.Contains(t, res.stderr, "store.s3.endpoint: is required for an s3 store")

	dir := t.TempDir()
	res = airlock(t, "", nil, "run", "--store-dir", dir, "--json", chains+"artifact_pipeline.js")
	require.Equal(t, 0, res.code, res.stderr)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, entries, "the offloaded CSV went to --store-dir")

	endpoint := minioEndpoint(t, "the s3 half")
	var b [4]byte
	_, _ = rand.Read(b[:])
	bucket := "airlock-cli-" + hex.EncodeToString(b[:])
	res = airlock(t, "", []string{
		"AIRLOCK_S3_ACCESS_KEY=" + os.Getenv("AIRLOCK_S3_ACCESS_KEY"),
		"AIRLOCK_S3_SECRET_KEY=" + os.Getenv("AIRLOCK_S3_SECRET_KEY"),
	}, "run", "--store", "s3", "--s3-endpoint", endpoint, "--s3-bucket", bucket, "--s3-tls", "false", chains+"artifact_pipeline.js")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, bucket, "the output says where the artifacts went")
	require.NotContains(t, res.stdout+res.stderr, os.Getenv("AIRLOCK_S3_SECRET_KEY"))
}

// minioEndpoint returns the test MinIO's address, or skips the test
// (fails it under CI=true) when the tests run without one.
func minioEndpoint(t *testing.T, what string) string {
	t.Helper()
	endpoint := os.Getenv("AIRLOCK_S3_ENDPOINT")
	if endpoint == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but AIRLOCK_S3_ENDPOINT is unset: run the tests with scripts/minio.sh run -- go test ./...")
		}
		t.Skipf("no MinIO: run scripts/minio.sh run -- go test ./cmd/airlock/ for %s", what)
	}
	return endpoint
}
