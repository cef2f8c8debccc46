package sandbox

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestParseBudget: a large source that costs esbuild far more than its size
// (a storm of recovered errors, each of whose notes points back into the
// source) is refused at its budget, and while it still runs on no other
// large parse starts: the host spends at most one core on such sources.
// Small sources are never held up.
func TestParseBudget(t *testing.T) {
	defer func(b int, base, per time.Duration) {
		inlineParseBytes, parseBudgetBase, parseBudgetPerByte = b, base, per
	}(inlineParseBytes, parseBudgetBase, parseBudgetPerByte)
	inlineParseBytes, parseBudgetBase, parseBudgetPerByte = 1<<10, 20*time.Millisecond, 0

	storm := strings.Repeat("let x;\n", 6000) // esbuild: about half a second
	err := Check(Script{Source: storm})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, ScriptError, xe.Kind)
	require.Equal(t, "SyntaxError: the script is too costly to parse (over 20ms): many repeated errors such as names declared twice; fix the first ones and resubmit", xe.Message)

	big := "return 1;\n" + strings.Repeat("f([1, 2, 3]);\n", 200)
	err = Check(Script{Source: big})
	require.ErrorAs(t, err, &xe, "the abandoned parse still runs")
	require.Equal(t, "SyntaxError: the host is parsing another large script; retry in a moment, or send a smaller one", xe.Message)
	require.NoError(t, Check(Script{Source: "return 1"}), "small sources parse inline")

	// The abandoned parse ends on its own; then large sources parse again.
	require.Eventually(t, func() bool { return len(largeParse) == 0 }, time.Minute, 10*time.Millisecond)
	parseBudgetBase = time.Minute
	require.NoError(t, Check(Script{Source: big}))
}
