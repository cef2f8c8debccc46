package invoker_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// lateAnswer is an External tool whose answer was taken just as the
// call's deadline passed: its Call sees ctx end, then returns the answer
// (as service's await does when AnswerCall won the race with the timer).
type lateAnswer struct {
	errText string
}

func (lateAnswer) Info() toolbox.Info {
	return toolbox.Info{Name: "asked", Description: "Answered by the chain's caller."}
}
func (lateAnswer) External() {}
func (l lateAnswer) Call(ctx context.Context, _ json.RawMessage) (toolbox.Output, error) {
	<-ctx.Done()
	time.Sleep(20 * time.Millisecond) // the answer is handed back a moment after the timer fired
	if l.errText != "" {
		return toolbox.Output{}, errors.New(l.errText)
	}
	return toolbox.Output{JSON: json.RawMessage(`"taken"`)}, nil
}

// TestReviewExternalAnswerTakenAtDeadlineIsTheResult: an answer the caller
// was told was taken is what the script sees, never call_timeout (nor an
// error answer turned into call_timeout).
func TestReviewExternalAnswerTakenAtDeadlineIsTheResult(t *testing.T) {
	for name, tool := range map[string]lateAnswer{"result": {}, "error": {errText: "no such customer"}} {
		t.Run(name, func(t *testing.T) {
			box, err := toolbox.New(tool)
			require.NoError(t, err)
			inv, err := invoker.New(box, invoker.Options{Policy: invoker.Policy{CallTimeout: 50 * time.Millisecond, ApprovalTimeout: 10 * time.Millisecond}})
			require.NoError(t, err)
			res := inv.Invoke(context.Background(), newSession(inv, "acme"), invoker.Call{Tool: "asked", Args: json.RawMessage(`{}`)})
			if tool.errText != "" {
				require.Equal(t, invoker.ReasonToolError, res.Reason, "%+v", res)
				require.Contains(t, res.Message, tool.errText)
				return
			}
			require.True(t, res.OK(), "%+v", res)
			require.JSONEq(t, `"taken"`, string(res.Value))
		})
	}
}
