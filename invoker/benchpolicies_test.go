package invoker_test

import (
	"testing"

	"github.com/airlockrt/airlock/govern"
)

// benchPolicies are call policies that allow the benchmark's calls of noop.
func benchPolicies(b *testing.B) []govern.CallPolicy {
	return []govern.CallPolicy{&denyPolicy{tool: "other", n: 1}}
}
