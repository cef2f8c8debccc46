package chain_test

import (
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeExample keeps README.md's Go program and Example in step: the
// README program's imports are the example file's, its main body is the
// example's code between the readme markers, and the output it shows is the
// example's Output. A README edit that is not also made to the example (or
// the other way round) fails here, and the example itself is compiled and
// run by go test.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("example_test.go")
	require.NoError(t, err)

	program := fenced(t, string(readme), "go")
	out := fenced(t, string(readme)[strings.Index(string(readme), program):], "text")

	fset := token.NewFileSet()
	readmeFile, err := parser.ParseFile(fset, "README.md", program, parser.ImportsOnly)
	require.NoError(t, err, "the README's Go block is a complete program")
	require.Equal(t, "main", readmeFile.Name.Name)
	exampleFile, err := parser.ParseFile(fset, "example_test.go", example, parser.ImportsOnly)
	require.NoError(t, err)
	var got, want []string
	for _, s := range readmeFile.Imports {
		got = append(got, s.Path.Value)
	}
	for _, s := range exampleFile.Imports {
		want = append(want, s.Path.Value)
	}
	require.Equal(t, want, got, "README imports")

	body := between(t, program, "func main() {\n", "\n}\n")
	marked := between(t, string(example), "\t// readme:begin\n", "\t// readme:end\n")
	require.Equal(t, dedent(marked), dedent(body+"\n"), "README main body vs chain/example_test.go between the readme markers")

	var printed []string
	for _, l := range strings.Split(between(t, string(example), "// Output:\n", "\n}"), "\n") {
		printed = append(printed, strings.TrimPrefix(strings.TrimSpace(l), "// "))
	}
	require.Equal(t, strings.Join(printed, "\n")+"\n", out, "README output vs the example's Output")
}

// fenced returns the content of the first ```lang block of md.
func fenced(t *testing.T, md, lang string) string {
	t.Helper()
	return between(t, md, "```"+lang+"\n", "```\n")
}

// between returns the text of s after the first start and before the next end.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, start)
	require.True(t, ok, "missing %q", start)
	in, _, ok := strings.Cut(rest, end)
	require.True(t, ok, "missing %q after %q", end, start)
	return in
}

// dedent removes one leading tab from every line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}
