package server

import (
	"errors"
	"fmt"
	"net/http"

	"go.opentelemetry.io/otel/propagation"

	"github.com/airlockrt/airlock/service"
)

// submitStatus is the HTTP status of each reason a submission is refused
// for; a reason not listed is 400.
var submitStatus = map[string]int{
	service.ReasonTenantMismatch:   http.StatusForbidden,
	service.ReasonForbiddenRole:    http.StatusForbidden,
	service.ReasonBodyTooLarge:     http.StatusRequestEntityTooLarge,
	service.ReasonTooManyChains:    http.StatusTooManyRequests,
	service.ReasonInternal:         http.StatusInternalServerError,
	service.ReasonShuttingDown:     http.StatusServiceUnavailable,
	service.ReasonStoreUnavailable: http.StatusServiceUnavailable,
}

// writeSubmitError answers a refused submission.
func writeSubmitError(w http.ResponseWriter, err error) {
	var se *service.SubmitError
	if !errors.As(err, &se) {
		writeError(w, http.StatusInternalServerError, ReasonInternal, "the chain could not be started")
		return
	}
	code, ok := submitStatus[se.Reason]
	if !ok {
		code = http.StatusBadRequest
	}
	writeErrorBody(w, code, errorBody{Reason: se.Reason, Message: se.Message, Line: se.Line, Column: se.Column})
}

// submit handles POST /v1/chains.
func (s *Server) submit(w http.ResponseWriter, r *http.Request, c service.Caller) {
	var req service.SubmitRequest
	if rerr := decodeBody(w, r, s.svc.MaxRequestBytes(), &req); rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	var o service.SubmitOptions
	switch v := r.URL.Query().Get("async"); v {
	case "", "0":
	case "1":
		o.Detach = true
	default:
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, fmt.Sprintf("async=%q: use async=1 or leave it out", clip(v)))
		return
	}
	// A traceparent header makes the chain's span continue the caller's
	// trace.
	ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	v, err := s.svc.Submit(ctx, c, &req, o)
	if err != nil {
		writeSubmitError(w, err)
		return
	}
	if o.Detach {
		w.Header().Set("Location", "/v1/chains/"+v.ID)
		writeJSON(w, http.StatusAccepted, v)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func chainNotFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, ReasonChainNotFound,
		fmt.Sprintf("no chain %q for this API key (finished chains are kept for a limited time)", clip(id)))
}

// getChain handles GET /v1/chains/{id}: the chain from this process, or,
// in a fleet, from the shared store (a chain another process runs, or one
// that parked).
func (s *Server) getChain(w http.ResponseWriter, r *http.Request, c service.Caller) {
	v, err := s.svc.Chain(r.Context(), c.Tenant, r.PathValue("id"))
	if err != nil {
		chainNotFound(w, r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// cancelChain handles DELETE /v1/chains/{id}: 200 with the chain ended,
// 202 when it is still ending after the service's wait.
func (s *Server) cancelChain(w http.ResponseWriter, r *http.Request, c service.Caller) {
	v, err := s.svc.Cancel(r.Context(), c.Tenant, r.PathValue("id"))
	switch {
	case err == nil && v.Finished.IsZero():
		writeJSON(w, http.StatusAccepted, v)
	case err == nil:
		writeJSON(w, http.StatusOK, v)
	case errors.Is(err, service.ErrNotFound):
		chainNotFound(w, r.PathValue("id"))
	case errors.Is(err, service.ErrRunningElsewhere):
		writeError(w, http.StatusConflict, ReasonRunningElsewhere, message(err, service.ErrRunningElsewhere))
	case errors.Is(err, service.ErrFinished):
		writeError(w, http.StatusConflict, ReasonChainFinished, message(err, service.ErrFinished))
	default:
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be written; retry")
	}
}

// message is err's text for people, without the sentinel's prefix.
func message(err, sentinel error) string {
	msg := err.Error()
	if len(msg) > len(sentinel.Error())+2 && msg[:len(sentinel.Error())] == sentinel.Error() {
		return msg[len(sentinel.Error())+2:]
	}
	return msg
}

// clip bounds client-supplied text echoed in messages.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// listChains handles GET /v1/chains: the tenant's chains, newest first,
// optionally of one status (?status=).
func (s *Server) listChains(w http.ResponseWriter, r *http.Request, c service.Caller) {
	status := r.URL.Query().Get("status")
	if len(status) > 32 {
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, "status must be a chain status (running, waiting_approval, parked, ok, error, …)")
		return
	}
	list, err := s.svc.Chains(r.Context(), c.Tenant, status)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be read; retry")
		return
	}
	writeJSON(w, http.StatusOK, map[string][]service.ChainSummary{"chains": list})
}

// setIdentity handles POST /v1/chains/{id}/identity: a fresh delegated
// identity for a running chain (body as SubmitRequest.identity); 204.
func (s *Server) setIdentity(w http.ResponseWriter, r *http.Request, c service.Caller) {
	var body service.SubmitIdentity
	if rerr := decodeBody(w, r, s.svc.MaxRequestBytes(), &body); rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	err := s.svc.SetIdentity(r.Context(), c.Tenant, r.PathValue("id"), &body)
	var se *service.SubmitError
	switch {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.As(err, &se):
		writeError(w, http.StatusBadRequest, se.Reason, se.Message)
	case errors.Is(err, service.ErrNotFound):
		chainNotFound(w, r.PathValue("id"))
	case errors.Is(err, service.ErrRunningElsewhere):
		writeError(w, http.StatusConflict, ReasonRunningElsewhere, message(err, service.ErrRunningElsewhere))
	case errors.Is(err, service.ErrFinished):
		writeError(w, http.StatusConflict, ReasonChainFinished, message(err, service.ErrFinished))
	case errors.Is(err, service.ErrNotResumable):
		writeError(w, http.StatusConflict, ReasonChainParked, message(err, service.ErrNotResumable))
	default:
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be read; retry")
	}
}
