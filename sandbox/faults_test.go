package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fault matrix (issue 10, item 6): common mistakes, each in JavaScript
// and TypeScript, as the first statement, after a tool call and inside a
// nested async function. Every uncaught fault must report Node 20's message
// and the file, line and column Node reports, and the same error caught
// must have a stack whose first lines Node would print. TestFaultsMatchNode
// checks the expectations below against node itself.

// fault is one mistake: pre declares what code needs (on the same line as
// code in the first-statement form, on the line before otherwise), code is
// the faulty statement, at the text in code where Node places the fault.
type fault struct {
	name, pre, code, at string
	msg                 string // Node's "Name: message"
	hint                string // airlock's hint after an absent global's message
}

var faults = []fault{
	{"property of null", "const cfg = null;", "const port = cfg.port;", "port;",
		"TypeError: Cannot read properties of null (reading 'port')", ""},
	{"property of undefined", "const user = {};", "const city = user.address.city;", "city;",
		"TypeError: Cannot read properties of undefined (reading 'city')", ""},
	{"set property of undefined", "const state = {};", "state.counts.total = 1;", "= 1",
		"TypeError: Cannot set properties of undefined (setting 'total')", ""},
	{"undeclared name", "", "const n = itemz.length;", "itemz",
		"ReferenceError: itemz is not defined", ""},
	{"method of a number", "const csv = 42;", "const rows = csv.trim();", "trim",
		"TypeError: csv.trim is not a function", ""},
	{"call of a string", "const format = 'x';", "format(1);", "format(",
		"TypeError: format is not a function", ""},
	{"call of a missing nested method", "const obj = { a: {} };", "obj.a.b();", "b()",
		"TypeError: obj.a.b is not a function", ""},
	{"awaited call of a missing method", "const api = {};", "await api.fetchAll();", "fetchAll",
		"TypeError: api.fetchAll is not a function", ""},
	{"new of a non-constructor", "const Client = {};", "const c = new Client();", "new",
		"TypeError: Client is not a constructor", ""},
	{"class called without new", "class Repo {}", "const r = Repo();", "Repo()",
		"TypeError: Class constructor Repo cannot be invoked without 'new'", ""},
	{"for-of over an object", "const data = {};", "for (const item of data) { void item; }", "data)",
		"TypeError: data is not iterable", ""},
	{"array destructuring of an object", "const pair = {};", "const [a, b] = pair;", "pair;",
		"TypeError: pair is not iterable", ""},
	{"object destructuring of null", "", "const { id } = null;", "id }",
		"TypeError: Cannot destructure property 'id' of 'null' as it is null.", ""},
	{"JSON.parse of empty text", "", `const cfg = JSON.parse("");`, "parse",
		"SyntaxError: Unexpected end of JSON input", ""},
	{"JSON.parse of bad text", "", `const cfg = JSON.parse("xyz");`, "parse",
		`SyntaxError: Unexpected token 'x', "xyz" is not valid JSON`, ""},
	{"assignment to a constant", "const total = 0;", "total = 5;", "= 5",
		"TypeError: Assignment to constant variable.", ""},
	{"use before let", "", "const v = later + 1; let later = 2;", "later +",
		"ReferenceError: Cannot access 'later' before initialization", ""},
	{"thrown Error", "", `throw new Error("boom");`, "new",
		"Error: boom", ""},
	{"map of a missing list", "const resp = {};", "const ids = resp.items.map((i) => i.id);", "map(",
		"TypeError: Cannot read properties of undefined (reading 'map')", ""},
	{"in a template literal", "const order = {};", "const line = `total: ${order.summary.total}`;", "total}",
		"TypeError: Cannot read properties of undefined (reading 'total')", ""},
	{"in an object literal", "const p = {};", "const row = { name: p.info.name };", "name }",
		"TypeError: Cannot read properties of undefined (reading 'name')", ""},
	{"BigInt mixed with a number", "const big = 10n;", "const sum = big + 1;", "+ 1",
		"TypeError: Cannot mix BigInt and other types, use explicit conversions", ""},
	{"toFixed of a string", "const price = '9.5';", "const s = price.toFixed(2);", "toFixed",
		"TypeError: price.toFixed is not a function", ""},
	{"property of a failed find", "const list = [1];", "const n = list.find((x) => x > 5).name;", ".name",
		"TypeError: Cannot read properties of undefined (reading 'name')", ""},
	{"push to a missing Map entry", "const groups = new Map();", "groups.get('a').push(1);", ".push",
		"TypeError: Cannot read properties of undefined (reading 'push')", ""},
	{"negative array length", "", "const a = new Array(-1);", "new",
		"RangeError: Invalid array length", ""},
	{"toFixed out of range", "const x = 1.5;", "const s = x.toFixed(101);", "toFixed",
		"RangeError: toFixed() digits argument must be between 0 and 100", ""},
	{"fetch", "", "const r = fetch('https://example.com');", "fetch",
		"ReferenceError: fetch is not defined", " (chains have no network: call tools.* instead)"},
	{"require", "", "const fs = require('fs');", "require",
		"ReferenceError: require is not defined",
		" (chains have no modules: call tools.* for I/O; JSON, URL, crypto and TextEncoder are built in)"},
}

// faultForm is where a fault sits in the script.
type faultForm struct {
	name string
	// src builds the script; it returns the source, the fault's line and
	// the column where code starts, and the function name V8 gives the
	// frame ("" for the top level).
	src func(f fault, ts bool) (src string, line, col int, fn string)
}

var faultForms = []faultForm{
	{"first statement", func(f fault, ts bool) (string, int, int, string) {
		pre := ""
		if f.pre != "" {
			pre = f.pre + " "
		}
		src := pre + f.code + "\n"
		if ts {
			src += "interface Row { id: number }\nconst tsRows: Row[] = [];\nvoid tsRows;\n"
		}
		return src, 1, len(pre) + 1, ""
	}},
	{"after a tool call", func(f fault, ts bool) (string, int, int, string) {
		head := "const res = await tools.echo({ ok: true });\n"
		if ts {
			head = "import type { Row } from \"./types\";\nconst res: Row | undefined = await tools.echo({ ok: true }) as Row;\n"
		}
		src := head + f.pre + "\n" + f.code + "\nvoid res;\n"
		return src, strings.Count(head, "\n") + 2, 1, ""
	}},
	{"nested async function", func(f fault, ts bool) (string, int, int, string) {
		head := "async function load(id) {\n  const res = await tools.echo({ id });\n"
		if ts {
			head = "type Id = number;\nasync function load(id: Id): Promise<unknown> {\n  const res: unknown = await tools.echo({ id });\n"
		}
		src := head + "  const inner = async () => {\n    " + f.pre + "\n    " + f.code + "\n  };\n  await inner();\n  return res;\n}\nawait load(1);\n"
		return src, strings.Count(head, "\n") + 3, 5, "inner"
	}},
}

// faultScript is one cell of the matrix with what it must report.
type faultScript struct {
	name      string
	script    Script
	line, col int
	fn        string
	msg       string
	hint      string
}

func faultScripts(t *testing.T) []faultScript {
	var out []faultScript
	for _, f := range faults {
		i := strings.Index(f.code, f.at)
		require.True(t, i >= 0 && strings.LastIndex(f.code, f.at) == i, "%s: %q must occur once in %q", f.name, f.at, f.code)
		for _, form := range faultForms {
			for _, ts := range []bool{false, true} {
				src, line, col, fn := form.src(f, ts)
				s := Script{Source: src, Filename: "chain.js"}
				lang := "JS"
				if ts {
					s.Lang, s.Filename, lang = LangTS, "chain.ts", "TS"
				}
				out = append(out, faultScript{name: f.name + "/" + form.name + "/" + lang, script: s,
					line: line, col: col + i, fn: fn, msg: f.msg, hint: f.hint})
			}
		}
	}
	return out
}

// echoBridge answers every call with {"status":"ok","value":{}}.
func echoBridge(context.Context, string, []byte) ([]byte, error) {
	return []byte(`{"status":"ok","value":{}}`), nil
}

func TestFaultMatrix(t *testing.T) {
	cells := faultScripts(t)
	require.GreaterOrEqual(t, len(faults), 20)
	e := engine(t)
	for _, c := range cells {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Run(context.Background(), c.script, echoBridge, Limits{})
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, ScriptError, xe.Kind, "%v", err)
			require.Equal(t, c.msg+c.hint, xe.Message, "%v\n%s", err, c.script.Source)
			require.Equal(t, [2]int{c.line, c.col}, [2]int{xe.Line, xe.Column}, "%v\n%s", err, c.script.Source)

			// Caught, the error's stack starts as V8's does: the message,
			// then the frame of the fault in the script's file.
			caught := c.script
			caught.Source = "try {\n" + c.script.Source + "\n} catch (e) { return e.stack.split('\\n').slice(0, 2).join('\\n') }"
			res, err := e.Run(context.Background(), caught, echoBridge, Limits{})
			require.NoError(t, err, caught.Source)
			frame := fmt.Sprintf("%s:%d:%d", caught.Filename, c.line+1, c.col)
			if c.fn != "" {
				frame = c.fn + " (" + frame + ")"
			}
			want, _ := json.Marshal(c.msg + "\n    at " + frame)
			require.JSONEq(t, string(want), string(res.Value), caught.Source)
		})
	}
}

// nodeHarness imports chain scripts as ES modules, with a `tools` stub,
// and prints each one's failure as a line of JSON.
const nodeHarness = `import { pathToFileURL } from "node:url";
globalThis.tools = new Proxy({}, { get: () => async () => ({}) });
for (const file of process.argv.slice(2)) {
  try {
    await import(pathToFileURL(file));
    console.log(JSON.stringify({ ok: true }));
  } catch (e) {
    console.log(JSON.stringify({ name: e.name, message: e.message, stack: String(e.stack) }));
  }
}
`

// TestFaultsMatchNode runs the JavaScript cells of the matrix under node
// and checks that node reports the message, line and column the matrix
// expects of airlock (except the globals node has and chains do not).
// Under CI=true a missing node fails the test.
func TestFaultsMatchNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required under CI=true (scripts/ installs it)")
		}
		t.Skip("node not installed")
	}
	dir := t.TempDir()
	harness := filepath.Join(dir, "harness.mjs")
	require.NoError(t, os.WriteFile(harness, []byte(nodeHarness), 0o600))
	var cells []faultScript
	args := []string{harness}
	for _, c := range faultScripts(t) {
		if c.script.Lang != LangJS || c.hint != "" {
			continue
		}
		file := filepath.Join(dir, fmt.Sprintf("%d", len(cells)), "chain.mjs")
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o700))
		require.NoError(t, os.WriteFile(file, []byte(c.script.Source), 0o600))
		cells = append(cells, c)
		args = append(args, file)
	}
	cmd := exec.Command(node, args...)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(cells))
	frame := regexp.MustCompile(`chain\.mjs:(\d+):(\d+)`)
	for i, c := range cells {
		t.Run(c.name, func(t *testing.T) {
			var got struct{ Name, Message, Stack string }
			require.NoError(t, json.Unmarshal([]byte(lines[i]), &got), "%s", lines[i])
			require.Equal(t, c.msg, got.Name+": "+got.Message)
			m := frame.FindStringSubmatch(got.Stack)
			require.NotNil(t, m, got.Stack)
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			require.Equal(t, [2]int{c.line, c.col}, [2]int{line, col}, "%s\n%s", got.Stack, c.script.Source)
		})
	}
}

// jsonErrors are bad JSON texts with the message Node 20 gives for each
// (TestJSONErrorsMatchNode checks them against node).
var jsonErrors = []struct{ text, msg string }{
	{"xyz", "Unexpected token 'x', \"xyz\" is not valid JSON"},
	{"", "Unexpected end of JSON input"},
	{" ", "Unexpected end of JSON input"},
	{"{", "Expected property name or '}' in JSON at position 1"},
	{"[", "Unexpected end of JSON input"},
	{"{\"a\":1,}", "Expected double-quoted property name in JSON at position 7"},
	{"[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"},
	{"[1 2]", "Expected ',' or ']' after array element in JSON at position 3"},
	{"{\"a\" 1}", "Expected ':' after property name in JSON at position 5"},
	{"{a:1}", "Expected property name or '}' in JSON at position 1"},
	{"{'a':1}", "Expected property name or '}' in JSON at position 1"},
	{"{\"a\":1 \"b\":2}", "Expected ',' or '}' after property value in JSON at position 7"},
	{"\"abc", "Unterminated string in JSON at position 4"},
	{"\"a\nb\"", "Bad control character in string literal in JSON at position 2"},
	{"\"\\x\"", "Bad escaped character in JSON at position 2"},
	{"\"\\u12G4\"", "Bad Unicode escape in JSON at position 5"},
	{"-", "No number after minus sign in JSON at position 1"},
	{"-a", "No number after minus sign in JSON at position 1"},
	{"1e", "Exponent part is missing a number in JSON at position 2"},
	{"1.", "Unterminated fractional number in JSON at position 2"},
	{"01", "Unexpected number in JSON at position 1"},
	{"1 2", "Unexpected non-whitespace character after JSON at position 2"},
	{"tru", "Unexpected end of JSON input"},
	{"nul", "Unexpected end of JSON input"},
	{"NaN", "\"NaN\" is not valid JSON"},
	{"undefined", "\"undefined\" is not valid JSON"},
	{"[object Object]", "\"[object Object]\" is not valid JSON"},
	{"{\"key\": undefined}", "Unexpected token 'u', \"{\"key\": undefined}\" is not valid JSON"},
	{"abcdefghijklmnopqrstuvwxyz", "Unexpected token 'a', \"abcdefghij\"... is not valid JSON"},
	{"{\"aaaaaaaaaaaaaaaaaaaa\": x}", "Unexpected token 'x', ...\"aaaaaaa\": x}\" is not valid JSON"},
	{"[1, 2, 3, 4, 5, 6, 7, 8, x]", "Unexpected token 'x', ...\" 6, 7, 8, x]\" is not valid JSON"},
	{"{\"a\":1}x", "Unexpected non-whitespace character after JSON at position 7"},
	{"[1]]", "Unexpected non-whitespace character after JSON at position 3"},
	{"\"abc\" 1", "Unexpected non-whitespace character after JSON at position 6"},
	{"1 \"a\"", "Unexpected non-whitespace character after JSON at position 2"},
	{"{\"a\":1", "Expected ',' or '}' after property value in JSON at position 6"},
	{"[1", "Expected ',' or ']' after array element in JSON at position 2"},
	{"{\"a\"", "Expected ':' after property name in JSON at position 4"},
	{"{\"a\":", "Unexpected end of JSON input"},
	{"<html>", "Unexpected token '<', \"<html>\" is not valid JSON"},
	{"{\n\"a\": 1,\n}", "Expected double-quoted property name in JSON at position 10"},
	{"é", "Unexpected token 'é', \"é\" is not valid JSON"},
	{"[\"é\", x]", "Unexpected token 'x', \"[\"é\", x]\" is not valid JSON"},
	{"{\"a\":1,\"b\"}", "Unexpected token '}', \"{\"a\":1,\"b\"}\" is not valid JSON"},
	{"1e+", "Exponent part is missing a number in JSON at position 3"},
	{"+1", "Unexpected token '+', \"+1\" is not valid JSON"},
	{".5", "Unexpected token '.', \".5\" is not valid JSON"},
	{"[,]", "Unexpected token ',', \"[,]\" is not valid JSON"},
	{"{,}", "Expected property name or '}' in JSON at position 1"},
	{"{\"a\":1,,}", "Expected double-quoted property name in JSON at position 7"},
	{"tRue", "Unexpected token 'R', \"tRue\" is not valid JSON"},
	{"\"\t\"", "Bad control character in string literal in JSON at position 1"},
}

// jsonErrorScript returns the message JSON.parse throws for each text.
const jsonErrorScript = `const out = [];
for (const text of TEXTS) {
  try { JSON.parse(text); out.push("ok"); } catch (e) { out.push(e.name + ": " + e.message); }
}
`

func jsonErrorTexts(t *testing.T) string {
	texts := make([]string, len(jsonErrors))
	for i, c := range jsonErrors {
		texts[i] = c.text
	}
	b, err := json.Marshal(texts)
	require.NoError(t, err)
	return strings.Replace(jsonErrorScript, "TEXTS", string(b), 1)
}

func TestJSONErrors(t *testing.T) {
	res, err := run(t, jsonErrorTexts(t)+"return out;", nil, Limits{})
	require.NoError(t, err)
	var got []string
	require.NoError(t, json.Unmarshal(res.Value, &got))
	require.Len(t, got, len(jsonErrors))
	for i, c := range jsonErrors {
		require.Equal(t, "SyntaxError: "+c.msg, got[i], "JSON.parse(%q)", c.text)
	}
	// A valid text still parses, with a reviver, and JSON.parse still
	// looks like the built-in.
	res, err = run(t, `return [JSON.parse('{"a":[1,2]}', (k, v) => typeof v === "number" ? v * 10 : v), JSON.parse.name, JSON.parse.length, "prototype" in JSON.parse]`, nil, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `[{"a":[10,20]},"parse",2,false]`, string(res.Value))
}

func TestJSONErrorsMatchNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required under CI=true (scripts/ installs it)")
		}
		t.Skip("node not installed")
	}
	out, err := exec.Command(node, "-e", jsonErrorTexts(t)+"console.log(JSON.stringify(out))").Output()
	require.NoError(t, err)
	var got []string
	require.NoError(t, json.Unmarshal(out, &got))
	require.Len(t, got, len(jsonErrors))
	for i, c := range jsonErrors {
		require.Equal(t, "SyntaxError: "+c.msg, got[i], "JSON.parse(%q)", c.text)
	}
}

func TestAbsentGlobals(t *testing.T) {
	hints := map[string]string{
		"fetch":          "chains have no network: call tools.* instead",
		"XMLHttpRequest": "chains have no network: call tools.* instead",
		"require":        "chains have no modules: call tools.* for I/O; JSON, URL, crypto and TextEncoder are built in",
		"module":         "a chain is not a CommonJS module: return its result instead",
		"exports":        "a chain is not a CommonJS module: return its result instead",
		"process":        "chains have no process: no env, argv or exit; get inputs from tools.* and return the result",
		"Buffer":         "use Uint8Array, TextEncoder/TextDecoder or atob/btoa instead",
		"__dirname":      "chains have no filesystem: call tools.* instead",
		"__filename":     "chains have no filesystem: call tools.* instead",
		"Deno":           "chains run in airlock, not Deno: call tools.* instead",
		"Bun":            "chains run in airlock, not Bun: call tools.* instead",
	}
	for name, hint := range hints {
		t.Run(name, func(t *testing.T) {
			// Absent, and a caught error reads as V8's.
			res, err := run(t, fmt.Sprintf("let m; try { %s.x } catch (e) { m = e.message } return [typeof %s, %q in globalThis, m]", name, name, name), nil, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, fmt.Sprintf(`["undefined", false, "%s is not defined"]`, name), string(res.Value))
			// Uncaught, the report says what to use instead.
			_, err = run(t, "const a = 1;\nconst v = "+name+".x;", nil, Limits{})
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, "ReferenceError: "+name+" is not defined ("+hint+")", xe.Message)
			require.Equal(t, [2]int{2, 11}, [2]int{xe.Line, xe.Column})
		})
	}
}

func TestToolErrorPosition(t *testing.T) {
	failing := func(_ context.Context, tool string, _ []byte) ([]byte, error) {
		if tool == "lookup" {
			return []byte(`{"status":"denied","reason":"approval_denied","message":"lookup was denied"}`), nil
		}
		return []byte(`{"status":"ok","value":{}}`), nil
	}
	for _, lang := range []Lang{LangJS, LangTS} {
		ann, file := "", "chain.js"
		if lang == LangTS {
			ann, file = ": Promise<unknown>", "chain.ts"
		}
		src := "await tools.echo({});\nasync function find(id" + map[Lang]string{LangJS: "", LangTS: ": number"}[lang] + ")" + ann + " {\n" +
			"  const r = await tools.lookup({ id });\n  return r;\n}\n"
		t.Run(lang.String()+" uncaught", func(t *testing.T) {
			_, err := engine(t).Run(context.Background(), Script{Source: src + "await find(1);\n", Lang: lang, Filename: file}, failing, Limits{})
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, "ToolError: lookup was denied", xe.Message)
			require.Equal(t, [2]int{3, 25}, [2]int{xe.Line, xe.Column})
		})
		t.Run(lang.String()+" caught", func(t *testing.T) {
			res, err := engine(t).Run(context.Background(), Script{Source: src +
				"try { await find(1) } catch (e) { return [e.name, e.tool, e.status, e.reason, e.message, e.stack, e instanceof ToolError] }\n",
				Lang: lang, Filename: file}, failing, Limits{})
			require.NoError(t, err)
			want, _ := json.Marshal([]any{"ToolError", "lookup", "denied", "approval_denied", "lookup was denied",
				"ToolError: lookup was denied\n    at find (" + file + ":3:25)\n    at " + file + ":6:13", true})
			require.JSONEq(t, string(want), string(res.Value))
		})
	}
}

func TestTypeScriptTypeImports(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		value     string // the result, or
		msg       string // the failure
		line, col int
	}{
		{name: "body form", src: "import type { Row } from \"./types\";\nimport { type Cfg, type Opts as O } from './cfg';\n" +
			"export type Id = string;\nexport interface Page { rows: Row[] }\nconst rows: Row[] = [];\nawait tools.echo({});\nreturn rows.length;\n", value: "0"},
		{name: "expression form", src: "import type { Row } from \"./types\";\nconst rows: Row[] = [{ id: 1 } as Row];\nrows.length\n", value: "1"},
		{name: "multi-line type import", src: "import type {\n  Row,\n  Page,\n} from \"./types\";\nconst x: Row | Page | null = null;\nreturn x;\n", value: "null"},
		{name: "value import in the body form", src: "import type { Row } from './types';\nimport { readFile } from 'fs';\nawait tools.echo({});\nreturn readFile;\n",
			msg: "SyntaxError: import is not available in chains: call tools.* instead", line: 2, col: 1},
		{name: "mixed import in the body form", src: "await tools.echo({});\nimport { type Row, parse } from './csv';\nreturn parse;\n",
			msg: "SyntaxError: import is not available in chains: call tools.* instead", line: 2, col: 1},
		{name: "value import in the expression form", src: "import { readFile } from 'fs';\nreadFile('x')\n",
			msg: "SyntaxError: import is not available in chains: call tools.* instead", line: 1, col: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := engine(t).Run(context.Background(), Script{Source: tt.src, Lang: LangTS}, echoBridge, Limits{})
			if tt.msg == "" {
				require.NoError(t, err)
				require.JSONEq(t, tt.value, string(res.Value))
				return
			}
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, tt.msg, xe.Message)
			require.Equal(t, [2]int{tt.line, tt.col}, [2]int{xe.Line, xe.Column})
		})
	}
	// A JavaScript script with a type import is still a syntax error, and
	// not reported as an import.
	_, err := engine(t).Run(context.Background(), Script{Source: "import type { Row } from './t';\nreturn 1;\n"}, echoBridge, Limits{})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.NotContains(t, xe.Message, "import is not available")
}

func TestErrorStacks(t *testing.T) {
	res, err := run(t, `class ValidationError extends Error { constructor(m) { super(m); this.name = "ValidationError"; } }
const out = [];
try { throw new ValidationError("bad row"); } catch (e) { out.push(e.stack); }
function outer() { return inner(); }
function inner() { return new Error("deep").stack; }
out.push(outer());
const o = {}; Error.captureStackTrace(o); out.push(o.stack);
out.push(typeof Error.prepareStackTrace);
Error.prepareStackTrace = (e, sites) => e.message + ":" + sites.length;
out.push(new Error("custom").stack);
Error.prepareStackTrace = undefined;
const e = new TypeError("t"); e.stack = "replaced"; out.push(e.stack);
out.push(String(new RangeError("r")), Object.keys(new Error("k")).length);
return out;`, nil, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `[
		"ValidationError: bad row\n    at script.js:3:13",
		"Error: deep\n    at inner (script.js:5:27)\n    at outer (script.js:4:27)\n    at script.js:6:10",
		"Error\n    at script.js:7:21",
		"undefined",
		"custom:1",
		"replaced",
		"RangeError: r", 0]`, string(res.Value))
}
