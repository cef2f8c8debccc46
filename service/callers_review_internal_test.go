package service

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
)

// TestReviewAnswerAfterTheCallEndedIsExpired: once a call's context ended
// (its chain is being cancelled, or its timer fired) an answer is refused
// as expired even before the waiting call took itself out: the caller is
// never told "taken; the chain goes on" for a call that can no longer take
// it.
func TestReviewAnswerAfterTheCallEndedIsExpired(t *testing.T) {
	s := &Service{opts: Options{Clock: time.Now, MaxCallerResultBytes: 1 << 10}, runs: map[string]*run{}}
	ctx, cancel := context.WithCancel(context.Background())
	rn := newRun("ch_x", "acme", LangJavaScript, func(error) {})
	pc := &pendingCall{answer: make(chan invoker.Answer, 1), ctx: ctx,
		view: CallView{ID: liveCallID("ch_x", 1), ChainID: "ch_x", Tenant: "acme", Seq: 1, ArgsHash: "h", Deadline: time.Now().Add(time.Hour)}}
	rn.calls = map[string]*pendingCall{pc.view.ID: pc}
	s.runs[rn.id] = rn

	cancel() // the chain is cancelled; await has not run endCall yet
	_, _, err := s.AnswerCall(context.Background(), "acme", pc.view.ID, CallAnswer{ArgsHash: "h", Result: json.RawMessage(`1`)})
	require.ErrorIs(t, err, ErrCallExpired)
	require.Empty(t, pc.answer, "nothing was handed to the call")
}
