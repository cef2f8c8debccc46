package chain

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// Discovery inside the sandbox: tools.$search(query) and
// tools.$describe(name) answer from the tools this chain may call (its
// allow-list, its profile's scopes and gates). They are not tool calls: no
// trace record, no tool budget, but their own limit per chain.
const (
	// SearchOp and DescribeOp are the names a guest calls them by.
	SearchOp   = "$search"
	DescribeOp = "$describe"
	// MaxDiscoveries is how many $search and $describe calls one chain
	// may make; beyond, they fail with budget_exhausted.
	MaxDiscoveries = 20
	// maxQuery bounds a query or tool name, in bytes.
	maxQuery = 256
	// defaultHits and maxHits bound a search's answer.
	defaultHits = 10
	maxHits     = 25
)

// SearchHit is one tool $search found.
type SearchHit struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// discovery answers one $search or $describe of a chain.
type discovery struct {
	inv   *invoker.Invoker
	sess  *session.Session
	count atomic.Int32 // calls so far
}

func failed(reason, format string, args ...any) invoker.Result {
	return invoker.Result{Status: session.StatusError, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// answer returns the envelope of op called with args.
func (d *discovery) answer(op string, args []byte) invoker.Result {
	if d.count.Add(1) > MaxDiscoveries {
		return failed(invoker.ReasonBudgetExhausted, "tools.%s: at most %d $search and $describe calls per chain", op, MaxDiscoveries)
	}
	switch op {
	case SearchOp:
		var q struct {
			Query string `json:"query"`
			Limit int    `json:"limit"`
		}
		if err := stringOr(args, &q.Query, &q); err != nil {
			return failed(invoker.ReasonInvalidArguments, `tools.$search takes a query string, or {query: string, limit?: number}`)
		}
		if len(q.Query) > maxQuery {
			return failed(invoker.ReasonInvalidArguments, "tools.$search: the query is longer than %d bytes", maxQuery)
		}
		if q.Limit <= 0 {
			q.Limit = defaultHits
		}
		health := d.inv.Governor().Health()
		offered := func(info toolbox.Info) bool {
			return Visible(d.sess, info) && health.For(d.sess.Tenant(), info.Name).Status != govern.Unavailable
		}
		v, _ := json.Marshal(Search(d.inv.Toolbox(), offered, q.Query, min(q.Limit, maxHits)))
		return invoker.Result{Status: session.StatusOK, Value: v}
	default:
		var q struct {
			Name string `json:"name"`
		}
		if err := stringOr(args, &q.Name, &q); err != nil || q.Name == "" {
			return failed(invoker.ReasonInvalidArguments, `tools.$describe takes a tool name, or {name: string}`)
		}
		if len(q.Name) > maxQuery || !utf8.ValidString(q.Name) {
			return failed(invoker.ReasonUnknownTool, "unknown tool")
		}
		decl, ok := Describe(d.inv.Toolbox(), func(info toolbox.Info) bool { return Visible(d.sess, info) }, q.Name)
		if !ok {
			return failed(invoker.ReasonUnknownTool, "unknown tool %q: tools.$search lists the tools this chain may call", q.Name)
		}
		v, _ := json.Marshal(HealthNote(d.inv.Governor().Health().For(d.sess.Tenant(), q.Name)) + decl)
		return invoker.Result{Status: session.StatusOK, Value: v}
	}
}

// HealthNote is what a tool's declaration is prefixed with while the tool
// rests as unavailable (h): a comment saying until when and what its last
// failure said; "" while it may be called. Search and the run_chain
// description leave such a tool out; Describe still declares it, with
// this note.
func HealthNote(h govern.ToolHealth) string {
	if h.Status != govern.Unavailable {
		return ""
	}
	note := "// unavailable until " + h.Until.UTC().Format(time.RFC3339)
	if h.LastError != "" {
		// One comment line: controls and line separators become spaces.
		note += ": " + strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
				return ' '
			}
			return r
		}, h.LastError)
	}
	return note + "\n"
}

// stringOr decodes args as a JSON string into s, or as an object into obj.
func stringOr(args []byte, s *string, obj any) error {
	if err := json.Unmarshal(args, s); err == nil {
		return nil
	}
	return json.Unmarshal(args, obj)
}

// Visible reports whether a chain of sess may call the tool of info: a
// local tool on its allow-list whose scopes its profile grants and whose
// risk its profile's gates do not deny.
func Visible(sess *session.Session, info toolbox.Info) bool {
	return info.Kind == toolbox.KindLocal && sess.Allows(info.Name) && sess.Governance().Profile().Callable(info)
}

// Search returns up to limit tools for which visible is true that match query, best
// first: every word of the query found in a tool's name counts 3, in its
// description 2, in its guidance 1; a tool must match at least one word.
// An empty query lists the visible tools in registration order.
func Search(box *toolbox.Toolbox, visible func(toolbox.Info) bool, query string, limit int) []SearchHit {
	words := strings.Fields(strings.ToLower(query))
	type scored struct {
		hit   SearchHit
		score int
		order int
	}
	var found []scored
	for i, e := range box.Entries() {
		info := e.Info()
		if !visible(info) {
			continue
		}
		score := 0
		name, desc, guide := strings.ToLower(info.Name), strings.ToLower(info.Description), strings.ToLower(info.Guidance)
		for _, w := range words {
			wn := strings.ReplaceAll(w, " ", "_")
			if strings.Contains(name, wn) || strings.Contains(strings.ReplaceAll(name, "_", " "), w) {
				score += 3
			}
			if strings.Contains(desc, w) {
				score += 2
			}
			if strings.Contains(guide, w) {
				score++
			}
		}
		if len(words) > 0 && score == 0 {
			continue
		}
		found = append(found, scored{SearchHit{info.Name, info.Description}, score, i})
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.order, b.order))
	})
	out := make([]SearchHit, 0, min(limit, len(found)))
	for _, f := range found[:min(limit, len(found))] {
		out = append(out, f.hit)
	}
	return out
}

// Describe returns the TypeScript declaration of the tool named name if
// visible says it may be called.
func Describe(box *toolbox.Toolbox, visible func(toolbox.Info) bool, name string) (string, bool) {
	e, ok := box.Lookup(name)
	if !ok || !visible(e.Info()) {
		return "", false
	}
	return box.Declaration(name)
}
