package sandbox

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

var topLevelReturnCases = []struct {
	src  string
	want bool
}{
	{"return 1", true},
	{"const r = await tools.x({q: `a${b}c`});\nreturn r.value", true},
	{"let s = 0;\nfor (let i = 0; i < 10; i++) s += i;\nreturn s", true},
	{"const re = /return/g; return re.source", true},
	{"const a = [1, 2].map((x) => { return x * 2; });\nreturn a", true},
	{"x = a / b; return x", true},
	{"x = a[0] / 2 / 3; return x", true},
	{"// return\nreturn 1", true},
	{"/* { */ return 1", true},
	{"return", true},
	{"const s = `${`${'}'}`}`; return s", true},
	{"1 + 1", false},
	{"async () => { return 1 }", false},
	{"function f() { return 1 }\nf()", false},
	{"x.return = 1; x.return", false},
	{"x?.return", false},
	{"'return'", false},
	{"`return ${x}`", false},
	{"// return", false},
	{"/* return */ 1", false},
	{"if (x) { return 1 }", false},           // a top-level return, inside a block: not looked for
	{"if (x) /re/.test(y); return 1", false}, // `/` after `)`: not followed
	{"{}\n/return/.test(x)", false},          // `/` after `}`: not followed
	{"x = 1 <!-- return 2", false},           // an HTML-like comment
	{"-->return 1", false},
	{"const rétour = 1; return rétour", false}, // non-ASCII: not followed
	{"const s = 'unterminated; return 1", false},
	{"x = a\\u0072eturn; return 1", false},
	{"await / 2 / return", false},
	{"x = y++ / 2; return x", false}, // `/` after `++`: not followed
	{"x = ++/re/.lastIndex; return x", false},
	{"class A { #return = 1; m() { return this.#return } }\nnew A().m()", false},
	{"return}", true},
	{")return 1", false},
}

func TestTopLevelReturn(t *testing.T) {
	for _, tt := range topLevelReturnCases {
		require.Equal(t, tt.want, topLevelReturn(tt.src), "%q", tt.src)
	}
}

// compilesAsScript asks the guest engine whether src compiles (and passes
// global declaration instantiation) as a strict script, as the prelude's
// first try evaluates it, without running it.
func compilesAsScript(t testing.TB, src string) bool {
	lit, err := json.Marshal(`"use strict";throw 0;` + src)
	require.NoError(t, err)
	res, err := engine(t).Run(context.Background(), Script{Source: "try { (0, eval)(" + string(lit) + ") } catch (e) { return e === 0 }"}, okBridge, Limits{})
	require.NoError(t, err)
	return string(res.Value) == "true"
}

// TestTopLevelReturnNeverCompiles checks what the prelude relies on: a
// source topLevelReturn answers true for never compiles as a script.
func TestTopLevelReturnNeverCompiles(t *testing.T) {
	for _, tt := range topLevelReturnCases {
		if tt.want {
			require.False(t, compilesAsScript(t, tt.src), "%q", tt.src)
		}
	}
	require.True(t, compilesAsScript(t, "1 + 1"))
}

func FuzzTopLevelReturn(f *testing.F) {
	for _, tt := range topLevelReturnCases {
		f.Add(tt.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if topLevelReturn(src) {
			require.False(t, compilesAsScript(t, src), "%q", src)
		}
	})
}
