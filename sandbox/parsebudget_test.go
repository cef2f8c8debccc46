package sandbox

import (
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"
)

// TestParseBudget: a large source whose parse outlasts its budget is
// refused with the budget in the message, and while the abandoned parse
// still runs no other large parse starts: the host spends at most one core
// on such sources. Small sources are never held up. The budget's clock and
// the parser are the test's, so nothing depends on how fast the machine is.
func TestParseBudget(t *testing.T) {
	storm := strings.Repeat("let x;\n", 300) // 2100 bytes
	release := make(chan struct{})
	var budgets []time.Duration
	expire := true
	pb := &parseBudget{
		inline:  1 << 10,
		base:    time.Second,
		perByte: time.Millisecond,
		slot:    make(chan struct{}, 1),
		after: func(d time.Duration) (<-chan time.Time, func() bool) {
			budgets = append(budgets, d)
			c := make(chan time.Time, 1)
			if expire {
				c <- time.Time{}
			}
			return c, func() bool { return true }
		},
		transform: func(src string, opts api.TransformOptions) api.TransformResult {
			if src == storm {
				<-release // the parse outlasts any budget
			}
			return api.Transform(src, opts)
		},
	}

	err := check(Script{Source: storm}, pb)
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, ScriptError, xe.Kind)
	require.Equal(t, "SyntaxError: the script is too costly to parse (over 3.1s): many repeated errors such as names declared twice; fix the first ones and resubmit", xe.Message)
	require.Equal(t, []time.Duration{time.Second + 2100*time.Millisecond}, budgets, "base + perByte × length")

	big := "return 1;\n" + strings.Repeat("f([1, 2, 3]);\n", 200)
	err = check(Script{Source: big}, pb)
	require.ErrorAs(t, err, &xe, "the abandoned parse still runs")
	require.Equal(t, ScriptError, xe.Kind)
	require.Equal(t, "SyntaxError: the host is parsing another large script; retry in a moment, or send a smaller one", xe.Message)
	require.NoError(t, check(Script{Source: "return 1"}, pb), "small sources parse inline")
	require.Len(t, budgets, 1, "only large sources that start a parse start a budget")

	// The abandoned parse ends on its own; then large sources parse again,
	// within a budget that does not run out.
	close(release)
	require.Eventually(t, func() bool { return len(pb.slot) == 0 }, time.Minute, time.Millisecond)
	expire = false
	require.NoError(t, check(Script{Source: big}, pb))
	require.NoError(t, check(Script{Source: big, Lang: LangTS}, pb))
	// A source parsed twice in a row (as it is, then in the body form) finds
	// the slot its first parse held free again.
	for range 100 {
		require.NoError(t, check(Script{Source: "const s = 'export';\n" + big}, pb))
		require.NoError(t, check(Script{Source: "await 1;\n" + big}, pb))
	}
}

// TestParseBudgetDefault: Check and every engine parse within the
// process's one budget (the shared test engine is given noParseBudget).
func TestParseBudgetDefault(t *testing.T) {
	require.Equal(t, 64<<10, processParse.inline)
	require.Equal(t, time.Second, processParse.base)
	require.Equal(t, 2*time.Microsecond, processParse.perByte)
	require.Equal(t, 1, cap(processParse.slot))
	require.Nil(t, processParse.after, "the real clock")
	require.Nil(t, processParse.transform, "esbuild")
}
