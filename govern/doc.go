// Package govern is the operator's policy over tool calls: which scopes a
// chain holds, how risky a call is, which gate (allow, confirm, preview,
// deny) a risk meets at a chain's autonomy level, which call policies
// (sequential dependencies, read-before-write, call limits, argument
// constraints) must allow it, which tools are healthy, how fast a tenant may
// call a tool, and which calls already ran (idempotency outcomes).
//
// The invoker consults a Governor on every call; a Chain holds one chain's
// profile and policy history. Everything here decides; nothing here runs a
// tool.
//
//	g := govern.New(govern.Options{})
//	ch := govern.NewChain(&govern.Profile{Name: "reviewer", Scopes: []string{"repo:read"}})
//	c := govern.Call{Tool: "read_file", Info: info, Args: args}
//	if d := g.Decide(ch, c); !d.Denied() && g.Admit(ch, c) == nil {
//		ok := run(c)
//		g.Done(ch, c, ok)
//	}
//
// Decide covers scopes, risk and the gate; Admit the call policies (and
// counts the call in flight); Done records a successful call in the
// chain's History. Health, Limiter and Outcomes are the process-wide
// parts. docs/governance.md describes every rule and reason code.
//
// The store's idempotency records (NewStoreOutcomes) are authenticated
// with the fleet key when StoreOutcomesOptions.Keys holds it: a record
// someone wrote into the bucket without it never answers a call.
//
// # Concurrency
//
// A Governor and a Chain are safe for concurrent use.
//
// # Errors
//
// Decisions are values with stable reason codes (see the Reason constants
// of package invoker); Go errors mean a misconfiguration (ErrInvalidProfile
// and friends) or a failing outcome store.
package govern
