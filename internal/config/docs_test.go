package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

// TestLimitsDoc: docs/limits.md lists every setting of the policy and the
// sandbox limits with its default, so adding a limit to its owner without
// documenting it fails here.
func TestLimitsDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/limits.md")
	require.NoError(t, err)
	doc := string(b)
	for _, d := range invoker.PolicySettings() {
		require.Contains(t, doc, "| `policy."+d.Key+"` | "+d.Default+" | "+d.Doc+" |", "docs/limits.md must list policy.%s", d.Key)
	}
	for _, d := range sandbox.LimitSettings() {
		require.Contains(t, doc, "| `limits."+d.Key+"` | "+d.Default+" | "+d.Doc+" |", "docs/limits.md must list limits.%s", d.Key)
	}
	require.Equal(t, len(invoker.PolicySettings())+len(sandbox.LimitSettings()),
		strings.Count(doc, "| `policy.")+strings.Count(doc, "| `limits."), "docs/limits.md lists a setting no owner has")
}
