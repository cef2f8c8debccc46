package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/invoker"
)

// DecisionRequest is the body of POST /v1/approvals/{id}.
type DecisionRequest struct {
	// Decision is approve or deny. Required.
	Decision string `json:"decision"`
	// ArgsHash is the args_hash of the request as it was shown. Required:
	// a decision is bound to the exact arguments it was made on.
	ArgsHash string `json:"args_hash"`
}

// listApprovals handles GET /v1/approvals.
// In a fleet, the pending approvals of this process's queue come first,
// then those of the parked chains in the store.
func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request, tenant string) {
	list := s.queue.List(tenant)
	if s.opts.Fleet != nil {
		stored, err := s.storedApprovals(r.Context(), tenant)
		if err != nil {
			s.log.Error("fleet: listing parked approvals failed", "err", err)
			writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be read; retry")
			return
		}
		list = append(list, stored...)
	}
	writeJSON(w, http.StatusOK, map[string][]approval.Request{"approvals": list})
}

// getApproval handles GET /v1/approvals/{id}.
func (s *Server) getApproval(w http.ResponseWriter, r *http.Request, tenant string) {
	id := r.PathValue("id")
	if s.parkedApproval(id) {
		req, ok := s.storedApproval(r.Context(), tenant, id)
		if !ok {
			approvalNotFound(w, id)
			return
		}
		writeJSON(w, http.StatusOK, req)
		return
	}
	req, err := s.queue.Get(tenant, id)
	if err != nil {
		approvalNotFound(w, id)
		return
	}
	writeJSON(w, http.StatusOK, req)
}

func approvalNotFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, ReasonApprovalNotFound,
		fmt.Sprintf("no approval request %q for this API key", clip(id)))
}

// decide handles POST /v1/approvals/{id}.
func (s *Server) decide(w http.ResponseWriter, r *http.Request, tenant string) {
	var body DecisionRequest
	if rerr := decodeBody(w, r, s.opts.MaxRequestBytes, &body); rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	var d invoker.Decision
	switch strings.ToLower(body.Decision) {
	case "approve", "approved":
		d = invoker.Approved
	case "deny", "denied":
		d = invoker.Denied
	default:
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, fmt.Sprintf("decision %q must be approve or deny", clip(body.Decision)))
		return
	}
	if body.ArgsHash == "" {
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, "args_hash is required: send the args_hash of the request you were shown")
		return
	}
	id := r.PathValue("id")
	if s.parkedApproval(id) {
		s.decideParked(w, r, tenant, id, d, body.ArgsHash)
		return
	}
	out, err := s.queue.Decide(tenant, id, d, body.ArgsHash)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, out)
	case errors.Is(err, approval.ErrArgsMismatch):
		refuseDecision(w, ReasonArgsMismatch, out.Decision, "")
	case errors.Is(err, approval.ErrAlreadyDecided):
		refuseDecision(w, ReasonAlreadyDecided, out.Decision, "")
	case errors.Is(err, approval.ErrExpired):
		refuseDecision(w, ReasonApprovalExpired, out.Decision, "approval timeout, or its chain ended; the call was denied")
	default:
		approvalNotFound(w, id)
	}
}

// refuseDecision answers a decision that changed nothing: taken on other
// arguments, after a first one (first), or too late (why says why).
func refuseDecision(w http.ResponseWriter, reason string, first invoker.Decision, why string) {
	switch reason {
	case ReasonArgsMismatch:
		writeError(w, http.StatusConflict, reason,
			"args_hash is not the hash of this request's arguments: the decision was made on other arguments and was refused; the request is still pending")
	case ReasonAlreadyDecided:
		writeErrorBody(w, http.StatusConflict, errorBody{Reason: reason, Decision: first.String(),
			Message: fmt.Sprintf("the request was already %s; this decision changed nothing", first)})
	default:
		writeError(w, http.StatusGone, reason, "the request expired before this decision ("+why+")")
	}
}
