package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/service"
)

// AnswerRequest is the body of POST /v1/calls/{id}: exactly one of
// result and error, bound to the call's args_hash.
type AnswerRequest = service.CallAnswer

// AnswerResponse is the answer of POST /v1/calls/{id}.
type AnswerResponse struct {
	Call     service.CallView `json:"call"`
	Answered time.Time        `json:"answered"`
}

// listCalls handles GET /v1/calls.
func (s *Server) listCalls(w http.ResponseWriter, r *http.Request, c service.Caller) {
	list, err := s.svc.Calls(r.Context(), c.Tenant)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be read; retry")
		return
	}
	writeJSON(w, http.StatusOK, map[string][]service.CallView{"calls": list})
}

// chainCalls handles GET /v1/chains/{id}/calls.
func (s *Server) chainCalls(w http.ResponseWriter, r *http.Request, c service.Caller) {
	list, err := s.svc.ChainCalls(r.Context(), c.Tenant, r.PathValue("id"))
	switch {
	case errors.Is(err, service.ErrNotFound):
		writeError(w, http.StatusNotFound, ReasonChainNotFound, fmt.Sprintf("no chain %q for this API key", clip(r.PathValue("id"))))
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be read; retry")
	default:
		writeJSON(w, http.StatusOK, map[string][]service.CallView{"calls": list})
	}
}

func callNotFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, ReasonCallNotFound,
		fmt.Sprintf("no pending call %q for this API key (answered, ended, or never made)", clip(id)))
}

// getCall handles GET /v1/calls/{id}.
func (s *Server) getCall(w http.ResponseWriter, r *http.Request, c service.Caller) {
	v, err := s.svc.Call(r.Context(), c.Tenant, r.PathValue("id"))
	switch {
	case errors.Is(err, service.ErrStoreUnavailable):
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the fleet's store could not be read; retry")
	case err != nil:
		callNotFound(w, r.PathValue("id"))
	default:
		writeJSON(w, http.StatusOK, v)
	}
}

// answerCall handles POST /v1/calls/{id}.
func (s *Server) answerCall(w http.ResponseWriter, r *http.Request, c service.Caller) {
	var body AnswerRequest
	if rerr := decodeBody(w, r, s.svc.MaxRequestBytes(), &body); rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	id := r.PathValue("id")
	v, at, err := s.svc.AnswerCall(r.Context(), c.Tenant, id, body)
	msg := func() string { return strings.TrimPrefix(err.Error(), "service: ") }
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, AnswerResponse{Call: v, Answered: at})
	case errors.Is(err, service.ErrInvalidAnswer):
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, msg())
	case errors.Is(err, approval.ErrArgsMismatch):
		writeError(w, http.StatusConflict, ReasonArgsMismatch,
			"args_hash is not the hash of this call's arguments: the answer was made on other arguments and was refused; the call still waits")
	case errors.Is(err, service.ErrAlreadyAnswered):
		writeError(w, http.StatusConflict, ReasonAlreadyAnswered, "the call was answered before; this answer changed nothing")
	case errors.Is(err, service.ErrCallExpired):
		writeError(w, http.StatusGone, ReasonCallExpired, "the call ended before this answer (its deadline passed, or its chain ended); the script saw call_timeout or cancelled")
	case errors.Is(err, service.ErrResultTooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, ReasonResultTooLarge, msg()+"; store large data elsewhere and return a reference; the call still waits")
	case errors.Is(err, service.ErrOutputMismatch):
		writeError(w, http.StatusUnprocessableEntity, ReasonOutputSchemaMismatch, msg()+"; the call still waits")
	case errors.Is(err, service.ErrStoreUnavailable):
		writeError(w, http.StatusServiceUnavailable, ReasonStoreUnavailable, "the answer could not be recorded in the fleet's store; retry")
	default:
		callNotFound(w, id)
	}
}

// DeclarationsRequest is the body of POST /v1/tools.d.ts.
type DeclarationsRequest struct {
	Tools       []string             `json:"tools,omitempty"`
	CallerTools []service.CallerTool `json:"caller_tools,omitempty"`
}

// declarations handles POST /v1/tools.d.ts: the declarations of the tools
// a chain submitted with this selection and these caller tools would have.
func (s *Server) declarations(w http.ResponseWriter, r *http.Request, c service.Caller) {
	var body DeclarationsRequest
	if rerr := decodeBody(w, r, s.svc.MaxRequestBytes(), &body); rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	ts, err := s.svc.Declarations(body.Tools, body.CallerTools)
	if err != nil {
		writeSubmitError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/typescript; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, ts)
}
