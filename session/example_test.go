package session_test

import (
	"encoding/json"
	"fmt"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/session"
)

// A parked chain's session travels as JSON to the process that resumes
// it, which supplies the blob store and the governance profile again.
func ExampleRestore() {
	s := session.New(session.Options{ID: "s_1", Tenant: "acme", Tools: []string{"send"}, ParkApprovals: true})
	s.Acquire(50)
	s.Append(session.Record{Tool: "send", Status: session.StatusOK})
	b, _ := json.Marshal(s.State())

	var st session.State
	_ = json.Unmarshal(b, &st)
	r, err := session.Restore(st, session.Options{Governance: govern.NewChain(&govern.Profile{Name: "helper"})})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.ID(), r.Tenant(), r.Calls(), len(r.Trace()), r.Allows("send"), r.Allows("nuke"), r.ParksApprovals())

	st.Calls = -1
	_, err = session.Restore(st, session.Options{})
	fmt.Println(err)
	// Output:
	// s_1 acme 1 1 true false true
	// session: invalid state: counts must not be negative (calls -1, seq 1, dropped 0, artifact bytes 0)
}
