package chain_test

import (
	"context"
	"fmt"
	"log"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// Example is the program README.md shows under "Embedding it in Go": the
// lines between the readme markers are its main function, word for word
// (TestReadmeExample checks), and the imports above are its imports.
func Example() {
	// readme:begin
	ctx := context.Background()

	// A tool is a typed Go function. The json tags name the arguments the
	// script passes; the jsonschema tags describe them to the model.
	type SearchIn struct {
		Query string `json:"query" jsonschema:"what to look for"`
	}
	type SendIn struct {
		To   string `json:"to" jsonschema:"recipient address"`
		Body string `json:"body" jsonschema:"message text"`
	}
	search := toolbox.Func("search", "Search the docs",
		func(ctx context.Context, in SearchIn) ([]string, error) {
			return []string{"result for " + in.Query}, nil
		})
	send := toolbox.Func("send_message", "Send a message",
		func(ctx context.Context, in SendIn) (string, error) {
			return "sent to " + in.To, nil
		}).WithRisk(toolbox.High) // needs approval

	box, err := toolbox.New(search, send)
	if err != nil {
		log.Fatal(err)
	}
	inv, err := invoker.New(box, invoker.Options{
		Policy: invoker.Policy{MaxToolCalls: 20},
		// Ask a person here: approval.Terminal(os.Stdin, os.Stderr), or the
		// approval.Queue behind the HTTP API. This one approves everything.
		Approver: invoker.ApprovalFunc(func(ctx context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
			fmt.Printf("approve %s %s? yes\n", req.Tool, req.Args)
			return invoker.Approved, nil
		}),
	})
	if err != nil {
		log.Fatal(err)
	}

	// The script engine compiles QuickJS once; build it once per process.
	engine, err := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close(ctx)
	runner, err := chain.New(inv, chain.Engines{Scripts: engine})
	if err != nil {
		log.Fatal(err)
	}

	// The script a model wrote: every tools.x call goes through the invoker.
	res, err := runner.Run(ctx, sandbox.Script{Source: `
		const hits = await tools.search({query: "pins"});
		const ack = await tools.send_message({to: "ops@example.com", body: hits[0]});
		return {hits, ack};`}, chain.Options{Tenant: "acme"})
	if err != nil {
		log.Fatal(err) // misuse only: every outcome of the script is a RunResult
	}
	fmt.Println(res.Status, string(res.Value))
	for _, call := range res.Trace {
		fmt.Println(call.Seq, call.Tool, call.Status)
	}
	// readme:end

	// Output:
	// approve send_message {"body":"result for pins","to":"ops@example.com"}? yes
	// ok {"hits":["result for pins"],"ack":"sent to ops@example.com"}
	// 1 search ok
	// 2 send_message ok
}

// ExampleOptions_chainTools gives one chain a tool of its own: a caller's
// function (here, the user's session) that no other chain sees. It goes
// through every gate of the shared invoker like any tool.
func ExampleOptions_chainTools() {
	ctx := context.Background()
	box, err := toolbox.New()
	if err != nil {
		log.Fatal(err)
	}
	inv, err := invoker.New(box, invoker.Options{})
	if err != nil {
		log.Fatal(err)
	}
	engine, err := sandbox.NewScriptEngine(ctx, sandbox.ScriptOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close(ctx)
	runner, err := chain.New(inv, chain.Engines{Scripts: engine})
	if err != nil {
		log.Fatal(err)
	}
	type In struct {
		Key string `json:"key"`
	}
	user := map[string]string{"name": "Ann", "plan": "pro"}
	profile := toolbox.Func("user_profile", "Reads the signed-in user's profile",
		func(ctx context.Context, in In) (string, error) { return user[in.Key], nil })

	res, err := runner.Run(ctx, sandbox.Script{Source: `
		const name = await tools.user_profile({key: "name"});
		return name + " is on " + await tools.user_profile({key: "plan"});`},
		chain.Options{Tenant: "acme", ChainTools: []toolbox.Tool{profile}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, string(res.Value))
	// Output:
	// ok "Ann is on pro"
}
