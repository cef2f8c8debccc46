package srcmap

import (
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
