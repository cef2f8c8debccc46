package approval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

func ExampleQueue() {
	q := approval.NewQueue(approval.Options{})
	// The decided event and the call's return race each other; the example
	// prints the decision it was told about before the call's result.
	decided := make(chan invoker.Decision, 1)
	// A server would emit approval_required here; this example decides at
	// once, on the arguments it was shown.
	stop := q.Subscribe(func(ev approval.Event) {
		switch ev.Kind {
		case approval.Pending:
			fmt.Printf("approval required: %s %s\n", ev.Request.Tool, ev.Request.Args)
			go q.Decide(ev.Request.Tenant, ev.Request.ID, invoker.Approved, ev.Request.ArgsHash)
		case approval.Decided:
			decided <- ev.Decision
		}
	})
	defer stop()

	send := toolbox.Func("send_message", "Send a message",
		func(ctx context.Context, in struct {
			To string `json:"to"`
		}) (string, error) {
			return "sent to " + in.To, nil
		}).WithRisk(toolbox.High)
	box, _ := toolbox.New(send)
	inv, _ := invoker.New(box, invoker.Options{Approver: q,
		Policy: invoker.Policy{ApprovalTimeout: 5 * time.Second}})
	sess := inv.NewSession(session.Options{Tenant: "acme"})
	defer sess.Close(context.Background())
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send_message", Args: json.RawMessage(`{"to":"ops"}`)})
	fmt.Println("decided:", <-decided)
	fmt.Println(res.Status, string(res.Value))
	// Output:
	// approval required: send_message {"to":"ops"}
	// decided: approved
	// ok "sent to ops"
}
