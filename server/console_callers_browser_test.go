package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

var lookupDecl = map[string]any{"name": "lookup", "description": "Finds a customer.",
	"input_schema": map[string]any{"type": "object", "properties": map[string]any{"email": map[string]any{"type": "string"}}}}

// TestConsoleShowsCallerCallsInBrowser: beside the approvals, the console
// lists the calls of caller tools waiting for their callers, with their
// arguments shown inert and visible and no button to decide them; a call
// answered by its caller leaves the list, and another tenant's console
// lists none of them.
func TestConsoleShowsCallerCallsInBrowser(t *testing.T) {
	ctx := headless(t)
	e := newConsoleEnv(t, nil)
	signInPage(t, ctx, e.http.URL, keyApprover)
	v := e.submit(t, keyAcme, map[string]any{"script": `return await tools.lookup({email: "<script>alert(1)</script>\u202e@x"})`,
		"caller_tools": []any{lookupDecl}}, true)
	var list struct {
		Calls []struct {
			ID       string `json:"id"`
			ArgsHash string `json:"args_hash"`
		}
	}
	require.Eventually(t, func() bool {
		r := e.do(t, "GET", "/v1/chains/"+v.ID+"/calls", keyAcme, nil)
		require.NoError(t, json.Unmarshal(r.body, &list))
		return len(list.Calls) == 1
	}, 20*time.Second, 10*time.Millisecond)
	c := list.Calls[0]
	sel := `article.caller-call[data-id="` + c.ID + `"]`
	browse(t, ctx, chromedp.Navigate(e.http.URL+"/ui/#/approvals"), chromedp.WaitVisible(css(sel+" .args")))
	require.Equal(t, c.ArgsHash, strings.TrimSpace(value(t, ctx, chromedp.Text(css(sel+" .args-hash")))))
	args := value(t, ctx, chromedp.Text(css(sel+" .args")))
	require.Contains(t, args, "<script>alert(1)</script>", "shown as text")
	require.Contains(t, args, `\u202E`, "the bidi override shown as an escape")
	require.NotContains(t, args, "\u202e", "and never as itself")
	require.Zero(t, value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+sel+` button').length`)), "nothing to decide")
	require.Zero(t, value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('script:not([src])').length`)), "no script injected")
	screenshot(t, ctx, "caller-calls")

	r := e.do(t, "POST", "/v1/calls/"+c.ID, keyAcme, map[string]any{"args_hash": c.ArgsHash, "result": "Ann"})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, "ok", e.wait(t, keyAcme, v.ID).Status)
	browse(t, ctx, chromedp.WaitNotPresent(css(sel)))

	// Another tenant's console lists none.
	other := e.submit(t, keyAcme, map[string]any{"script": `return await tools.lookup({email: "b@x"})`,
		"caller_tools": []any{lookupDecl}}, true)
	gctx := headless(t)
	signInPage(t, gctx, e.http.URL, keyGlobex)
	browse(t, gctx, chromedp.Navigate(e.http.URL+"/ui/#/approvals"), chromedp.WaitVisible(chromedp.ID("caller-calls-status")))
	require.Eventually(t, func() bool {
		return strings.Contains(value(t, gctx, chromedp.Text(chromedp.ID("caller-calls-status"))), "No call is waiting")
	}, 20*time.Second, 50*time.Millisecond)
	require.Zero(t, value(t, gctx, chromedp.Evaluate[int](`document.querySelectorAll('article.caller-call').length`)))
	_ = e.do(t, "DELETE", "/v1/chains/"+other.ID, keyAcme, nil)
}
