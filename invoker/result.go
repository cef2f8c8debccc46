package invoker

import (
	"encoding/json"
	"time"

	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// Call is one tool call from a chain.
type Call struct {
	// Tool is the tool name.
	Tool string
	// Args is the JSON arguments object. Empty means {}. A top-level
	// member "$idempotency_key" (a string) is taken out of it and used as
	// IdempotencyKey.
	Args json.RawMessage
	// IdempotencyKey is the caller's key for a write-class call: 1 to 128
	// of A-Z, a-z, 0-9, '_', '.', ':' and '-'. Empty: derived from the
	// chain id, the call's number and its canonical arguments.
	IdempotencyKey string
	// Resume, when set, resumes a call that parked (Result.Parked) with
	// the decision taken on it; Tool and Args must be the parked call's.
	// Nil: a new call.
	Resume *Resumption
	// Line and Column are where in the chain's script the call was made
	// (1-based; Column in UTF-16 units, 0 when only the line is known), as
	// the sandbox reports it (sandbox.CallSiteOf); 0 when unknown. The
	// invoker only hands them on, in the ApprovalRequest, so that an
	// approver sees the line that made the call.
	Line, Column int
}

// Result is the outcome of one call. Invoke always returns one; it never
// panics and never returns a Go error for a tool-level failure.
type Result struct {
	// Status is StatusOK, StatusError or StatusDenied (never StatusTimeout: a
	// timed-out call is an error with reason call_timeout), or StatusParked
	// for a call that waits for a decision (Parked is then set and Reason
	// is empty).
	Status session.Status `json:"status"`
	// Reason is the stable reason code of a non-ok result (see reasons.go).
	Reason string `json:"reason,omitempty"`
	// Message says what went wrong and what to do; empty when ok.
	Message string `json:"message,omitempty"`
	// Value is what the chain receives on ok: the tool's JSON (inline, or
	// offloaded and at most Policy.MaxGuestValueBytes: see Plain), or the
	// Artifact envelope when offloaded and larger, or
	// {"value":…,"files":[…]} when the tool returned media.
	Value json.RawMessage `json:"value,omitempty"`
	// Artifact describes an offloaded result; nil when inline.
	Artifact *Artifact `json:"artifact,omitempty"`
	// Plain is set when the result was offloaded but Value is still the
	// tool's own JSON (it is at most Policy.MaxGuestValueBytes).
	Plain bool `json:"-"`
	// Files are the media the tool returned.
	Files []ChainFile `json:"files,omitempty"`

	// The typed envelope: what an audit needs besides the value.

	// DecisionID is the policy decision id of the call ("" when it was
	// refused before the governance checks).
	DecisionID string `json:"decision_id,omitempty"`
	// Latency is how long the call took, approval wait included.
	Latency time.Duration `json:"latency_ns,omitempty"`
	// Truncated says strings of the value were cut to the tool's
	// MaxOutputChars.
	Truncated bool `json:"truncated,omitempty"`
	// Deduped says the value is the recorded outcome of an earlier call
	// with the same idempotency key; the tool did not run again.
	Deduped bool `json:"deduped,omitempty"`
	// Citations and Mutations are the tool's (toolbox.Output), bounded.
	Citations []toolbox.Citation `json:"citations,omitempty"`
	Mutations []string           `json:"mutations,omitempty"`
	// Preview is the tool's preview of a call that met the preview gate
	// (reason preview_required).
	Preview json.RawMessage `json:"preview,omitempty"`
	// RetryAfter is how long to wait before calling again, for reason
	// rate_limited and tool_unavailable.
	RetryAfter time.Duration `json:"retry_after_ns,omitempty"`
	// Parked is the call waiting for a decision, for status
	// session.StatusParked; nil otherwise.
	Parked *ParkedCall `json:"parked,omitempty"`
}

// OK reports whether the call succeeded.
func (r Result) OK() bool { return r.Status == session.StatusOK }

// Artifact is the envelope of a result too large to return inline. It encodes
// as {"$artifact": ref, "preview": …, "size": …, "mime": …}; a chain passes
// it, or just {"$artifact": ref}, into another tool's arguments and the
// invoker swaps in the content.
type Artifact struct {
	Ref     string `json:"$artifact"`
	Preview string `json:"preview"`
	Size    int64  `json:"size"`
	MIME    string `json:"mime"`
}

// ChainFile is one media file a tool returned. With a store, the bytes are
// stored and Ref names them; without one, Data holds them inline.
type ChainFile struct {
	// Path is where the file appears in the chain's workspace, e.g.
	// /workspace/media/render_0.png.
	Path string `json:"path"`
	MIME string `json:"mime"`
	Size int64  `json:"size"`
	Ref  string `json:"$artifact,omitempty"`
	// Source is the tool's name for where the content came from (an MCP
	// resource URI), when it gave one.
	Source string `json:"source,omitempty"`
	// Data is set only when no store is configured (base64 in JSON).
	Data []byte `json:"data,omitempty"`
}
