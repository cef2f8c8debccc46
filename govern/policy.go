package govern

import (
	"strings"
	"sync"
)

// CallPolicy is a rule every call must pass before it runs. Check reads
// the chain's History and must not change it; Observe updates it after a
// call succeeded (a failed call leaves the history as it was).
//
// The stock policies are Sequential, ReadBeforeWrite, CallLimit and
// ArgConstraint; implement CallPolicy for others.
type CallPolicy interface {
	// Name identifies the policy in decisions ("policy:<name>").
	Name() string
	// Check returns nil to allow c, or the refusal.
	Check(c Call, h *HistoryView) *Denial
	// Observe records a successful call c in h.
	Observe(c Call, h *HistoryView)
}

// Denial is a call policy's refusal: a stable reason code and a message
// for the chain.
type Denial struct {
	Reason  string
	Message string
}

// History is what a chain's calls established, for call policies: facts
// (strings a policy chose, such as "ok:run_tests" or "read:/src/a.go")
// with counts, and the calls in flight per tool. Its size is bounded
// (MaxFacts); a fact that does not fit is not recorded, and a policy that
// depends on it then denies (fail closed).
type History struct {
	mu        sync.Mutex
	facts     map[string]int
	inflight  map[string]int
	succeeded map[string]int // by tool: the facts "ok:<tool>"
	view      HistoryView
}

// MaxFacts bounds the facts one chain's History keeps.
const MaxFacts = 4096

// HistoryView is the History as a policy sees it while the Governor holds
// its lock.
type HistoryView struct{ h *History }

// Count returns how many times fact was recorded. The fact
// SucceededFact(tool) counts the tool's successful calls.
func (v *HistoryView) Count(fact string) int {
	if tool, ok := strings.CutPrefix(fact, succeededPrefix); ok {
		return v.h.succeeded[tool]
	}
	return v.h.facts[fact]
}

// Succeeded returns how many calls of tool succeeded in the chain.
func (v *HistoryView) Succeeded(tool string) int { return v.h.succeeded[tool] }

// Add records fact once more. It reports false when the history is full
// and the fact is new.
func (v *HistoryView) Add(fact string) bool {
	if tool, ok := strings.CutPrefix(fact, succeededPrefix); ok {
		v.h.succeed(tool)
		return true
	}
	if v.h.facts == nil {
		v.h.facts = map[string]int{}
	}
	if _, ok := v.h.facts[fact]; !ok && len(v.h.facts) >= MaxFacts {
		return false
	}
	v.h.facts[fact]++
	return true
}

// InFlight returns how many calls of tool passed their policies and have
// not ended yet.
func (v *HistoryView) InFlight(tool string) int { return v.h.inflight[tool] }

const succeededPrefix = "ok:"

// succeed counts a successful call of tool. The tools are registered
// ones, so the map is bounded by the toolbox.
func (h *History) succeed(tool string) {
	if h.succeeded == nil {
		h.succeeded = map[string]int{}
	}
	h.succeeded[tool]++
}

// locked returns the view of h for a caller holding h.mu.
func (h *History) locked() *HistoryView {
	h.view.h = h
	return &h.view
}
