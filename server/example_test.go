package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
)

// Submit a chain over HTTP and read its result.
func Example() {
	ctx := context.Background()
	scripts, _ := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{})
	defer scripts.Close(ctx)
	box, _ := demo.Toolbox()
	// One invoker for the process; the service runs every chain on it.
	inv, _ := invoker.New(box, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 20}})
	runner, _ := chain.New(inv, chain.Engines{Scripts: scripts})
	svc, err := service.New(runner, service.Options{
		// The most a request may ask for. Unset fields are the service's
		// own values, which a request may only lower: max_risk_unapproved
		// stays SAFE, so every risky call needs approval.
		MaxPolicy: invoker.Policy{MaxToolCalls: 100},
	})
	if err != nil {
		panic(err)
	}
	defer svc.Close(ctx)
	// The HTTP API is a face over the service.
	srv, err := server.New(svc, server.Options{})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	post := func(body string) (int, string) {
		resp, err := http.Post(ts.URL+"/v1/chains", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post(`{"script":
		"const r = await tools.kv_set({key: \"answer\", value: 42}); return (await tools.kv_get({key: \"answer\"})).value;",
		"policy": {"max_tool_calls": 80}}`)
	fmt.Println(code, strings.Contains(body, `"status":"ok"`), strings.Contains(body, `"value":42`))
	code, body = post(`{"script": "return 1", "policy": {"max_risk_unapproved": "CRITICAL"}}`)
	fmt.Println(code, strings.Contains(body, `"reason":"above_operator_limit"`))
	// Output:
	// 200 true true
	// 400 true
}
