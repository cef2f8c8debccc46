package sandbox

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStackOverflowPosition: an uncaught recursion too deep fails the run
// with the position of its stack's first frame (the first statement of
// the function that could not be called, as V8 places it), and a caught
// one has a stack of the script's frames, at every stack limit a run may
// be given that leaves QuickJS room to throw; a stack too small for that
// still ends with LimitStack.
func TestStackOverflowPosition(t *testing.T) {
	const src = "function deeper(n) {\n  const next = n + 1;\n  return deeper(next) + 1;\n}\nreturn deeper(0);"
	const caught = "function deeper(n) {\n  const next = n + 1;\n  return deeper(next) + 1;\n}\n" +
		"try { deeper(0) } catch (e) { return e.stack.split('\\n') }"
	for _, stack := range []int{0, 20 << 10, 32 << 10, 40 << 10} {
		_, err := run(t, src, nil, Limits{MaxStackBytes: stack})
		var xe *ExitError
		require.True(t, errors.As(err, &xe), "%v", err)
		require.Equal(t, ScriptError, xe.Kind)
		require.Equal(t, "RangeError: Maximum call stack size exceeded", xe.Message)
		require.Equal(t, 2, xe.Line, "stack %d", stack)
		require.Equal(t, 16, xe.Column, "stack %d", stack)

		res, err := run(t, caught, nil, Limits{MaxStackBytes: stack})
		require.NoError(t, err)
		require.JSONEq(t, `["RangeError: Maximum call stack size exceeded",
			"    at deeper (script.js:2:16)",
			"    at deeper (script.js:3:10)", "    at deeper (script.js:3:10)", "    at deeper (script.js:3:10)",
			"    at deeper (script.js:3:10)", "    at deeper (script.js:3:10)", "    at deeper (script.js:3:10)",
			"    at deeper (script.js:3:10)", "    at deeper (script.js:3:10)", "    at deeper (script.js:3:10)"]`, string(res.Value))
	}
	_, err := run(t, src, nil, Limits{MaxStackBytes: 4 << 10})
	var xe *ExitError
	require.True(t, errors.As(err, &xe), "%v", err)
	require.Equal(t, LimitExceeded, xe.Kind)
	require.Equal(t, LimitStack, xe.Limit)
}

// TestStackOverflowHookBounded: a script's own Error.prepareStackTrace
// runs for the overflow too, with no more stack than the room the limit
// keeps for it: one that recurses without end is stopped there (the error
// then has no stack), the error is still caught, the hard floor is not
// reached, and the next run on the engine is not affected.
func TestStackOverflowHookBounded(t *testing.T) {
	for _, prep := range []string{
		"function p(e, s) { return p(e, s) }",
		"function p(e, s) { try { return p(e, s) } catch (x) { return 'inner' } }",
		"(e, s) => { const a = []; for (const c of s) a.push(c.getFunctionName()); return a.join(',') }",
	} {
		res, err := run(t, "Error.prepareStackTrace = "+prep+";\nfunction f(n) { return f(n + 1) + 1 }\n"+
			"try { f(0) } catch (e) { return [e.name, typeof e.stack] }", nil, Limits{})
		require.NoError(t, err, prep)
		require.Contains(t, []string{`["RangeError","object"]`, `["RangeError","string"]`}, string(res.Value), prep)
		res, err = run(t, "function f(n) { return f(n + 1) + 1 }\ntry { f(0) } catch (e) { return e.stack.split('\\n').length }", nil, Limits{})
		require.NoError(t, err)
		require.Equal(t, "11", string(res.Value))
	}
}
