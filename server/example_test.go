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
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/server"
)

// Submit a chain over HTTP and read its result.
func Example() {
	ctx := context.Background()
	scripts, _ := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{})
	defer scripts.Close(ctx)
	box, _ := demo.Toolbox()
	srv, err := server.New(server.Options{Toolbox: box, Engines: chain.Engines{Scripts: scripts}})
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown(ctx)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/v1/chains", "application/json", strings.NewReader(`{"script":
		"const r = await tools.kv_set({key: \"answer\", value: 42}); return (await tools.kv_get({key: \"answer\"})).value;"}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"status":"ok"`), strings.Contains(string(body), `"value":42`))
	// Output: 200 true true
}
