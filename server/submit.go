package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Caller is who submits chains through another face (MCP): a tenant and
// the profile of the API key that authenticated it.
type Caller struct {
	// Tenant is the tenant the caller's chains run for.
	Tenant  string
	profile *Profile
	// approver: the caller's key may also decide approvals (role all or
	// approver), as POST /v1/approvals/{id} requires.
	approver bool
}

// MayApprove reports whether the caller may decide its tenant's approval
// requests: a key of role all (or no role), or the local caller. A
// submit-only key may not, so an agent loop cannot approve its own calls
// through another face either.
func (c Caller) MayApprove() bool { return c.approver }

// CallerOf returns the caller of an API key allowed to submit chains
// (role all or submit). Without API keys every request is the local
// caller (DefaultTenant, the default profile) and key is ignored.
func (s *Server) CallerOf(key string) (Caller, bool) {
	if s.opts.Authenticate == nil {
		return s.LocalCaller(), true
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return Caller{}, false
	}
	tenant, ok := s.opts.Authenticate(key)
	if !ok {
		return Caller{}, false
	}
	role := RoleAll
	if s.opts.KeyRole != nil {
		role = s.opts.KeyRole(key)
	}
	if role != RoleAll && role != RoleSubmit {
		return Caller{}, false
	}
	c := Caller{Tenant: tenant, approver: role == RoleAll}
	if s.opts.Profile != nil {
		c.profile = s.opts.Profile(key)
	}
	return c, true
}

// LocalCaller is the caller of a face on the server's own machine with no
// API key (the stdio MCP server): DefaultTenant under the profile of the
// empty key (the default profile).
func (s *Server) LocalCaller() Caller {
	c := Caller{Tenant: DefaultTenant, approver: true}
	if s.opts.Profile != nil {
		c.profile = s.opts.Profile("")
	}
	return c
}

// NeedsKeys reports whether the server has API keys.
func (s *Server) NeedsKeys() bool { return s.opts.Authenticate != nil }

// SubmitError is a submission the server refused, as POST /v1/chains
// would answer it.
type SubmitError struct {
	// Status is the HTTP status POST /v1/chains answers.
	Status int
	// Reason is the stable code, Message the text; Line and Column locate
	// an invalid_script error.
	Reason, Message string
	Line, Column    int
}

func (e *SubmitError) Error() string { return e.Reason + ": " + e.Message }

// Submit runs req for c to its end, as a synchronous POST /v1/chains:
// the same validation, ceilings, profile, concurrency limit, retention and
// event stream. ctx ending cancels the chain. watch, when set, receives
// the chain's events as they happen, one at a time and in order; it must
// not block for long (the chain's calls wait for it). The chain is
// retained like any other (GET /v1/chains/{id}).
func (s *Server) Submit(ctx context.Context, c Caller, req *SubmitRequest, watch func(Event)) (ChainView, error) {
	if size := int64(len(req.Script) + len(req.Input)); size > s.opts.MaxRequestBytes {
		return ChainView{}, &SubmitError{Status: http.StatusRequestEntityTooLarge, Reason: ReasonBodyTooLarge,
			Message: fmt.Sprintf("the script is %d bytes, above the server's %d (server.max_request_bytes)", size, s.opts.MaxRequestBytes)}
	}
	rn, rerr := s.start(s.baseCtx, ctx, c.Tenant, req, c.profile, watch)
	if rerr != nil {
		return ChainView{}, &SubmitError{Status: rerr.code, Reason: rerr.body.Reason, Message: rerr.body.Message,
			Line: rerr.body.Line, Column: rerr.body.Column}
	}
	<-rn.done
	return s.endView(ctx, rn), nil
}

// Mount serves h at pattern (e.g. "/mcp") beside the API: behind the same
// host and origin checks when the server has no API keys, and with keys
// only for a bearer key that may submit chains (401 otherwise, before the
// body is read); h finds the caller itself (CallerOf). Call it before
// Serve.
//
// A request body is read whole first, within the API's body timeout and
// request size; the connection's read deadline is then lifted, so a long
// answer (a chain that runs for minutes) is not cut.
func (s *Server) Mount(pattern string, h http.Handler) {
	s.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Authenticate != nil {
			key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if _, valid := s.CallerOf(key); !ok || !valid {
				w.Header().Set("WWW-Authenticate", `Bearer realm="airlock"`)
				writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "send an API key allowed to submit chains: Authorization: Bearer <key>")
				return
			}
		}
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes))
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					writeError(w, http.StatusRequestEntityTooLarge, ReasonBodyTooLarge, fmt.Sprintf("the request body is above %d bytes", s.opts.MaxRequestBytes))
					return
				}
				writeError(w, http.StatusRequestTimeout, ReasonBodyTimeout, "the request body did not arrive in time")
				return
			}
			_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
}

// Profile returns the caller's profile (nil: the zero govern.Profile, the
// server's policy and every tool).
func (c Caller) Profile() *Profile { return c.profile }
