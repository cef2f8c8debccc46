package service

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
)

// TestEventHistoryBytes: a chain's event history is bounded in bytes, not
// only in count; the newest event is always kept, and the arguments of its
// approval requests go when the chain ends.
func TestEventHistoryBytes(t *testing.T) {
	rn := newRun("ch_1", "acme", LangJavaScript, func(error) {})
	big := strings.Repeat("x", 100<<10)
	for range 30 {
		rn.publish(EventLog, big)
	}
	evs, _, _ := rn.since(0)
	require.Len(t, evs, 10, "10 events of 100KiB fit in 1MiB, 11 do not")
	require.Equal(t, 21, evs[0].seq)
	require.Equal(t, 30, evs[len(evs)-1].seq)
	require.LessOrEqual(t, rn.bytes, maxEventBytes)

	rn.publish(EventLog, strings.Repeat("y", maxEventBytes+1))
	evs, _, _ = rn.since(0)
	require.Len(t, evs, 1, "an event above the bound is kept alone")
	require.Equal(t, 31, evs[0].seq)

	rn.publishApproval(approval.Request{ID: "A1", Tenant: "acme", Args: []byte(`{"k":"` + big + `"}`), ArgsSize: len(big) + 8})
	evs, _, _ = rn.since(0)
	require.Len(t, evs, 1)
	require.Contains(t, string(evs[0].data), big)
	rn.finish(&chain.RunResult{Status: chain.StatusOK})
	evs, _, _ = rn.since(0)
	require.Len(t, evs, 1)
	require.JSONEq(t, `{"id":"A1","tenant":"acme","session_id":"","tool":"","risk":"SAFE","args_hash":"","args_size":102408,"created":"0001-01-01T00:00:00Z"}`, string(evs[0].data))
	require.Equal(t, len(evs[0].data), rn.bytes)
}

// TestParkSizeCountsTheScript: the script kept beside a chain's first
// park counts against approval.max_park_bytes with the state; a later
// park (which keeps none) and a script too large to keep do not count it.
func TestParkSizeCountsTheScript(t *testing.T) {
	res := &chain.RunResult{Parked: &chain.Parked{State: make([]byte, 100)}}
	rn := newRun("ch_1", "acme", LangJavaScript, func(error) {})
	rn.fleet = newFleetRun("", 0)
	rn.script = strings.Repeat("x", 1000)
	require.EqualValues(t, 1100, parkSize(rn, res))
	rn.fleet = newFleetRun("", 1)
	require.EqualValues(t, 100, parkSize(rn, res), "kept once, at the first park")
	rn.fleet = newFleetRun("", 0)
	rn.script = strings.Repeat("x", durable.MaxScriptBytes+1)
	require.EqualValues(t, 100, parkSize(rn, res), "too large to keep, not kept")
}
