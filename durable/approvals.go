package durable

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// KindCall is Approval.Kind for a caller tool's call waiting for its
// answer (invoker.ParkKindCall); an approval request has no kind.
const KindCall = invoker.ParkKindCall

// KindCredential is Approval.Kind for a call waiting for a fresh delegated
// credential (invoker.ParkKindCredential). It takes no decision and no
// answer: the credential is handed to the process that resumes the chain
// and never reaches the store (docs/identity.md).
const KindCredential = invoker.ParkKindCredential

// Approval is a parked call's approval request, (Kind KindCall) a
// caller tool's call waiting for its answer, or (Kind KindCredential) a
// call waiting for a fresh delegated credential.
type Approval struct {
	ID string `json:"id"`
	// Kind is empty for an approval request, KindCall for a call,
	// KindCredential for a credential.
	Kind    string `json:"kind,omitempty"`
	Tenant  string `json:"tenant"`
	ChainID string `json:"chain_id"`
	Seq     int    `json:"seq"`
	Tool    string `json:"tool"`
	Risk    string `json:"risk"`
	// Args are the canonical arguments the decision binds to (omitted
	// from a chain record's Pending).
	Args       json.RawMessage `json:"args,omitempty"`
	ArgsHash   string          `json:"args_hash"`
	ArgsSize   int             `json:"args_size"`
	DecisionID string          `json:"decision_id,omitempty"`
	// Gate and Rule say why the call waits: the gate it met ("confirm")
	// and the governance rule that chose it ("matrix[supervised][HIGH]").
	Gate string `json:"gate,omitempty"`
	Rule string `json:"rule,omitempty"`
	// Line and Column are where in the chain's script the call was made
	// (1-based; Column in UTF-16 units): 0 when unknown.
	Line    int       `json:"line,omitempty"`
	Column  int       `json:"column,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	// OutputSchema, for a call, is its tool's declared output schema: an
	// answer's result must match it (omitted from a chain record's
	// Pending).
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// IdempotencyKey, for a call, is the key its script gave it.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Audience, for a credential, is the audience of the delegated
	// credential its tool needs (toolbox.Info.Audience).
	Audience string `json:"audience,omitempty"`
}

// Decision is what was decided on an approval request, or the answer to a
// call (Answer set, Approved unread).
type Decision struct {
	Approved bool      `json:"approved"`
	ArgsHash string    `json:"args_hash"`
	By       string    `json:"by,omitempty"`
	At       time.Time `json:"at"`
	// Answer answers a call of kind KindCall: its result or its error.
	Answer *invoker.Answer `json:"answer,omitempty"`
}

// MaxArgsBytes caps an approval request's arguments.
const MaxArgsBytes = 512 << 10

// MaxAnswerBytes caps an answer's result and error together.
const MaxAnswerBytes = 512 << 10

func approvalName(id, leaf string) string { return "approvals/" + id + "/" + leaf }

func requestBinding(tenant, id string) binding {
	return binding{kind: KindRequest, tenant: tenant, object: id}
}
func decisionBinding(tenant, id string) binding {
	return binding{kind: KindDecision, tenant: tenant, object: id}
}

func validApprovalID(id string) bool {
	return (strings.HasPrefix(id, ApprovalPrefix) || strings.HasPrefix(id, CallPrefix) ||
		strings.HasPrefix(id, CredentialPrefix)) && validID(id)
}

// kindOf is the Kind an approval id names.
func kindOf(id string) string {
	switch {
	case strings.HasPrefix(id, CallPrefix):
		return KindCall
	case strings.HasPrefix(id, CredentialPrefix):
		return KindCredential
	}
	return ""
}

func (s *Store) putApproval(ctx context.Context, a *Approval) error {
	if !validApprovalID(a.ID) || kindOf(a.ID) != a.Kind {
		return fmt.Errorf("durable: invalid approval id %q for its kind %q", a.ID, a.Kind)
	}
	if len(a.OutputSchema) > toolbox.MaxSchemaBytes {
		return fmt.Errorf("durable: a call's output schema of %d bytes is over %d", len(a.OutputSchema), toolbox.MaxSchemaBytes)
	}
	if len(a.Args) > MaxArgsBytes {
		return fmt.Errorf("durable: approval arguments of %d bytes are over %d", len(a.Args), MaxArgsBytes)
	}
	sum := sha256.Sum256(a.Args)
	if a.ArgsHash != hex.EncodeToString(sum[:]) {
		return errors.New("durable: an approval's args_hash is not the hash of its arguments")
	}
	if a.Kind == KindCredential {
		// Decided by an identity, never by a person reading them: the
		// arguments stay in the chain's encrypted state, and the request
		// keeps only their hash and size, as a decided one does.
		c := *a
		c.Args = nil
		a = &c
	}
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return s.bs.PutRecord(ctx, a.Tenant, approvalName(a.ID, "req"), s.sign(requestBinding(a.Tenant, a.ID), b), false)
}

// GetApproval reads an approval request and its decision (nil while
// undecided). A request that is not authentic is ErrNotFound wrapping
// ErrForged; a decision that is not authentic is passed over, as absent.
func (s *Store) GetApproval(ctx context.Context, tenant, id string) (*Approval, *Decision, error) {
	if !validApprovalID(id) {
		return nil, nil, ErrNotFound
	}
	b, err := s.readRecord(ctx, tenant, approvalName(id, "req"), requestBinding(tenant, id))
	if err != nil {
		return nil, nil, err
	}
	a, err := decodeApproval(b, tenant, id)
	if err != nil {
		return nil, nil, err
	}
	if a.Kind != kindOf(id) {
		return nil, nil, fmt.Errorf("%w: %w: approval %s's record is of kind %q", ErrNotFound, ErrMalformed, id, a.Kind)
	}
	d, err := s.decision(ctx, tenant, id)
	if d != nil && ((d.Answer != nil) != (a.Kind == KindCall) || a.Kind == KindCredential) {
		d = nil // a decision where an answer belongs, or the reverse, or on a credential: not one
	}
	return a, d, err
}

// decision reads the authentic decision on request id, nil when there is
// none (forged ones are reported and passed over).
func (s *Store) decision(ctx context.Context, tenant, id string) (*Decision, error) {
	b, err := s.readOnce(ctx, tenant, approvalName(id, "decision"), decisionBinding(tenant, id))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeDecision(b, id)
}

// ListApprovals calls fn with each of the tenant's approval requests and
// its decision (nil while undecided).
func (s *Store) ListApprovals(ctx context.Context, tenant string, fn func(*Approval, *Decision) error) error {
	var ids []string
	if err := s.bs.ListRecords(ctx, tenant, "approvals/", func(name string, _ time.Time) error {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(name, "approvals/"), "/req"); ok {
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		a, d, err := s.GetApproval(ctx, tenant, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(a, d); err != nil {
			return err
		}
	}
	return nil
}

// Decide records a decision, create-only: the first decision on a request
// wins, and a later one gets it back with ErrAlreadyDecided. It refuses a
// decision on other arguments (ErrHashMismatch) and one past the request's
// expiry (ErrExpired).
func (s *Store) Decide(ctx context.Context, tenant, id string, d Decision) (Decision, error) {
	a, prev, err := s.GetApproval(ctx, tenant, id)
	if err != nil {
		return Decision{}, err
	}
	if prev != nil {
		return *prev, ErrAlreadyDecided
	}
	if a.Kind == KindCredential {
		return Decision{}, fmt.Errorf("durable: %s waits for a fresh credential, which is handed to the process that resumes its chain; it takes no decision", id)
	}
	if (d.Answer != nil) != (a.Kind == KindCall) {
		return Decision{}, fmt.Errorf("durable: %s takes %s", id, map[bool]string{true: "an answer, not a decision", false: "a decision, not an answer"}[a.Kind == KindCall])
	}
	if d.Answer != nil && len(d.Answer.Result)+len(d.Answer.Error) > MaxAnswerBytes {
		return Decision{}, fmt.Errorf("durable: an answer of %d bytes is over %d", len(d.Answer.Result)+len(d.Answer.Error), MaxAnswerBytes)
	}
	if d.ArgsHash != a.ArgsHash {
		return Decision{}, ErrHashMismatch
	}
	if !a.Expires.IsZero() && s.now().After(a.Expires) {
		return Decision{}, ErrExpired
	}
	if d.At.IsZero() {
		d.At = s.now().UTC()
	}
	b, err := json.Marshal(d)
	if err != nil {
		return Decision{}, err
	}
	switch won, first, err := s.createOnce(ctx, tenant, approvalName(id, "decision"), decisionBinding(tenant, id), b); {
	case err != nil:
		return Decision{}, err
	case !won:
		d, err := decodeDecision(first, id)
		if err != nil {
			return Decision{}, fmt.Errorf("durable: reading the first decision on %s: %w", id, err)
		}
		return *d, ErrAlreadyDecided
	}
	// Best effort: a chain that parks after this sees the decision itself,
	// and one whose index entry is missing has ended.
	_ = s.markDecided(ctx, tenant, a.ChainID)
	// The arguments are no longer needed (the chain's state holds the
	// call): like the approval queue, keep only their hash and size.
	a.Args = nil
	if b, err := json.Marshal(a); err == nil {
		_ = s.bs.PutRecord(ctx, tenant, approvalName(id, "req"), s.sign(requestBinding(tenant, id), b), false)
	}
	return d, nil
}
