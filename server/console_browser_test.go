package server_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/oidctest"
)

// update makes TestConsoleInBrowser write its screenshot of a request
// with hostile arguments to docs/console.png (go test ./server/ -run ConsoleInBrowser -update).
var update = flag.Bool("update", false, "write docs/console.png from the console's browser test")

// chromiumPath is the browser the console's tests drive: $AIRLOCK_CHROMIUM,
// or Debian's chromium (scripts/deps.sh installs it).
func chromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("AIRLOCK_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the console's browser tests need Chromium at %s (scripts/deps.sh installs Debian's chromium): %v", p, err)
		}
		t.Skipf("skipping the console's browser tests: no Chromium at %s (run scripts/deps.sh, or set AIRLOCK_CHROMIUM); under CI=true this fails", p)
	}
	return p
}

// headless starts a headless Chromium for the test and returns a tab's
// context; everything ends with the test.
func headless(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(1000, 760),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	require.NoError(t, chromedp.Do(ctx), "starting Chromium")
	return ctx
}

// stepTimeout bounds each browse (do, run) of a test: long enough for a
// chain to park and a page to poll on a busy machine, so that only a
// broken console reaches it.
const stepTimeout = time.Minute

// browse runs steps in the test's tab.
func browse(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	require.NoError(t, chromedp.Do(sctx, steps...))
}

// value runs a that returns a value in the test's tab.
func value[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(sctx, a)
	require.NoError(t, err)
	return v
}

func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// screenshot saves the page as name.png among the test's artifacts and
// returns the PNG.
func screenshot(t *testing.T, ctx context.Context, name string) []byte {
	t.Helper()
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	png := value(t, ctx, chromedp.CaptureScreenshot())
	p := filepath.Join(t.ArtifactDir(), name+".png")
	require.NoError(t, os.WriteFile(p, png, 0o644))
	t.Logf("screenshot: %s", p)
	return png
}

// signInPage opens the console at base and signs in with key.
func signInPage(t *testing.T, ctx context.Context, base, key string) {
	t.Helper()
	browse(t, ctx,
		chromedp.Navigate(base+"/ui/"),
		chromedp.WaitVisible(chromedp.ID("signin-key")),
		chromedp.SendKeys(chromedp.ID("signin-key"), key),
		chromedp.Click(chromedp.ID("signin-submit")),
		chromedp.WaitVisible(chromedp.ID("nav")),
	)
}

// card is the selector of approval id's card.
func card(id string) string { return `article.approval[data-id="` + id + `"]` }

// twoCallsScript calls send_message twice, on lines 1 and 3; line 2
// names it too, in a comment.
const twoCallsScript = `const first = await tools.send_message({ to: "ops@example.com", text: "one" });
// tools.send_message again, below, once the first is approved
const second = await tools.send_message({
  to: "ops@example.com", text: "two" });
return [first.to, second.to];`

// nextPending waits for a pending request of key's tenant other than not
// and returns it.
func nextPending(t *testing.T, e *env, key, not string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		var list struct{ Approvals []map[string]any }
		r := e.do(t, "GET", "/v1/approvals", key, nil)
		require.Equal(t, http.StatusOK, r.code)
		require.NoError(t, json.Unmarshal(r.body, &list))
		for _, a := range list.Approvals {
			if a["id"] != not {
				return a
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no other approval request appeared")
	return nil
}

// callingLine checks that card id marks exactly one line of its script,
// the line-th, which holds text, and says the call was made there.
func callingLine(t *testing.T, ctx context.Context, id string, line int, text string) {
	t.Helper()
	browse(t, ctx, chromedp.WaitVisible(css(card(id)+" .script .ln.hl")))
	require.Equal(t, 1, value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+card(id)+` .script .ln.hl').length`)),
		"one line is marked")
	require.Equal(t, line, value(t, ctx, chromedp.Evaluate[int](
		`[...document.querySelectorAll('`+card(id)+` .script .ln')].findIndex((e) => e.classList.contains("hl")) + 1`)),
		"the marked line is the one that made the call")
	require.Contains(t, value(t, ctx, chromedp.Text(css(card(id)+" .script .ln.hl"))), text)
	require.Contains(t, value(t, ctx, chromedp.Text(css(card(id)+" .call-site"))), "line "+strconv.Itoa(line)+",")
}

// hostileScript asks to send a message whose text holds markup, a
// right-to-left override and a zero-width space.
const hostileScript = `
try {
  await tools.send_message({ to: "ops@example.com",
    text: "<script>window.__pwned = 1<\/script><img src=x onerror=\"window.__pwned = 2\">invoice\u202egnp.exe pay\u200bnow" });
  return "sent";
} catch (e) {
  return e.reason;
}`

// TestConsoleInBrowser drives the console in headless Chromium against a
// real server and sandbox: sign in, see a chain's approval appear, approve
// it and watch the chain finish; deny one; arguments with markup, a bidi
// override and a zero-width space render inert and visible; a key of
// another tenant sees nothing.
func TestConsoleInBrowser(t *testing.T) {
	ctx := headless(t)
	e := newConsoleEnv(t, nil)
	signInPage(t, ctx, e.http.URL, keyApprover)
	require.Contains(t, value(t, ctx, chromedp.Text(chromedp.ID("who"))), "acme")

	// Approve: the request appears by itself; the chain finishes.
	v := e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	req := e.pending(t, keyAcme)
	id, hash := req["id"].(string), req["args_hash"].(string)
	browse(t, ctx,
		chromedp.WaitVisible(css(card(id)+" .args-hash")),
		chromedp.WaitVisible(css(card(id)+" .why")),
	)
	require.Equal(t, hash, strings.TrimSpace(value(t, ctx, chromedp.Text(css(card(id)+" .args-hash")))))
	require.Contains(t, value(t, ctx, chromedp.Text(css(card(id)+" .args"))), `"to": "ops@example.com"`)
	require.Contains(t, value(t, ctx, chromedp.Text(css(card(id)+" .why"))), "confirm")
	screenshot(t, ctx, "approvals")
	browse(t, ctx,
		chromedp.WaitEnabled(css(card(id)+" button.approve")),
		chromedp.Click(css(card(id)+" button.approve")),
		chromedp.WaitVisible(css(card(id)+" .decision-msg.ok")),
	)
	require.Equal(t, "ok", e.wait(t, keyAcme, v.ID).Status)
	browse(t, ctx,
		chromedp.Navigate(e.http.URL+"/ui/#/chains/"+v.ID),
		chromedp.WaitVisible(css("#chain-status.status-ok")),
		chromedp.WaitVisible(css("#chain .result")),
	)
	require.Contains(t, value(t, ctx, chromedp.Text(css("#chain .result"))), `"sent": true`)
	screenshot(t, ctx, "chain")

	// The calling line: the second call of the same tool waits, and only
	// its line is marked.
	v = e.submit(t, keyAcme, map[string]any{"script": twoCallsScript}, true)
	req = e.pending(t, keyAcme)
	r := e.do(t, "POST", "/v1/approvals/"+req["id"].(string), keyApprover, map[string]any{"decision": "approve", "args_hash": req["args_hash"]})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	second := nextPending(t, e.env, keyAcme, req["id"].(string))
	id = second["id"].(string)
	browse(t, ctx, chromedp.Navigate(e.http.URL+"/ui/#/approvals"))
	callingLine(t, ctx, id, 3, "const second = await tools.send_message({")
	browse(t, ctx,
		chromedp.WaitEnabled(css(card(id)+" button.approve")),
		chromedp.Click(css(card(id)+" button.approve")),
		chromedp.WaitVisible(css(card(id)+" .decision-msg.ok")),
	)
	require.Equal(t, "ok", e.wait(t, keyAcme, v.ID).Status)

	// Deny.
	v = e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	id = e.pending(t, keyAcme)["id"].(string)
	browse(t, ctx,
		chromedp.Navigate(e.http.URL+"/ui/#/approvals"),
		chromedp.WaitVisible(css(card(id)+" button.deny")),
		chromedp.WaitEnabled(css(card(id)+" button.deny")), // once the arguments are shown
		// With the keyboard, on a phone's screen.
		chromedp.EmulateViewport(375, 740),
		chromedp.Focus(css(card(id)+" button.deny")),
		// The page polls every 2 s: the focus stays on the button across a poll.
		chromedp.Sleep(2500*time.Millisecond),
		chromedp.Poll[chromedp.Void](`document.activeElement && document.activeElement.classList.contains("deny")`),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(css(card(id)+" .decision-msg.ok")),
	)
	require.True(t, value(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`)),
		"nothing is wider than a phone's screen")
	screenshot(t, ctx, "phone")
	browse(t, ctx, chromedp.EmulateViewport(1000, 760))
	done := e.wait(t, keyAcme, v.ID)
	require.JSONEq(t, `{"sent":false,"reason":"approval_denied"}`, string(done.Result.Value))

	// Hostile arguments: inert, and every invisible character shown.
	v = e.submit(t, keyAcme, map[string]any{"script": hostileScript}, true)
	id = e.pending(t, keyAcme)["id"].(string)
	browse(t, ctx, chromedp.WaitVisible(css(card(id)+" .args")))
	args := value(t, ctx, chromedp.Text(css(card(id)+" .args")))
	png := screenshot(t, ctx, "hostile")
	if *update {
		require.Less(t, len(png), 200<<10, "docs/console.png stays small")
		require.NoError(t, os.WriteFile("../docs/console.png", png, 0o644))
	}
	require.False(t, value(t, ctx, chromedp.Evaluate[bool](`window.__pwned !== undefined`)), "no script of the arguments ran")
	require.Zero(t, value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#view script, #view img, #view [onerror]").length`)),
		"no element came from the arguments")
	require.Contains(t, args, `<script>window.__pwned = 1</script>`, "markup is shown as text")
	require.Contains(t, args, `invoice\u202Egnp.exe`, "the bidi override is shown, not applied")
	require.Contains(t, args, `pay\u200Bnow`, "the zero-width space is shown")
	require.NotContains(t, args, "\u202e")
	require.NotContains(t, args, "\u200b")
	require.Equal(t, 2, value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+card(id)+` .args .esc').length`)),
		"each invisible character is marked")
	browse(t, ctx,
		chromedp.WaitEnabled(css(card(id)+" button.deny")),
		chromedp.Click(css(card(id)+" button.deny")),
		chromedp.WaitVisible(css(card(id)+" .decision-msg.ok")),
	)
	require.JSONEq(t, `"approval_denied"`, string(e.wait(t, keyAcme, v.ID).Result.Value))

	// A request decided elsewhere says so, and cannot be decided here.
	v = e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	req = e.pending(t, keyAcme)
	id = req["id"].(string)
	browse(t, ctx, chromedp.WaitVisible(css(card(id)+" button.approve")))
	r = e.do(t, "POST", "/v1/approvals/"+id, keyApprover, map[string]any{"decision": "approve", "args_hash": req["args_hash"]})
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	browse(t, ctx, chromedp.WaitVisible(css(card(id)+" .decision-msg.gone")))
	require.True(t, value(t, ctx, chromedp.Evaluate[bool](`document.querySelector('`+card(id)+` button.approve').disabled`)))
	require.Equal(t, "ok", e.wait(t, keyAcme, v.ID).Status)

	// Another tenant's approver sees nothing of acme's.
	v = e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	id = e.pending(t, keyAcme)["id"].(string)
	browse(t, ctx,
		chromedp.Navigate(e.http.URL+"/ui/#/approvals"),
		chromedp.WaitVisible(css(card(id))),
		chromedp.Click(chromedp.ID("signout")),
		chromedp.WaitVisible(chromedp.ID("signin-key")),
	)
	signInPage(t, ctx, e.http.URL, keyGlobexApprover)
	browse(t, ctx,
		chromedp.Navigate(e.http.URL+"/ui/#/approvals"),
		chromedp.Poll[chromedp.Void](`((document.getElementById("approvals-status") || {}).textContent || "").includes("No approval is waiting")`),
	)
	require.Zero(t, value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("article.approval").length`)))
	browse(t, ctx,
		chromedp.Navigate(e.http.URL+"/ui/#/chains"),
		chromedp.Poll[chromedp.Void](`(document.querySelector("#view .note") || {}).textContent === "No chain matches."`),
	)
	require.NotContains(t, value(t, ctx, chromedp.Text(chromedp.ID("view"))), v.ID)
	_, err := e.svc.Cancel(context.Background(), "acme", v.ID)
	require.NoError(t, err)
	e.wait(t, keyAcme, v.ID)
}

// TestConsoleParkedInBrowser: a chain parked by one process of a fleet is
// decided in the console of another, which resumes it; the call runs once.
func TestConsoleParkedInBrowser(t *testing.T) {
	ctx := headless(t)
	f := newFleet(t, 2, nil)
	a, b := f.envs[0], f.envs[1]
	// Two calls of the same tool: the first approved through the API, the
	// chain parks again on the second.
	script := "const first = await tools.notify({to: \"ops\"});\n// tools.notify again:\n" +
		"const second = await tools.notify(\n  {to: \"ops\"});\nreturn [first, second];"
	v := a.submit(t, keyAcme, map[string]any{"script": script}, true)
	first := pendingOf(t, a, v.ID, 1).Pending[0]
	require.True(t, strings.HasPrefix(first.ID, durable.ApprovalPrefix))
	require.Equal(t, http.StatusOK, decideOn(t, a, first, "approve").code)
	var p durable.Approval
	require.Eventually(t, func() bool {
		cv := a.view(t, keyAcme, v.ID)
		if cv.Status == "parked" && len(cv.Pending) == 1 && cv.Pending[0].ID != first.ID {
			p = cv.Pending[0]
		}
		return p.ID != ""
	}, 20*time.Second, 20*time.Millisecond)

	r := b.do(t, "GET", "/v1/chains?status=parked", keyAcme, nil)
	require.Contains(t, string(r.body), v.ID, "the other process lists the parked chain")

	signInPage(t, ctx, b.http.URL, keyAcme)
	browse(t, ctx, chromedp.WaitVisible(css(card(p.ID)+" .args")))
	require.Contains(t, value(t, ctx, chromedp.Text(css(card(p.ID)+" .args"))), `"to": "ops"`)
	callingLine(t, ctx, p.ID, 3, "const second = await tools.notify(")
	why := value(t, ctx, chromedp.Text(css(card(p.ID)+" .why")))
	require.Contains(t, why, "confirm", "a parked call says why it waits")
	require.Contains(t, why, "matrix[")
	require.Contains(t, why, p.DecisionID)
	screenshot(t, ctx, "parked")
	browse(t, ctx,
		chromedp.Navigate(b.http.URL+"/ui/#/chains/"+v.ID),
		chromedp.WaitVisible(css("#chain li")),
	)
	require.Contains(t, value(t, ctx, chromedp.Text(css("#chain li"))), "notify (line 3)", "the chain's page says which line waits")
	browse(t, ctx,
		chromedp.Navigate(b.http.URL+"/ui/#/approvals"),
		chromedp.WaitVisible(css(card(p.ID)+" .args")),
	)
	browse(t, ctx,
		chromedp.WaitEnabled(css(card(p.ID)+" button.approve")),
		chromedp.Click(css(card(p.ID)+" button.approve")),
		chromedp.WaitVisible(css(card(p.ID)+" .decision-msg.ok")),
	)
	require.Equal(t, "ok", settled(t, b, v.ID).Status)
	require.Equal(t, int32(2), f.count("ops"))
	browse(t, ctx,
		chromedp.Navigate(b.http.URL+"/ui/#/chains/"+v.ID),
		chromedp.WaitVisible(css("#chain-status.status-ok")),
	)

	// Cancel a running chain from its page (a key of role all).
	v = b.submit(t, keyAcme, map[string]any{"script": `await tools.slow({ms: 60000}); return 1`}, true)
	browse(t, ctx,
		chromedp.Navigate(b.http.URL+"/ui/#/chains/"+v.ID),
		chromedp.WaitVisible(chromedp.ID("chain-cancel")),
		chromedp.Click(chromedp.ID("chain-cancel")),
		chromedp.WaitVisible(css("#chain-status.status-cancelled")),
	)
	require.Equal(t, "cancelled", settled(t, b, v.ID).Status)
}

// TestConsoleCredentialWaitInBrowser: a chain parked waiting for a fresh
// delegated credential says so on its page, with the reason and the
// line, and how the submitter hands it one; never a token.
func TestConsoleCredentialWaitInBrowser(t *testing.T) {
	ctx := headless(t)
	f := newFleet(t, 2, func(o *setup) { o.Tools = append(o.Tools, oidctest.AsUser{}) })
	a, b := f.envs[0], f.envs[1]
	v := a.submit(t, keyAcme, map[string]any{"script": "const x = 1;\nreturn await tools.crm({})",
		"identity": map[string]string{"subject_token": "expired-SECRET.alice"}}, false)
	require.Equal(t, "parked", v.Status)
	signInPage(t, ctx, b.http.URL, keyAcme)
	browse(t, ctx,
		chromedp.Navigate(b.http.URL+"/ui/#/chains/"+v.ID),
		chromedp.WaitVisible(css("#chain li")),
	)
	li := value(t, ctx, chromedp.Text(css("#chain li")))
	require.Contains(t, li, "crm (line 2)")
	require.Contains(t, li, "a fresh delegated credential for its user (credential_expired)")
	require.Contains(t, li, "/v1/chains/"+v.ID+"/identity")
	page := value(t, ctx, chromedp.Text(css("body")))
	require.NotContains(t, page, "SECRET")
	screenshot(t, ctx, "credential")
}
