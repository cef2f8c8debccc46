package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/server/console"
	"github.com/airlockrt/airlock/service"
)

// Sign in with an approver key; the API behind the console then sees that
// key's caller, by the session cookie alone.
func Example() {
	ctx := context.Background()
	scripts, _ := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{})
	defer scripts.Close(ctx)
	box, _ := demo.Toolbox()
	inv, _ := invoker.New(box, invoker.Options{})
	runner, _ := chain.New(inv, chain.Engines{Scripts: scripts})
	svc, err := service.New(runner, service.Options{Keys: func(key string) (service.Caller, bool) {
		return service.Caller{Tenant: "acme", Role: service.RoleApprover}, key == "acme-approver-key"
	}})
	if err != nil {
		panic(err)
	}
	defer svc.Close(ctx)

	// The API the console reaches under /ui/api: here, one route that says
	// who asks.
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := console.CallerFrom(r.Context())
		fmt.Fprintf(w, "%s %v tenant=%s role=%s", r.URL.Path, ok, c.Tenant, c.Role)
	})
	ts := httptest.NewServer(console.New(svc, console.Options{}).Handler(api))
	defer ts.Close()

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	req, _ := http.NewRequest("POST", ts.URL+"/ui/session", strings.NewReader(`{"key": "acme-approver-key"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", ts.URL) // the console's own page
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("sign in:", resp.StatusCode)

	resp, err = client.Get(ts.URL + "/ui/api/v1/approvals")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))
	// Output:
	// sign in: 200
	// /v1/approvals true tenant=acme role=approver
}
