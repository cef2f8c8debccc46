package sandbox

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"
)

// TestCompileOnce: a compiled program is parsed (and, for TypeScript,
// transpiled) once, by Compile; running it parses nothing again, however
// often it runs. Check then Run parsed a TypeScript script twice.
func TestCompileOnce(t *testing.T) {
	var parses atomic.Int32
	pb := &parseBudget{inline: math.MaxInt, transform: func(src string, o api.TransformOptions) api.TransformResult {
		parses.Add(1)
		return api.Transform(src, o)
	}}
	e := engine(t)
	for _, tc := range []struct {
		name string
		s    Script
		want string
	}{
		{"typescript", Script{Source: "const n: number = await tools.add({a: 1});\nreturn n.tool + ':' + (6 * 7);", Lang: LangTS}, `"add:42"`},
		{"javascript", Script{Source: "const n = await tools.add({a: 1});\nreturn n.tool + ':' + (6 * 7);", Lang: LangJS}, `"add:42"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parses.Store(0)
			prep, err := compile(context.Background(), tc.s, pb)
			require.NoError(t, err)
			once := parses.Load() // a script form, then the async-function form top-level return needs
			require.Positive(t, once)
			p := &Program{script: tc.s, prep: prep}
			for range 3 {
				res, err := e.RunProgram(context.Background(), p, okBridge, Limits{})
				require.NoError(t, err)
				require.JSONEq(t, tc.want, string(res.Value))
			}
			require.Equal(t, once, parses.Load(), "running a program parses nothing again")
			if tc.s.Lang == LangTS {
				// What Check then Run did: the same parses twice.
				parses.Store(0)
				require.NoError(t, check(context.Background(), tc.s, pb))
				_, err := prepare(context.Background(), tc.s, pb)
				require.NoError(t, err)
				require.Equal(t, 2*once, parses.Load())
			}
		})
	}
}

// TestCompileRefusesWhatCheckRefuses: Compile and Check give the same
// error, with its position, for every kind of bad script; a nil Program or
// Bridge is refused.
func TestCompileRefusesWhatCheckRefuses(t *testing.T) {
	e := engine(t)
	for _, s := range []Script{
		{Source: "return (", Lang: LangJS},
		{Source: "let x: = 1", Lang: LangTS},
		{Source: "export default async function () {}", Lang: LangJS},
		{Source: "return 1\x00", Lang: LangJS},
		{Source: "return 1", Lang: Lang(9)},
	} {
		_, cerr := e.Compile(context.Background(), s)
		require.Error(t, cerr)
		require.Equal(t, e.Check(s).Error(), cerr.Error())
		var a, b *ExitError
		if errors.As(cerr, &a) {
			require.True(t, errors.As(e.Check(s), &b))
			require.Equal(t, [2]int{b.Line, b.Column}, [2]int{a.Line, a.Column})
		}
	}
	_, err := e.RunProgram(context.Background(), nil, okBridge, Limits{})
	require.ErrorIs(t, err, ErrInvalidScript)
	p, err := e.Compile(context.Background(), Script{Source: "return 1"})
	require.NoError(t, err)
	_, err = e.RunProgram(context.Background(), p, nil, Limits{})
	require.ErrorIs(t, err, ErrInvalidScript)
}

// TestProgramWith: With sets a run's own fields on a copy; the program is
// unchanged, and a TypeScript program's errors still map to its lines.
func TestProgramWith(t *testing.T) {
	e := engine(t)
	p, err := e.Compile(context.Background(), Script{Source: "type T = {a: number};\nconst x: T = {a: 1};\nthrow new Error('boom ' + x.a);", Lang: LangTS})
	require.NoError(t, err)
	q := p.With(nil, true)
	require.True(t, q.Script().Park)
	require.False(t, p.Script().Park)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = e.RunProgram(ctx, q, okBridge, Limits{})
	var xe *ExitError
	require.True(t, errors.As(err, &xe), "%v", err)
	require.Equal(t, 3, xe.Line)
	require.Contains(t, xe.Message, "boom 1")
}
