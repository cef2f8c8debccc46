package srcmap

import (
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"
)

func TestLookupAgainstEsbuild(t *testing.T) {
	src := "const a: number = 1;\n\n\ninterface X { y: string }\nfunction f(x: X): string {\n  return x.y.toUpperCase();\n}\n"
	r := api.Transform(src, api.TransformOptions{Loader: api.LoaderTS, Sourcemap: api.SourceMapExternal})
	require.Empty(t, r.Errors)
	m, err := Parse(r.Map)
	require.NoError(t, err)
	// "return x.y" is on generated line 2 (0-based), column 2.
	line, col, ok := m.Lookup(2, 2)
	require.True(t, ok)
	require.Equal(t, 5, line)
	require.Equal(t, 2, col)
	_, _, ok = m.Lookup(99, 0)
	require.False(t, ok)
}

func TestParseRejectsGarbage(t *testing.T) {
	for _, bad := range []string{`{`, `{"version":2}`, `{"version":3,"mappings":"!"}`, `{"version":3,"mappings":"g"}`} {
		_, err := Parse([]byte(bad))
		require.Error(t, err, bad)
	}
}

func TestSegment(t *testing.T) {
	src := "const a: number = 1;\nfunction f(x: { y: string }): string {\n  return x.y.toUpperCase();\n}\n"
	r := api.Transform(src, api.TransformOptions{Loader: api.LoaderTS, Sourcemap: api.SourceMapExternal})
	require.Empty(t, r.Errors)
	m, err := Parse(r.Map)
	require.NoError(t, err)
	// Generated line 2 is "  return x.y.toUpperCase();" and source line 2
	// "  return x.y.toUpperCase();" too: a column inside "toUpperCase" finds
	// the mapping at the start of its token, or of an earlier one, with the
	// same text between it and the column in both.
	gen := strings.Split(string(r.Code), "\n")[2]
	srcLine := strings.Split(src, "\n")[2]
	col := strings.Index(gen, "UpperCase")
	sl, sc, gc, ok := m.Segment(2, col)
	require.True(t, ok)
	require.Equal(t, 2, sl)
	require.Less(t, gc, col)
	require.Equal(t, gen[gc:col], srcLine[sc:sc+col-gc])
	l2, c2, ok := m.Lookup(2, col)
	require.True(t, ok)
	require.Equal(t, [2]int{sl, sc}, [2]int{l2, c2})
	_, _, _, ok = m.Segment(99, 0)
	require.False(t, ok)
}
