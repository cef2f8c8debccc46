package server_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// fetchShim replaces the page's fetch: while window.__context is "fail"
// the request's context answers 503; while it is "swap" it answers with
// another args hash than the list's (what a person would see is not what
// the list said).
const fetchShim = `(() => {
  const real = window.fetch.bind(window);
  window.__context = "fail";
  window.__decisions = [];
  window.fetch = async (p, o) => {
    const path = String(p);
    if (path.endsWith("/context") && window.__context === "fail")
      return new Response('{"error":{"reason":"store_unavailable","message":"retry"}}', {status: 503, headers: {"Content-Type": "application/json"}});
    if (path.endsWith("/context") && window.__context === "swap") {
      const r = await real(p, o);
      const j = await r.json();
      j.request.args_hash = "0".repeat(64);
      return new Response(JSON.stringify(j), {status: 200, headers: {"Content-Type": "application/json"}});
    }
    if (o && o.method === "POST" && path.includes("/approvals/")) window.__decisions.push(JSON.parse(o.body));
    return real(p, o);
  };
})()`

// TestConsoleDecidesOnlyWhatItShowsInBrowser (T2, invariant 6): a card's
// Approve and Deny stay disabled until its arguments are on the page: not
// while they load, not when they could not be loaded (the card used to
// offer both, bound to the list's hash of arguments nobody saw), not when
// the loaded request's args hash is not the list's; once shown, the
// decision carries the hash of what is shown.
func TestConsoleDecidesOnlyWhatItShowsInBrowser(t *testing.T) {
	ctx := headless(t)
	e := newConsoleEnv(t, nil)
	browse(t, ctx,
		chromedp.Navigate(e.http.URL+"/ui/"),
		chromedp.WaitVisible(chromedp.ID("signin-key")),
		chromedp.Evaluate[chromedp.Void](fetchShim),
		chromedp.SendKeys(chromedp.ID("signin-key"), keyApprover),
		chromedp.Click(chromedp.ID("signin-submit")),
		chromedp.WaitVisible(chromedp.ID("nav")),
	)
	v := e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	req := e.pending(t, keyAcme)
	id, hash := req["id"].(string), req["args_hash"].(string)
	disabled := func() bool {
		return value(t, ctx, chromedp.Evaluate[bool](`(() => { const c = document.querySelector('`+card(id)+`');
		  return c.querySelector("button.approve").disabled && c.querySelector("button.deny").disabled; })()`))
	}

	browse(t, ctx, chromedp.WaitVisible(css(card(id)+" .context .error")))
	require.True(t, disabled(), "the arguments could not be loaded: nothing to decide on")
	require.Empty(t, value(t, ctx, chromedp.Text(css(card(id)+" .decision-msg"))))

	browse(t, ctx,
		chromedp.Evaluate[chromedp.Void](`window.__context = "swap"`),
		// The next poll loads the context again; it says other arguments.
		chromedp.Poll[chromedp.Void](`(document.querySelector('`+card(id)+` .context .error') || {textContent: ""}).textContent.includes("changed")`),
	)
	require.True(t, disabled(), "the request shown is not the one listed")

	browse(t, ctx,
		chromedp.Evaluate[chromedp.Void](`window.__context = ""`),
		chromedp.WaitVisible(css(card(id)+" .args")),
		chromedp.WaitEnabled(css(card(id)+" button.approve")),
	)
	require.Equal(t, hash, value(t, ctx, chromedp.Text(css(card(id)+" .args-hash"))))
	browse(t, ctx,
		chromedp.Click(css(card(id)+" button.approve")),
		chromedp.WaitVisible(css(card(id)+" .decision-msg.ok")),
	)
	got := value(t, ctx, chromedp.Evaluate[[]map[string]string](`window.__decisions`))
	require.Equal(t, []map[string]string{{"decision": "approve", "args_hash": hash}}, got)
	require.Equal(t, "ok", e.wait(t, keyAcme, v.ID).Status)
	require.Equal(t, http.StatusOK, e.do(t, "GET", "/v1/chains/"+v.ID, keyAcme, nil).code)
}
