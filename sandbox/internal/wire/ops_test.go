package wire

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	jsprelude "github.com/airlockrt/airlock/guest-sdk/js"
)

// goOps returns every Op* constant wire.go declares, by its ABI name
// (OpTooLarge → TOO_LARGE), read from the source so that a constant added
// here and nowhere else is seen.
func goOps(t *testing.T) map[string]int64 {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "wire.go", nil, 0)
	require.NoError(t, err)
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	// Only the constants are wanted: imports resolve to empty packages and
	// type errors elsewhere in the file are ignored.
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			p := types.NewPackage(path, path[strings.LastIndex(path, "/")+1:])
			p.MarkComplete()
			return p, nil
		}),
		Error: func(error) {},
	}
	_, _ = conf.Check("wire", fset, []*ast.File{file}, info)
	ops := map[string]int64{}
	for id, obj := range info.Defs {
		c, ok := obj.(*types.Const)
		if !ok || !strings.HasPrefix(id.Name, "Op") || len(id.Name) < 3 || !unicode.IsUpper(rune(id.Name[2])) {
			continue
		}
		v, exact := constant.Int64Val(c.Val())
		require.True(t, exact, id.Name)
		ops[abiName(id.Name)] = v
	}
	require.NotEmpty(t, ops)
	return ops
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// abiName turns OpTooLarge into TOO_LARGE.
func abiName(goName string) string {
	var b strings.Builder
	for i, r := range strings.TrimPrefix(goName, "Op") {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

var (
	jsOpDecl = regexp.MustCompile(`\bOP_([A-Z0-9_]+)\s*=\s*([0-9]+)`)
	jsOpUse  = regexp.MustCompile(`\bOP_([A-Z0-9_]+)\b`)
	abiRow   = regexp.MustCompile(`(?m)^\|\s*([0-9]+)\s*\|\s*([A-Z_]+)\s*\|`)
)

// TestPreludeOpsMatchWire fails when the prelude's OP_* constants and the
// wire package's Op* constants drift apart: every operation must be
// declared on both sides with the same number, no prelude code may use an
// OP_ it does not declare, and guest-sdk/ABI.md's table must agree.
func TestPreludeOpsMatchWire(t *testing.T) {
	want := goOps(t)
	src := jsprelude.Source

	js := map[string]int64{}
	for _, m := range jsOpDecl.FindAllStringSubmatch(src, -1) {
		v, err := strconv.ParseInt(m[2], 10, 64)
		require.NoError(t, err)
		if old, dup := js[m[1]]; dup {
			require.Equal(t, old, v, "OP_%s is declared twice in the prelude with different values", m[1])
		}
		js[m[1]] = v
	}
	for name, v := range want {
		got, ok := js[name]
		require.True(t, ok, "the wire package declares operation %s (%d), the prelude (guest-sdk/js/prelude) has no OP_%s", name, v, name)
		require.Equal(t, v, got, "OP_%s in the prelude differs from the wire package", name)
	}
	for name, v := range js {
		_, ok := want[name]
		require.True(t, ok, "the prelude's OP_%s (%d) has no Op constant in sandbox/internal/wire", name, v)
	}
	for _, m := range jsOpUse.FindAllStringSubmatch(src, -1) {
		_, ok := js[m[1]]
		require.True(t, ok, "the prelude uses OP_%s but declares no such constant", m[1])
	}
	numbers := map[int64]string{}
	for name, v := range want {
		other, dup := numbers[v]
		require.False(t, dup, "Op%s and Op%s share the number %d", name, other, v)
		numbers[v] = name
	}

	abi, err := os.ReadFile("../../../guest-sdk/ABI.md")
	require.NoError(t, err)
	documented := map[string]int64{}
	for _, m := range abiRow.FindAllStringSubmatch(string(abi), -1) {
		v, err := strconv.ParseInt(m[1], 10, 64)
		require.NoError(t, err)
		documented[m[2]] = v
	}
	require.Equal(t, want, documented, "guest-sdk/ABI.md's operation table")
}

// TestAbiName pins the Go → ABI name mapping the drift test relies on.
func TestAbiName(t *testing.T) {
	tests := map[string]string{"OpCall": "CALL", "OpTooLarge": "TOO_LARGE", "OpWhere": "WHERE"}
	for _, goName := range slices.Sorted(maps.Keys(tests)) {
		t.Run(goName, func(t *testing.T) {
			require.Equal(t, tests[goName], abiName(goName))
		})
	}
}
