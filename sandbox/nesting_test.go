package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNestingLimit submits each shape that makes a recursive parser recurse,
// nested 170,000 deep (what overflowed esbuild's stack and killed the host),
// to Check and Run in JavaScript and TypeScript: each fails cleanly with the
// position of the first construct past MaxNestingDepth, while a healthy chain
// runs alongside on the same engine.
func TestNestingLimit(t *testing.T) {
	const n = 170_000
	e := engine(t)
	tests := []struct {
		name           string
		prefix, unit   string // the source is prefix + n × unit + "x"
		used           int    // levels the prefix (and the unit's own brackets) take
		at             int    // offset in its unit of the construct past the cap
		tok            string // that construct, default unit
		tsOnly, jsOnly bool   // the shape is valid (or dangerous) in one language only
	}{
		{name: "brackets", prefix: "x=", used: 1, unit: "["},
		{name: "parentheses", prefix: "x=", used: 1, unit: "("},
		{name: "blocks", unit: "{"},
		{name: "objects", prefix: "x=", used: 1, unit: "{a:", tok: "{"},
		{name: "not", prefix: "x=", used: 1, unit: "!"},
		{name: "minus", prefix: "x=", used: 1, unit: "- ", tok: "-"},
		{name: "typeof", prefix: "x=", used: 1, unit: "typeof ", tok: "typeof"},
		{name: "void", prefix: "x=", used: 1, unit: "void ", tok: "void"},
		{name: "await", prefix: "x=", used: 1, unit: "await ", tok: "await"},
		{name: "new", prefix: "x=", used: 1, unit: "new ", tok: "new"},
		{name: "arrows", prefix: "x=", used: 1, unit: "a=>", at: 1, tok: "=>"},
		{name: "arrows without parameters", prefix: "x=", used: 1, unit: "()=>", tok: "("},
		{name: "conditional chain", prefix: "x=", used: 1, unit: "a?b:", at: 1, tok: "?"},
		{name: "conditional nest", prefix: "x=", used: 1, unit: "a?", at: 1, tok: "?"},
		{name: "if", unit: "if(x)", used: 1, at: 2, tok: "("},
		{name: "else if", prefix: "if(x);", used: 2, unit: "else if(x);", at: 7, tok: "("},
		{name: "while", unit: "while(x)", used: 1, at: 5, tok: "("},
		{name: "labels", unit: "l:", at: 1, tok: ":"},
		{name: "assignments", unit: "a=", at: 1, tok: "="},
		{name: "exponents", prefix: "x=", used: 1, unit: "a**", at: 1, tok: "**"},
		{name: "members", prefix: "x=a", used: 1, unit: ".b", tok: "."},
		{name: "calls", prefix: "x=a", used: 2, unit: "()", tok: "("},
		{name: "tagged templates", prefix: "x=a", used: 1, unit: "``", tok: "`"},
		{name: "templates", prefix: "x=", used: 1, unit: "`${", at: 1, tok: "$"},
		{name: "array destructuring", prefix: "let ", unit: "["},
		{name: "class extends", prefix: "x=", used: 1, unit: "class extends ", at: 6, tok: "extends"},
		{name: "regex groups", prefix: "x=/", used: 1, unit: "(", jsOnly: true},
		{name: "type arguments", prefix: "let x: ", unit: "A<", at: 1, tok: "<", tsOnly: true},
		{name: "keyof", prefix: "let x: ", unit: "keyof ", tok: "keyof", tsOnly: true},
		{name: "typed arrows", prefix: "x=", used: 1, unit: "(a:any):any=>", tok: "(", tsOnly: true},
	}
	for _, tt := range tests {
		for _, lang := range []Lang{LangJS, LangTS} {
			if tt.tsOnly && lang == LangJS || tt.jsOnly && lang == LangTS {
				continue
			}
			t.Run(tt.name+"/"+lang.String(), func(t *testing.T) {
				src := tt.prefix + strings.Repeat(tt.unit, n) + "x"
				col := len(tt.prefix) + (MaxNestingDepth-tt.used)*len(tt.unit) + tt.at + 1
				tok := tt.tok
				if tok == "" {
					tok = tt.unit
				}
				want := fmt.Sprintf("SyntaxError: nesting deeper than %d levels at 1:%d (%q); flatten the expression", MaxNestingDepth, col, tok)
				s := Script{Source: src, Lang: lang}

				err := e.Check(s)
				var xe *ExitError
				require.ErrorAs(t, err, &xe)
				require.Equal(t, ScriptError, xe.Kind)
				require.Equal(t, 1, xe.Line)
				require.Equal(t, col, xe.Column, "%v", err)
				require.True(t, strings.HasPrefix(xe.Message, want), "%v", err)

				wait := bystander(t, e)
				res, err := e.Run(context.Background(), s, okBridge, Limits{})
				wait()
				require.NotNil(t, res)
				require.ErrorAs(t, err, &xe)
				require.Equal(t, ScriptError, xe.Kind)
				require.Equal(t, 1, xe.Line)
				require.Equal(t, col, xe.Column)
				require.True(t, strings.HasPrefix(xe.Message, want), "%v", err)
			})
		}
	}
}

// TestNestingAccepted checks that ordinary code, large or nesting deep, is
// accepted by Check and runs. That must not depend on the machine: the test
// engine parses without the wall-clock parse budget (TestParseBudget tests
// it), so the test holds every large-parse slot of the process throughout,
// as abandoned parses elsewhere in the process would, and parses all the
// same.
func TestNestingAccepted(t *testing.T) {
	e := engine(t)
	for i := range processParse.slots {
		tenant := fmt.Sprintf("nesting-%d", i)
		require.Nil(t, processParse.acquire(tenant))
		t.Cleanup(func() { processParse.release(tenant) })
	}
	tests := []struct {
		name string
		src  string
	}{
		{name: "500 KB of ordinary code nesting 20 deep", src: ordinaryCode(500 << 10)},
		{name: "nesting at the cap", src: "return " + strings.Repeat("[", MaxNestingDepth-1) + strings.Repeat("]", MaxNestingDepth-1) + ".length"},
		{name: "long binary chains do not nest", src: "return 0" + strings.Repeat(" + 1", 50_000)},
		{name: "statements without semicolons", src: strings.Repeat("x = !a\n", 5_000) + "var x, a; return 1"},
		{name: "object keys that are keywords", src: "const o = {" + strings.Repeat("if: 1, for: 2, while: 3, do: 4, else: 5, ", 200) + "}; return 1"},
		{name: "regex and division", src: "const a = 4, g = 2, i = 1; const r = /[(/]{2}/g; return [a / 2 / i, r.source, `${a / g}`, (a) / 2]"},
	}
	for _, tt := range tests {
		for _, lang := range []Lang{LangJS, LangTS} {
			t.Run(tt.name+"/"+lang.String(), func(t *testing.T) {
				s := Script{Source: tt.src + "\nreturn 1", Lang: lang}
				require.NoError(t, e.Check(s))
				_, err := e.Run(context.Background(), s, okBridge, Limits{})
				require.NoError(t, err)
			})
		}
	}
}

// TestParseBudgets checks the parse-time budgets on sources that stay under
// MaxNestingDepth: many moderately deep groups, and TypeScript that makes
// esbuild's renamer go super-linear.
func TestParseBudgets(t *testing.T) {
	e := engine(t)
	numbered := func(k int) string {
		var b strings.Builder
		b.WriteString("var a")
		for i := 2; i <= k; i++ {
			fmt.Fprintf(&b, ",a%d", i)
		}
		b.WriteString(";\n")
		b.WriteString(strings.Repeat("(a=>0);", k))
		return b.String()
	}
	tests := []struct {
		name string
		src  string
		lang Lang
		want string
	}{
		{name: "arrows 120 deep, many times", src: strings.Repeat("x="+strings.Repeat("()=>", 120)+"0;\n", 1000), lang: LangJS,
			want: "SyntaxError: too much deeply nested code to parse at "},
		{name: "arrows 120 deep, many times", src: strings.Repeat("x="+strings.Repeat("()=>", 120)+"0;\n", 1000), lang: LangTS,
			want: "SyntaxError: too much deeply nested code to parse at "},
		{name: "shadowing arrows 100 deep", src: strings.Repeat("x="+strings.Repeat("a=>", 100)+"a;\n", 40), lang: LangTS,
			want: "SyntaxError: the script is too costly to transpile at "},
		{name: "numbered names", src: numbered(8000), lang: LangTS,
			want: "SyntaxError: the script is too costly to transpile at "},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.lang.String(), func(t *testing.T) {
			s := Script{Source: tt.src, Lang: tt.lang}
			err := e.Check(s)
			var xe *ExitError
			require.ErrorAs(t, err, &xe)
			require.Equal(t, ScriptError, xe.Kind)
			require.Positive(t, xe.Line)
			require.True(t, strings.HasPrefix(xe.Message, tt.want), "%v", err)
			require.Contains(t, xe.Message, fmt.Sprintf("at %d:%d", xe.Line, xe.Column))
			_, err = e.Run(context.Background(), s, okBridge, Limits{})
			require.ErrorAs(t, err, &xe)
			require.True(t, strings.HasPrefix(xe.Message, tt.want), "%v", err)
		})
	}
	// The same numbered names in JavaScript only cost a linear check.
	require.NoError(t, e.Check(Script{Source: numbered(8000)}))
}

// ordinaryCode returns about size bytes of ordinary code nesting about 20
// deep.
func ordinaryCode(size int) string {
	const unit = `function handler%d(input, options) {
	const result = [];
	for (const item of input.items) {
		if (item.kind === "a" && options.strict) {
			result.push({ id: item.id, value: item.value * 2, tags: [...item.tags, "x"] });
		} else if (item.kind === "b") {
			const sub = item.children.map((c) => ({ name: c.name, total: c.values.reduce((a, b) => a + b, 0) }));
			result.push(...sub.filter((s) => s.total > 10 ? s.name !== "" : false));
		} else {
			try { result.push(JSON.parse(item.raw)) } catch (e) { console.log("bad item", item.id, e.message) }
		}
	}
	return { [options.key ?? "data"]: result, count: result.length, ok: !result.some((r) => r == null) };
}
const deep%d = () => { if (a) { if (b) { while (c) { for (;;) { do { switch (d) { case 1: { label: { try { x = ((((((((1)))))))) } finally {} } } } } while (e) } } } } };
`
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, unit, i, i)
	}
	return b.String()
}
