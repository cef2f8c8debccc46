package govern_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/toolbox"
)

// A reviewer profile may read but not push: the same git tool meets a
// different gate for each action.
func Example() {
	g := govern.New(govern.Options{})
	limit, _ := govern.CallLimit("git", 10)
	reviewer := govern.NewChain(&govern.Profile{
		Name: "reviewer", Scopes: []string{"repo:read"}, Autonomy: govern.Restricted,
		Policies: []govern.CallPolicy{limit},
	})
	git := toolbox.Info{Name: "git", Scopes: []string{"repo:read"},
		ActionRisk: map[string]toolbox.Risk{"status": toolbox.Safe, "push": toolbox.High}}
	for _, args := range []string{`{"action":"status"}`, `{"action":"push"}`} {
		a := json.RawMessage(args)
		c := govern.Call{Tool: "git", Info: git, Action: govern.ActionOf(git, a), Args: a, ChainID: "s_1", Seq: 1}
		d := g.Decide(reviewer, c)
		fmt.Println(strings.TrimSpace(fmt.Sprint(c.Action, " ", d.Gate, " ", d.Risk, " ", d.Reason)))
	}
	// Output:
	// status allow SAFE
	// push deny HIGH gate_denied
}
