package govern

import (
	"cmp"
	"strings"
	"time"
)

// Tool health has two parts. Failures (errors, panics, timeouts) are
// counted per (tenant, tool): a tenant that makes a tool fail on purpose
// (bad input, a hostile upstream request) rests that tool for itself, not
// for the other tenants. An upstream's rate limit (RateLimited) is the
// upstream's word about everyone and rests the tool for every tenant.
// These methods key the tracker so; the Check, Success, Failure and Get
// methods take the key directly.

// callKey is the tracker key of tool's failures for tenant. Neither a
// tenant id nor a tool name holds '/'.
func callKey(tenant, tool string) string { return tenant + "/" + tool }

// CheckCall reports whether tenant may call tool now; when not, until
// when it rests (the later of its rate limit and tenant's failures).
func (h *Health) CheckCall(tenant, tool string) (ok bool, until time.Time) {
	if h.n.Load() == 0 {
		return true, time.Time{}
	}
	ok1, u1 := h.Check(tool)
	ok2, u2 := h.Check(callKey(tenant, tool))
	if u2.After(u1) {
		u1 = u2
	}
	return ok1 && ok2, u1
}

// CallSucceeded records a successful call of tool by tenant.
func (h *Health) CallSucceeded(tenant, tool string) {
	if h.n.Load() == 0 {
		return
	}
	h.Success(callKey(tenant, tool))
}

// CallFailed records a failed call of tool by tenant; text is what the
// failure told the chain.
func (h *Health) CallFailed(tenant, tool, text string) { h.Failure(callKey(tenant, tool), text) }

// For returns tool's health as tenant sees it: the worse of its rate
// limit and tenant's failures.
func (h *Health) For(tenant, tool string) ToolHealth {
	g, t := h.Get(tool), h.Get(callKey(tenant, tool))
	w := worse(g, t)
	if w.LastError == "" {
		w.LastError = cmp.Or(t.LastError, g.LastError)
	}
	return w
}

// Worst returns tool's worst health over every tenant, for an operator's
// view (metrics).
func (h *Health) Worst(tool string) ToolHealth {
	w := h.Get(tool)
	if h.n.Load() == 0 {
		return w
	}
	for key, th := range h.All() {
		if _, t, ok := strings.Cut(key, "/"); ok && t == tool {
			w = worse(w, th)
		}
	}
	return w
}

var severity = map[HealthStatus]int{Healthy: 0, Degraded: 1, Unavailable: 2}

func worse(a, b ToolHealth) ToolHealth {
	if severity[b.Status] > severity[a.Status] || severity[b.Status] == severity[a.Status] && b.Until.After(a.Until) {
		return b
	}
	return a
}
