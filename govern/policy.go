package govern

import (
	"fmt"
	"maps"
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

// HistoryState is a History in a form that survives the process: a parked
// chain carries it to the process that resumes it. It holds the facts and
// the successful calls per tool, never the calls in flight: a parked chain
// has no call past its policies. JSON-encodable.
type HistoryState struct {
	// Facts are the recorded facts with their counts (at most MaxFacts).
	Facts map[string]int `json:"facts,omitempty"`
	// Succeeded counts the successful calls per tool (the facts
	// SucceededFact(tool)); at most MaxFacts tools.
	Succeeded map[string]int `json:"succeeded,omitempty"`
}

// State returns a copy of h's facts and successful calls. Nil maps stay
// nil.
func (h *History) State() HistoryState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return HistoryState{Facts: maps.Clone(h.facts), Succeeded: maps.Clone(h.succeeded)}
}

// Validate reports whether st could have come from a History: at most
// MaxFacts facts and tools, no empty name, counts of at least 1, and no
// fact in Facts that only Succeeded can hold ("ok:<tool>"). The error wraps
// ErrInvalidHistory and names the first fault.
func (st HistoryState) Validate() error {
	if len(st.Facts) > MaxFacts || len(st.Succeeded) > MaxFacts {
		return fmt.Errorf("%w: %d facts and %d tools; at most %d of each fit a chain's history",
			ErrInvalidHistory, len(st.Facts), len(st.Succeeded), MaxFacts)
	}
	for f, n := range st.Facts {
		switch {
		case f == "":
			return fmt.Errorf("%w: a fact is empty", ErrInvalidHistory)
		case strings.HasPrefix(f, succeededPrefix):
			return fmt.Errorf("%w: fact %.64q belongs in Succeeded, not Facts", ErrInvalidHistory, f)
		case n < 1:
			return fmt.Errorf("%w: fact %.64q has count %d; counts start at 1", ErrInvalidHistory, f, n)
		}
	}
	for tool, n := range st.Succeeded {
		if tool == "" || n < 1 {
			return fmt.Errorf("%w: tool %.64q has %d successful calls; names must be non-empty and counts at least 1",
				ErrInvalidHistory, tool, n)
		}
	}
	return nil
}

// restore replaces h's facts and successful calls with copies of st's,
// which must be valid. Calls in flight are left as they are.
func (h *History) restore(st HistoryState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.facts, h.succeeded = maps.Clone(st.Facts), maps.Clone(st.Succeeded)
}
