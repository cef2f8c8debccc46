package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// MaxSubjectTokenBytes bounds SubmitIdentity.SubjectToken and
// SubmitIdentity.Actor: 8 KiB, more than any access token or JWT a token
// service issues. A larger one is refused with invalid_request.
const MaxSubjectTokenBytes = 8 << 10

// SubmitIdentity is the delegated identity a submitted chain acts for
// (SubmitRequest.Identity, docs/identity.md): the user's token, which
// tools with an audience exchange for a token of their own, and
// optionally the acting agent's. It is kept in process memory for the
// chain's life and nowhere else: no view, event, record, log or parked
// state holds it.
type SubmitIdentity struct {
	// SubjectToken is the user's token. Required; at most
	// MaxSubjectTokenBytes of printable ASCII.
	SubjectToken string `json:"subject_token"`
	// SubjectTokenType is its RFC 8693 token type: access_token (the
	// default), id_token, jwt or refresh_token, written in full
	// (urn:ietf:params:oauth:token-type:…) or by that short name.
	SubjectTokenType string `json:"subject_token_type,omitempty"`
	// Actor is the acting agent's token (RFC 8693 actor_token, of type
	// access_token). Optional; bounded like SubjectToken.
	Actor string `json:"actor,omitempty"`
}

// String, GoString, LogValue and MarshalJSON never show the tokens: a
// SubmitIdentity is decoded from a request and never encoded again (a
// SubmitRequest logged or stored shows "[REDACTED]" in its place).
func (SubmitIdentity) String() string               { return "service.SubmitIdentity{[REDACTED]}" }
func (SubmitIdentity) GoString() string             { return "service.SubmitIdentity{[REDACTED]}" }
func (SubmitIdentity) LogValue() slog.Value         { return slog.StringValue("[REDACTED]") }
func (SubmitIdentity) MarshalJSON() ([]byte, error) { return []byte(`"[REDACTED]"`), nil }

var tokenTypes = []string{toolbox.TokenTypeAccessToken, toolbox.TokenTypeIDToken, toolbox.TokenTypeJWT, toolbox.TokenTypeRefreshToken}

// identity checks a submission's identity and returns what the chain
// carries. Its messages never hold a token.
func identity(in *SubmitIdentity) (*toolbox.Identity, *SubmitError) {
	if in == nil {
		return nil, nil
	}
	check := func(field, v string, required bool) *SubmitError {
		switch {
		case v == "" && required:
			return refuse(ReasonInvalidRequest, "identity.%s is required: the token of the user the chain acts for", field)
		case len(v) > MaxSubjectTokenBytes:
			return refuse(ReasonInvalidRequest, "identity.%s is %d bytes, above the %d bytes a token may have", field, len(v), MaxSubjectTokenBytes)
		}
		for i := 0; i < len(v); i++ {
			if v[i] <= ' ' || v[i] > '~' {
				return refuse(ReasonInvalidRequest, "identity.%s holds a byte that is not printable ASCII (position %d); send the token as issued", field, i)
			}
		}
		return nil
	}
	if rerr := check("subject_token", in.SubjectToken, true); rerr != nil {
		return nil, rerr
	}
	if rerr := check("actor", in.Actor, false); rerr != nil {
		return nil, rerr
	}
	typ := in.SubjectTokenType
	if typ != "" && !strings.Contains(typ, ":") {
		typ = "urn:ietf:params:oauth:token-type:" + typ
	}
	if typ != "" && !slices.Contains(tokenTypes, typ) {
		return nil, refuse(ReasonInvalidRequest, "identity.subject_token_type %q is not access_token, id_token, jwt or refresh_token", clip(in.SubjectTokenType))
	}
	return &toolbox.Identity{SubjectToken: in.SubjectToken, SubjectTokenType: typ, Actor: in.Actor}, nil
}

// credentialRequired streams credential_required after a call of a tool
// with an audience that was refused for want of a usable identity: its
// token was refused (credential_expired), or the chain has none.
func (s *Service) credentialRequired(rn *run, ev invoker.Event) {
	if ev.Reason != invoker.ReasonCredentialExpired &&
		(ev.Reason != invoker.ReasonCredentialUnavailable || rn.identity.Load() != nil) {
		return
	}
	t, ok := s.box.Get(ev.Tool)
	if !ok || t.Info().Audience == "" {
		return
	}
	rn.publish(EventCredentialRequired, CredentialRequiredEvent{Seq: ev.Seq, Tool: ev.Tool, Audience: t.Info().Audience, Reason: ev.Reason,
		Parked: ev.Kind == invoker.ApprovalParked})
}

// SetIdentity hands a chain of tenant a fresh delegated identity (POST
// /v1/chains/{id}/identity), after a credential_required event. A running
// chain's next calls act for it, and the previous one is forgotten: let
// the script retry the refused call. A chain parked on a call waiting for
// a credential (approval.mode park) resumes on this process, acting for
// it, and runs that call again. A malformed identity is a *SubmitError
// (invalid_request); a chain the tenant does not have is ErrNotFound, an
// ended one ErrFinished, one another process runs ErrRunningElsewhere; a
// chain parked waiting for something else, or that another process
// resumed first, ErrNotResumable: an identity lives only in the memory of
// the process that runs the chain (docs/identity.md).
func (s *Service) SetIdentity(ctx context.Context, tenant, id string, in *SubmitIdentity) error {
	if in == nil {
		return refuse(ReasonInvalidRequest, "identity.subject_token is required: the token of the user the chain acts for")
	}
	ident, rerr := identity(in)
	if rerr != nil {
		return rerr
	}
	rn := s.lookup(tenant, id)
	if rn == nil || rn.parked() {
		return s.setStoredIdentity(ctx, tenant, id, rn, ident)
	}
	select {
	case <-rn.done:
		return fmt.Errorf("%w: chain %s already finished with status %s; submit a new chain with the identity", ErrFinished, rn.id, rn.view().Status)
	default:
	}
	// Under mu, against the stretch's end: one that parked (or ended)
	// since the check above is found in the store; one parking for a
	// credential is waited for, then resumed from its park here, as a
	// parked one is (so that, answered, the chain no longer reads
	// parked); one that parks later for a call that was refused before
	// this identity came resumes with it (settle, handOnIdentity).
	rn.mu.Lock()
	settled, parking := rn.result != nil || rn.credParked, rn.credParking
	if !settled {
		rn.identity.Store(ident)
		if !parking {
			rn.handed = ident
		}
	}
	rn.mu.Unlock()
	if parking && !settled {
		// At most storeWait: a stretch that goes on running (other calls
		// of a Promise.all) gets the identity handed on instead, and its
		// park resumes with it (settle).
		t := time.NewTimer(storeWait)
		defer t.Stop()
		select {
		case <-rn.done:
		case <-t.C:
		case <-ctx.Done():
		}
		rn.mu.Lock()
		settled = rn.result != nil || rn.credParked
		if !settled {
			rn.handed = ident
		}
		rn.mu.Unlock()
	}
	if settled {
		return s.setStoredIdentity(ctx, tenant, id, rn, ident)
	}
	return nil
}

// setStoredIdentity is SetIdentity for a chain that does not run here
// (rn nil) or whose stretch here parked or ended: its record says where
// it stands.
func (s *Service) setStoredIdentity(ctx context.Context, tenant, id string, rn *run, ident *toolbox.Identity) error {
	if c, ok := s.storedChain(ctx, tenant, id); ok {
		switch c.Status {
		case durable.StatusRunning:
			return fmt.Errorf("%w: chain %s runs on another airlock process (%s); send the identity to that process", ErrRunningElsewhere, c.ID, clip(c.Node))
		case durable.StatusParked:
			return s.resumeWithIdentity(tenant, c, ident)
		}
		return fmt.Errorf("%w: chain %s already finished with status %s; submit a new chain with the identity", ErrFinished, c.ID, c.Status)
	}
	if rn == nil {
		return ErrNotFound
	}
	rn.mu.Lock()
	ended := rn.result != nil && rn.result.Status != chain.StatusParked
	rn.mu.Unlock()
	if ended {
		return fmt.Errorf("%w: chain %s already finished; submit a new chain with the identity", ErrFinished, rn.id)
	}
	return fmt.Errorf("%w: chain %s is parked, and its record cannot be read now; try again", ErrNotResumable, rn.id)
}

// handOnIdentity is called by settle once rn's stretch parked: when it
// waits for a fresh credential and SetIdentity handed the stretch an
// identity while it ran (the credential_required event comes before the
// park is written), the chain resumes with that identity once the stretch
// has ended here, as if it had been handed to the parked chain. An
// identity handed before the call was refused costs one wake at most.
func (s *Service) handOnIdentity(rn *run, res *chain.RunResult) {
	if !slices.ContainsFunc(res.Parked.Approvals, func(a chain.Approval) bool { return a.Kind == invoker.ParkKindCredential }) {
		return
	}
	rn.mu.Lock()
	rn.credParked = true
	h := rn.handed
	rn.handed = nil
	rn.mu.Unlock()
	if h == nil {
		return
	}
	go func() {
		<-rn.done // its slot is free again
		if _, err := s.resumeNow(rn.tenant, rn.id, h); err != nil && !errors.Is(err, ErrNotResumable) {
			s.log.Warn("fleet: resuming a chain with the identity handed as it parked failed", "chain", rn.id, "err", err)
		}
	}()
}

// resumeWithIdentity resumes parked chain c here, acting for ident, when
// it waits for a fresh credential.
func (s *Service) resumeWithIdentity(tenant string, c *durable.Chain, ident *toolbox.Identity) error {
	if !waitsForCredential(c) {
		return fmt.Errorf("%w: chain %s is parked waiting for a decision or an answer, not for a credential, and a parked chain holds no identity; hand it the identity once it runs again", ErrNotResumable, c.ID)
	}
	_, err := s.resumeNow(tenant, c.ID, ident)
	switch {
	case err == nil, errors.Is(err, ErrNotResumable), errors.Is(err, ErrNotFound):
		return err
	}
	s.log.Error("fleet: resuming a chain with a fresh identity failed", "chain", c.ID, "err", err)
	return fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
}
