package chain_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
)

// TestGovernanceReachesTheScript: a script sees a governance refusal as a
// ToolError with its reason, the preview of a call that met the preview
// gate, and the retry delay of a rate-limited one; its idempotency key
// argument never reaches the tool.
func TestGovernanceReachesTheScript(t *testing.T) {
	e := newEnv(t, invoker.Options{Governor: govern.New(govern.Options{
		Rates: map[string]govern.Rate{"lookup": {N: 1, Per: time.Hour}},
	})})
	preview := &govern.Profile{Name: "preview", Scopes: []string{"*"},
		Matrix: govern.Matrix{govern.Supervised: {govern.Allow, govern.Preview, govern.Preview}}}
	res := e.run(t, `
		const out = {};
		try { await tools.send({to: "ops"}); } catch (e) { out.send = [e.status, e.reason, e.preview]; }
		await tools.lookup({id: 1});
		try { await tools.lookup({id: 2}); } catch (e) { out.lookup = [e.reason, e.retryAfterMs > 0]; }
		return out;`, chain.Options{Tenant: "acme", Profile: preview})
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `{"send":["denied","preview_required",{"tool":"send","risk":"HIGH","executed":false}],
		"lookup":["rate_limited",true]}`, string(res.Value))
	require.Equal(t, "preview", res.Trace[0].Gate)
	require.NotEmpty(t, res.Trace[0].DecisionID)
	require.Zero(t, e.sent.Load())

	// The read-only default profile grants no scopes; the tools here
	// require none, so the default matrix applies: HIGH needs approval.
	res = e.run(t, `try { await tools.send({to: "ops"}); } catch (e) { return e.reason; }`, chain.Options{Tenant: "acme"})
	require.JSONEq(t, `"no_approval_handler"`, string(res.Value))
}

func TestEnvelopeCarriesPreviewAndRetry(t *testing.T) {
	b := chain.Envelope(invoker.Result{Status: "denied", Reason: "preview_required", Message: "m", Preview: json.RawMessage(`{"a":1}`)})
	require.Equal(t, `{"status":"denied","reason":"preview_required","message":"m","preview":{"a":1}}`, string(b))
	b = chain.Envelope(invoker.Result{Status: "error", Reason: "rate_limited", Message: "m", RetryAfter: 1500 * time.Microsecond})
	require.Equal(t, `{"status":"error","reason":"rate_limited","message":"m","retry_after_ms":1}`, string(b))
}
