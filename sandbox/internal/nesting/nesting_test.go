package nesting

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScan(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		ts    bool
		depth int
	}{
		{name: "empty", src: "", depth: 0},
		{name: "brackets", src: "[[[]]]", depth: 3},
		{name: "prefix operators", src: "x=!!!a", depth: 4},
		{name: "prefix operators end at a binary operator", src: "!a+!b+!c", depth: 1},
		{name: "arrows", src: "a=>b=>c", depth: 2},
		{name: "braceless ifs", src: "if(x)if(y)if(z);", depth: 4},
		{name: "else if chain", src: "if(a)x;else if(b)x;else if(c)x;", depth: 4},
		{name: "else if blocks", src: "if(a){}else if(b){}else if(c){}", depth: 4},
		{name: "statements end with a semicolon", src: "if(x)if(y)a;if(x)a;", depth: 3},
		{name: "statements end with a line break", src: "x = !!a\nx = !!a\nx = !!a", depth: 3},
		{name: "member chain", src: "a.b.c.d", depth: 3},
		{name: "call chain", src: "f()()()", depth: 4},
		{name: "conditional chain", src: "x=a?b:c?d:e", depth: 3},
		{name: "labels", src: "foo: bar: baz: ;", depth: 3},
		{name: "comma ends an expression", src: "f(!!a, !!b, !!c)", depth: 4},
		{name: "exponent chain", src: "a ** b ** c", depth: 2},
		{name: "strings hide brackets", src: `x = "((((" + '[[[[' + "\"(("`, depth: 1},
		{name: "comments hide brackets", src: "x = 1 // ((((\n/* [[[[ */ y", depth: 1},
		{name: "regex hides brackets but counts groups", src: "x = /[(((]\\(((a))/", depth: 3},
		{name: "division is not a regex", src: "x = a / (b) / [c]", depth: 2},
		{name: "regex after a statement head", src: "if (x) /((a))/.test(y)", depth: 4},
		{name: "await regex in an async function", src: "async function f(){ await /((a))/ }", depth: 4},
		{name: "await division in a plain function", src: "function f(){ await / (2) }", depth: 2},
		{name: "template substitutions nest", src: "x = `a${`b${`c${d}`}`}`", depth: 4},
		{name: "keyword property names", src: "o = {if: 1, for: 2, while: 3}", depth: 2},
		{name: "function declarations do not stack", src: "function f(){}\nfunction g(){}\nfunction h(){}", depth: 1},
		{name: "type arguments", src: "let x: A<B<C>> = 1", ts: true, depth: 2},
		{name: "keyof", src: "let x: keyof keyof T", ts: true, depth: 2},
		{name: "type assertions", src: "x = <any><any>a", ts: true, depth: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Scan(tt.src, Config{MaxDepth: 256, TS: tt.ts})
			require.False(t, r.Over())
			require.Equal(t, None, r.Limit)
			require.Equal(t, tt.depth, r.Depth)
		})
	}
}

// TestScanShapes checks that every attack shape, nested 170,000 deep, stops
// the scan within its first MaxDepth+1 levels, and that 60 levels of it
// pass.
func TestScanShapes(t *testing.T) {
	const maxDepth = 128
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			r := Scan(sh.gen(170_000), Config{MaxDepth: maxDepth, TS: sh.ts})
			require.True(t, r.Over())
			require.Equal(t, Depth, r.Limit)
			require.Equal(t, maxDepth+1, r.Depth)
			require.Less(t, r.Offset, len(sh.gen(maxDepth+1)))
			require.NotEmpty(t, r.Token)

			r = Scan(sh.gen(60), Config{MaxDepth: maxDepth, TS: sh.ts})
			require.False(t, r.Over(), "%+v", r)
		})
	}
}

func TestScanBudgets(t *testing.T) {
	deep := strings.Repeat("x="+rep("(", 100)+rep(")", 100)+";\n", 100)
	r := Scan(deep, Config{MaxDepth: 128, MaxDepthWork: 100_000})
	require.Equal(t, DepthWork, r.Limit)
	require.Greater(t, r.DepthWork, uint64(100_000))
	require.Less(t, r.Offset, len(deep))

	shadow := "x=" + rep("a=>", 100) + "a"
	r = Scan(shadow, Config{MaxDepth: 128, TS: true, MaxWork: 50_000})
	require.Equal(t, Work, r.Limit)
	require.Equal(t, "a", r.Token)

	// JavaScript has no renamer estimate.
	r = Scan(shadow, Config{MaxDepth: 128, MaxWork: 1})
	require.False(t, r.Over())
	require.Zero(t, r.Work)
}

// bracketDepth is the reference for bracket-only sources: the deepest
// stack of open brackets, a closer that does not match being ignored, and
// the offset of the first opener past max (-1 if none).
func bracketDepth(src string, max int) (depth, over int) {
	var stack []byte
	over = -1
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '(', '[', '{':
			stack = append(stack, c)
			if len(stack) > depth {
				depth = len(stack)
			}
			if len(stack) > max && over < 0 {
				return max + 1, i
			}
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if len(stack) > 0 && stack[len(stack)-1] == open {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return depth, over
}

// FuzzNesting feeds arbitrary sources to Scan: it must not panic, must
// report a violation exactly when its depth is past the cap, and on sources
// made only of brackets (with a comma before any '(' or '[' that follows a
// closer, which would otherwise be a call or an index) must agree with a
// plain bracket counter.
func FuzzNesting(f *testing.F) {
	// testdata/fuzz/FuzzNesting holds every attack shape nested 300 deep.
	f.Add("([{}])", false)
	f.Add("`${`${/(/}`}`", false)
	f.Add("x = a\n/(/g", true)
	f.Fuzz(func(t *testing.T, src string, ts bool) {
		const max = 64
		r := Scan(src, Config{MaxDepth: max, TS: ts, MaxWork: 1 << 20, MaxDepthWork: 1 << 20})
		require.GreaterOrEqual(t, r.Depth, 0)
		if r.Over() {
			require.Less(t, r.Offset, len(src))
			if r.Limit == Depth {
				require.Equal(t, max+1, r.Depth)
			}
		} else {
			require.LessOrEqual(t, r.Depth, max)
			require.LessOrEqual(t, r.DepthWork, uint64(1<<20))
		}

		var b strings.Builder
		for i := 0; i < len(src); i++ {
			c := src[i]
			if !strings.ContainsRune("()[]{}", rune(c)) {
				continue
			}
			if (c == '(' || c == '[') && b.Len() > 0 && strings.ContainsRune(")]}", rune(b.String()[b.Len()-1])) {
				b.WriteByte(',')
			}
			b.WriteByte(c)
		}
		brackets := b.String()
		r = Scan(brackets, Config{MaxDepth: max})
		depth, over := bracketDepth(brackets, max)
		require.Equal(t, depth, r.Depth, "%q", brackets)
		require.Equal(t, over, r.Offset, "%q", brackets)
	})
}
