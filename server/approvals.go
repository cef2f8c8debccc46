package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/service"
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
func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request, c service.Caller) {
	list, err := s.svc.Approvals(r.Context(), c.Tenant)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be read; retry")
		return
	}
	writeJSON(w, http.StatusOK, map[string][]approval.Request{"approvals": list})
}

// getApproval handles GET /v1/approvals/{id}.
func (s *Server) getApproval(w http.ResponseWriter, r *http.Request, c service.Caller) {
	req, err := s.svc.Approval(r.Context(), c.Tenant, r.PathValue("id"))
	if err != nil {
		approvalNotFound(w, r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, req)
}

func approvalNotFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, ReasonApprovalNotFound,
		fmt.Sprintf("no approval request %q for this API key", clip(id)))
}

// decide handles POST /v1/approvals/{id}.
func (s *Server) decide(w http.ResponseWriter, r *http.Request, c service.Caller) {
	var body DecisionRequest
	if rerr := decodeBody(w, r, s.svc.MaxRequestBytes(), &body); rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	var d service.Decision
	switch strings.ToLower(body.Decision) {
	case "approve", "approved":
		d.Approve = true
	case "deny", "denied":
	default:
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, fmt.Sprintf("decision %q must be approve or deny", clip(body.Decision)))
		return
	}
	if body.ArgsHash == "" {
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, "args_hash is required: send the args_hash of the request you were shown")
		return
	}
	d.ArgsHash = body.ArgsHash
	id := r.PathValue("id")
	out, err := s.svc.Decide(r.Context(), c.Tenant, id, d)
	var expired *service.ExpiredError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, out)
	case errors.Is(err, approval.ErrArgsMismatch):
		writeError(w, http.StatusConflict, ReasonArgsMismatch,
			"args_hash is not the hash of this request's arguments: the decision was made on other arguments and was refused; the request is still pending")
	case errors.Is(err, approval.ErrAlreadyDecided):
		writeErrorBody(w, http.StatusConflict, errorBody{Reason: ReasonAlreadyDecided, Decision: out.Decision.String(),
			Message: fmt.Sprintf("the request was already %s; this decision changed nothing", out.Decision)})
	case errors.As(err, &expired):
		writeError(w, http.StatusGone, ReasonApprovalExpired, "the request expired before this decision ("+expired.Why+")")
	case errors.Is(err, service.ErrStoreUnavailable):
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the decision could not be recorded in the fleet's store; retry")
	default:
		approvalNotFound(w, id)
	}
}

// approvalContext handles GET /v1/approvals/{id}/context: the request with
// what a person needs beside it to decide (service.ApprovalContext).
func (s *Server) approvalContext(w http.ResponseWriter, r *http.Request, c service.Caller) {
	out, err := s.svc.ApprovalContext(r.Context(), c.Tenant, r.PathValue("id"))
	if err != nil {
		approvalNotFound(w, r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, out)
}
