package service

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
)

// TestParkedRecordIsBounded: a parked chain's record keeps the first
// maxParkedLogBytes of its stretch's log text and no second copy of its
// trace; its view has the record's trace and arrays, never null.
func TestParkedRecordIsBounded(t *testing.T) {
	res := &chain.RunResult{ID: "ch_1", Status: chain.StatusParked, Reason: chain.ReasonAwaitingApproval,
		Trace: []session.Record{{Seq: 1, Tool: "kv_get", Status: session.StatusOK}}, Parked: &chain.Parked{State: []byte("s")}}
	for range 100 {
		res.Logs = append(res.Logs, sandbox.LogEntry{Level: "info", Text: strings.Repeat("x", 1<<10)})
	}
	rec := parkedResult(res)
	require.Len(t, rec.Logs, maxParkedLogBytes>>10)
	require.True(t, rec.LogsTruncated)
	require.Nil(t, rec.Trace)
	require.Nil(t, rec.Parked)
	require.Len(t, res.Logs, 100, "the chain's own result is not cut")

	small := parkedResult(&chain.RunResult{ID: "ch_1", Status: chain.StatusParked, Logs: res.Logs[:2]})
	require.Len(t, small.Logs, 2)
	require.False(t, small.LogsTruncated)

	v := storedView(&durable.Chain{ID: "ch_1", Tenant: "acme", Status: durable.StatusParked, Trace: res.Trace, Result: small})
	require.Equal(t, res.Trace, v.Result.Trace)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NotContains(t, string(b), "null")
	v = storedView(&durable.Chain{ID: "ch_2", Tenant: "acme", Status: string(chain.StatusInterrupted),
		Result: &chain.RunResult{ID: "ch_2", Status: chain.StatusInterrupted}})
	b, err = json.Marshal(v)
	require.NoError(t, err)
	require.NotContains(t, string(b), "null")
}
