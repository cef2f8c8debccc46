package invoker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

func Example() {
	type AddIn struct {
		A, B int
	}
	add := toolbox.Func("add", "Adds two numbers", func(_ context.Context, in AddIn) (int, error) {
		return in.A + in.B, nil
	})
	wire := toolbox.Func("wire", "Sends money", func(context.Context, struct{}) (string, error) {
		return "sent", nil
	}).WithRisk(toolbox.High)
	box, _ := toolbox.New(add, wire)

	inv, err := invoker.New(box, invoker.Options{Policy: invoker.Policy{MaxToolCalls: 2}})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	sess := inv.NewSession(session.Options{Tenant: "acme"})
	defer sess.Close(ctx)

	for _, c := range []invoker.Call{
		{Tool: "add", Args: json.RawMessage(`{"A":2,"B":3}`)},
		{Tool: "wire"},
		{Tool: "add", Args: json.RawMessage(`{"A":1,"B":1}`)},
	} {
		res := inv.Invoke(ctx, sess, c)
		fmt.Printf("%s: %s %s%s\n", c.Tool, res.Status, res.Reason, res.Value)
	}
	for _, r := range sess.Trace() {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("#%d %s: %s %s", r.Seq, r.Tool, r.Status, r.Reason)))
	}
	// Output:
	// add: ok 5
	// wire: denied no_approval_handler
	// add: error budget_exhausted
	// #1 add: ok
	// #2 wire: denied no_approval_handler
	// #3 add: error budget_exhausted
}
