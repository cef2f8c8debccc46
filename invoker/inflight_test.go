package invoker_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// TestTenantMemoryBudget: the calls of one tenant waiting for approval hold
// at most Options.MaxTenantInFlightBytes of host memory; the call that
// would take them past it ends at once with error / tenant_memory and a
// trace record saying so, while another tenant's call is approved and runs
// alongside. Everything is released when the calls end.
func TestTenantMemoryBudget(t *testing.T) {
	f := newFixture(t)
	args := json.RawMessage(`{"to":"` + strings.Repeat("x", 16<<10) + `"}`)
	charge := int64(invoker.CallOverhead+len(args)) + invoker.DecodeCost(args)
	asked := make(chan invoker.ApprovalRequest, 8)
	decide := make(chan struct{})
	inv := f.invoker(t, invoker.Options{
		Policy:                 invoker.Policy{MaxRiskUnapproved: toolbox.Safe},
		MaxTenantInFlightBytes: 3*charge + charge/2,
		Approver: invoker.ApprovalFunc(func(ctx context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
			if req.Tenant == "b" {
				return invoker.Approved, nil
			}
			asked <- req
			select {
			case <-decide:
				return invoker.Approved, nil
			case <-ctx.Done():
				return invoker.Denied, ctx.Err()
			}
		}),
	})

	var wg sync.WaitGroup
	results := make([]invoker.Result, 3)
	for i := range results {
		wg.Go(func() {
			results[i] = inv.Invoke(context.Background(), newSession(inv, "a"), invoker.Call{Tool: "send", Args: args})
		})
	}
	for range results {
		<-asked
	}
	require.Equal(t, 3*charge, inv.TenantInFlightBytes("a"), "each waiting call holds its arguments once, canonical as sent")

	sess := newSession(inv, "a")
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send", Args: args})
	require.Equal(t, session.StatusError, res.Status)
	require.Equal(t, invoker.ReasonTenantMemory, res.Reason)
	require.Contains(t, res.Message, "retry when some of them have ended")
	require.Equal(t, invoker.ReasonTenantMemory, sess.Trace()[0].Reason)
	require.Equal(t, 3*charge, inv.TenantInFlightBytes("a"), "a refused call holds nothing")

	// Another tenant is not affected.
	other := inv.Invoke(context.Background(), newSession(inv, "b"), invoker.Call{Tool: "send", Args: args})
	require.True(t, other.OK(), other.Message)
	require.Zero(t, inv.TenantInFlightBytes("b"))

	close(decide)
	wg.Wait()
	for _, r := range results {
		require.True(t, r.OK(), r.Message)
	}
	require.EqualValues(t, 4, f.ran("send"))
	require.Zero(t, inv.TenantInFlightBytes("a"), "everything held is released")
}

// TestTenantMemoryCountsCopies: a canonical form other than the arguments
// as sent is a second copy, and counts; arguments already canonical are
// held once. A call whose arguments alone exceed the budget never runs.
func TestTenantMemoryCountsCopies(t *testing.T) {
	body := strings.Repeat("y", 8<<10)
	sorted := `{"body":"` + body + `","to":"x"}`
	unsorted := `{"to":"x","body":"` + body + `"}`
	entry := int64(invoker.CallOverhead+len(sorted)) + invoker.DecodeCost([]byte(sorted))
	budget := entry + int64(len(sorted)) - 1
	for _, tc := range []struct {
		name, args string
		budget     int64
		reason     string
	}{
		{"canonical held once", sorted, budget, ""},
		{"canonical copy counted", unsorted, budget, invoker.ReasonTenantMemory},
		{"canonical copy within budget", unsorted, budget + 1, ""},
		{"arguments alone too large", sorted, int64(len(sorted)), invoker.ReasonTenantMemory},
		{"decoding counted", sorted, entry - 1, invoker.ReasonTenantMemory},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			inv := f.invoker(t, invoker.Options{MaxTenantInFlightBytes: tc.budget, Approver: invoker.ApprovalFunc(approveAll)})
			res := inv.Invoke(context.Background(), newSession(inv, "a"), invoker.Call{Tool: "send", Args: json.RawMessage(tc.args)})
			require.Equal(t, tc.reason, res.Reason, res.Message)
			require.Zero(t, inv.TenantInFlightBytes("a"))
		})
	}
	_, err := invoker.New(newFixture(t).box, invoker.Options{MaxTenantInFlightBytes: -1})
	require.ErrorIs(t, err, invoker.ErrInvalidOptions)
}

// TestApproverSeesTheCallsOwnArguments: the handler is shown the call's
// frozen arguments, not a copy, so a waiting call holds them once; a
// handler that modifies them fails the call, which never runs other bytes
// than the ones hashed.
func TestApproverSeesTheCallsOwnArguments(t *testing.T) {
	f := newFixture(t)
	args := json.RawMessage(`{"to":"bob"}`)
	var shown json.RawMessage
	inv := f.invoker(t, invoker.Options{Approver: invoker.ApprovalFunc(func(_ context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
		shown = req.Args
		return invoker.Approved, nil
	})})
	require.True(t, inv.Invoke(context.Background(), newSession(inv, "a"), invoker.Call{Tool: "send", Args: args}).OK())
	require.Same(t, &args[0], &shown[0], "canonical arguments are shown as the chain sent them, not copied")

	inv = f.invoker(t, invoker.Options{Approver: invoker.ApprovalFunc(func(_ context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
		copy(req.Args, `{"to":"eve"}`)
		return invoker.Approved, nil
	})})
	sess := newSession(inv, "a")
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send", Args: json.RawMessage(`{"to":"bob"}`)})
	require.Equal(t, session.StatusDenied, res.Status)
	require.Equal(t, invoker.ReasonApprovalFailed, res.Reason)
	require.Contains(t, res.Message, "modified the arguments")
	require.Equal(t, invoker.ReasonApprovalFailed, sess.Trace()[0].Reason)
	require.EqualValues(t, 1, f.ran("send"), "the modified call did not run")
}

// TestDecodeCost: decoding is charged the arguments' length and
// DecodedValueBytes per JSON value, keys included, whatever the spacing;
// strings with escaped quotes are one value.
func TestDecodeCost(t *testing.T) {
	for _, tc := range []struct {
		args   string
		values int
	}{
		{`{}`, 1},
		{`{"to":"bob"}`, 3},
		{`{"a":[0,-1.5e3,true,false,null]}`, 8},
		{`{ "a" : [ 1 , 2 ] , "b":{"c":"x\"y,z"} }`, 9},
		{`{"a":[[],{},""]}`, 6},
		{`{"a":[` + strings.Repeat("0,", 999) + `0]}`, 1003},
		{`{"s":"` + strings.Repeat("x", 1<<20) + `"}`, 3},
	} {
		require.Equal(t, int64(len(tc.args)+tc.values*invoker.DecodedValueBytes), invoker.DecodeCost([]byte(tc.args)), tc.args[:min(len(tc.args), 40)])
	}
}

// TestTenantMemoryCountsDecoding: arguments of many tiny values cost what
// their decoded form may hold, many times their length: 64 KiB of zeros
// take 1.6 MiB, so a budget of 1 MiB refuses them while it takes a 64 KiB
// string.
func TestTenantMemoryCountsDecoding(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{MaxTenantInFlightBytes: 1 << 20})
	zeros := json.RawMessage(`{"list":[` + strings.Repeat("0,", 32<<10) + `0]}`)
	res := inv.Invoke(context.Background(), newSession(inv, "a"), invoker.Call{Tool: "echo", Args: zeros})
	require.Equal(t, invoker.ReasonTenantMemory, res.Reason)
	text := json.RawMessage(`{"text":"` + strings.Repeat("x", 64<<10) + `"}`)
	res = inv.Invoke(context.Background(), newSession(inv, "a"), invoker.Call{Tool: "echo", Args: text})
	require.True(t, res.OK(), res.Message)
}
