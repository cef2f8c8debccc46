package invoker

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/airlockrt/airlock/toolbox"
)

// Decision is an approval handler's answer.
type Decision int

const (
	// Denied refuses the call. The zero value, so a forgotten decision denies.
	Denied Decision = iota
	// Approved lets the call run with exactly the arguments in the request.
	Approved
)

// String returns "denied" or "approved".
func (d Decision) String() string {
	if d == Approved {
		return "approved"
	}
	return "denied"
}

// ApprovalRequest is what a handler decides on. Args are frozen: they are a
// canonical encoding (sorted keys, no duplicates) of what the chain sent, and
// exactly those bytes run if the call is approved. They are the call's own
// bytes, not a copy (a copy would be one more held for as long as the
// handler decides; docs/limits.md, "Host memory held for calls"): a handler
// must not modify them. One that does fails the call with approval_failed;
// it never runs other bytes than the ones hashed. A handler that keeps Args
// after Approve returns keeps that memory.
type ApprovalRequest struct {
	SessionID string
	Tenant    string
	Tool      string
	Risk      toolbox.Risk
	Args      json.RawMessage
	// ArgsHash is the hex SHA-256 of Args: bind a decision to it.
	ArgsHash string
	// Line and Column are where in the chain's script the call was made
	// (Call.Line and Call.Column): 1-based, Column in UTF-16 units; 0 when
	// unknown (and Column 0 when only the line is known).
	Line, Column int `json:",omitempty"`
}

// ApprovalHandler decides whether a call above Policy.MaxRiskUnapproved runs.
// ctx expires after Policy.ApprovalTimeout; a handler that answers later is
// ignored and the call is denied with approval_timeout. Approve may be called
// concurrently.
type ApprovalHandler interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ErrApprovalRefused is wrapped by an ApprovalHandler's error to refuse a
// request for a reason the chain may read (a full queue, arguments too
// large to review): the call is denied with approval_failed and the
// message quotes the error. Any other error is not quoted, since it may
// hold host details.
var ErrApprovalRefused = errors.New("invoker: approval refused")

// ApprovalFunc adapts a function to ApprovalHandler.
type ApprovalFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Approve implements ApprovalHandler.
func (f ApprovalFunc) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}
