package invoker_test

import (
	"testing"

	"github.com/airlockrt/airlock/govern"
)

// benchPolicies are one call policy of each stock kind, none of which
// refuses the benchmark's calls of noop.
func benchPolicies(b *testing.B) []govern.CallPolicy {
	var out []govern.CallPolicy
	add := func(p govern.CallPolicy, err error) {
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, p)
	}
	add(govern.Sequential("other", "noop"))
	add(govern.ReadBeforeWrite("noop", "other", "path"))
	add(govern.CallLimit("other", 1))
	add(govern.ArgConstraint(govern.ArgRule{Tool: "other", Arg: "path", MaxLen: 10}))
	return out
}
