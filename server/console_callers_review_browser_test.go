package server_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestReviewConsoleParkedCallIsNotADecisionInBrowser: a parked chain
// waiting for a caller tool's answer does not send the person to the
// approvals to decide it (a call is no approval: it is not listed there,
// and only the chain's submitter answers it); the page says so.
func TestReviewConsoleParkedCallIsNotADecisionInBrowser(t *testing.T) {
	ctx := headless(t)
	f := newFleet(t, 1, nil)
	a := f.envs[0]
	tool := map[string]any{"name": "lookup", "description": "Finds a customer."}
	v := a.submit(t, keyAcme, map[string]any{"script": `return await tools.lookup({});`, "caller_tools": []any{tool}}, true)
	p := pendingOf(t, a, v.ID, 1).Pending[0]
	require.Equal(t, "call", p.Kind)

	signInPage(t, ctx, a.http.URL, keyAcme)
	browse(t, ctx,
		chromedp.Navigate(a.http.URL+"/ui/#/chains/"+v.ID),
		chromedp.WaitVisible(css("#chain-status.status-parked")),
	)
	items := value(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#view li")).filter((li) => li.textContent.includes("lookup")).map((li) => li.innerHTML)`))
	require.Len(t, items, 1)
	require.NotContains(t, items[0], "#/approvals", "a call is not decided in the approvals")
	require.Contains(t, items[0], "answer")
}
