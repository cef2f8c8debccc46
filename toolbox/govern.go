package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Class is what kind of effect a tool has, the capability class an
// operator's rules refer to. The classes are ordered from the least to the
// most consequential; every class but ReadOnly is write-class (the invoker
// gives write-class calls an idempotency key).
type Class int

const (
	// ClassUnset is the zero value: the class follows from the risk level
	// (EffectiveClass).
	ClassUnset Class = iota
	// ReadOnly tools read or compute; calling one twice changes nothing.
	ReadOnly
	// LocalWrite tools change state airlock's host owns (a workspace, a
	// local database).
	LocalWrite
	// Network tools send something to another system.
	Network
	// Delegated tools act for a user with that user's authority (send mail
	// as them, merge as them).
	Delegated
	// Destructive tools delete or overwrite what cannot be restored.
	Destructive
)

var classNames = [...]string{"", "read_only", "local_write", "network", "delegated", "destructive"}

// String returns "read_only", "local_write", "network", "delegated",
// "destructive", or "" for ClassUnset.
func (c Class) String() string {
	if c < 0 || int(c) >= len(classNames) {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// Valid reports whether c is ClassUnset or one of the five classes.
func (c Class) Valid() bool { return c >= ClassUnset && c <= Destructive }

// Write reports whether c is a write class: anything but ReadOnly. Call it
// on an EffectiveClass.
func (c Class) Write() bool { return c > ReadOnly }

// ParseClass parses the String form of a class (case-insensitive).
func ParseClass(s string) (Class, error) {
	for i, n := range classNames {
		if i > 0 && strings.EqualFold(s, n) {
			return Class(i), nil
		}
	}
	return ClassUnset, fmt.Errorf("toolbox: unknown class %q (want read_only, local_write, network, delegated or destructive)", s)
}

// MarshalText encodes c as its String form.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText decodes the forms accepted by ParseClass.
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// EffectiveClass is the tool's class: Info.Class, or when unset ReadOnly
// for a Safe tool, LocalWrite for a High one and Destructive for a
// Critical one.
func (i Info) EffectiveClass() Class {
	if i.Class != ClassUnset {
		return i.Class
	}
	switch {
	case i.Risk >= Critical:
		return Destructive
	case i.Risk >= High:
		return LocalWrite
	}
	return ReadOnly
}

// ActionArg is the argument whose string value names the action of a tool
// with an Info.ActionRisk map.
const ActionArg = "action"

// RiskOf returns the risk of a call of the tool with the given action:
// Info.ActionRisk[action] when the map has it, else Info.Risk.
func (i Info) RiskOf(action string) Risk {
	if r, ok := i.ActionRisk[action]; ok {
		return r
	}
	return i.Risk
}

// Example is one worked call of a tool, shown to the model in `airlock
// types` and tools.d.ts. Toolbox.Add validates Input against the input
// schema and Output against the output schema.
type Example struct {
	// Description says what the example shows: at most 200 characters.
	Description string
	// Input is the arguments object. Required.
	Input json.RawMessage
	// Output is the result value. Empty means the example shows no result.
	Output json.RawMessage
}

// Previewer is implemented by tools that can say what a call would do
// without doing it. When the operator's gate matrix answers "preview" for a
// call, the invoker runs Preview instead of Call and hands the chain the
// preview with reason preview_required. A tool without Preview gets a
// generic preview (its name, risk and arguments' size).
type Previewer interface {
	Preview(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
}

// Citation names a source a result drew on.
type Citation struct {
	// Source is a URL, a path or a ref. Required.
	Source string `json:"source"`
	// Title is a human-readable name. Optional.
	Title string `json:"title,omitempty"`
}

// RateLimitedError is returned by a tool whose upstream refused the call
// for now. The invoker marks the tool unavailable until ResetAt and the
// call fails with reason rate_limited.
type RateLimitedError struct {
	// ResetAt is when the upstream accepts calls again.
	ResetAt time.Time
	// Err is the upstream's error, if any.
	Err error
}

func (e *RateLimitedError) Error() string {
	msg := "rate limited until " + e.ResetAt.UTC().Format(time.RFC3339)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *RateLimitedError) Unwrap() error { return e.Err }

// UnavailableError is returned by a tool that cannot take calls for now
// and did not try this one (its upstream is down, restarting, or out of
// sessions): the call fails at once with reason tool_unavailable and the
// chain sees RetryAfter as retryAfterMs. Nothing happened upstream.
type UnavailableError struct {
	// RetryAfter is when the tool may be tried again; zero: unknown.
	RetryAfter time.Duration
	// Err says why, without secrets.
	Err error
}

func (e *UnavailableError) Error() string {
	if e.Err == nil {
		return "unavailable"
	}
	return e.Err.Error()
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// ErrOutcomeUnknown, wrapped in a tool's error, says the tool failed after
// its request may have reached the other side: the effect may or may not
// have happened. The invoker records the outcome as unknown and never
// executes the same idempotency key again.
var ErrOutcomeUnknown = errors.New("toolbox: outcome unknown")

// Secrets gives a tool the secrets it needs at call time. A tool receives a
// Secrets at construction and calls Secret immediately before use, never
// keeping the value beyond the call; the value must not appear in the
// tool's arguments, results or errors.
type Secrets interface {
	// Secret returns the secret named name, or an error that does not
	// contain it.
	Secret(ctx context.Context, name string) (string, error)
}

// SecretsFunc adapts a function to Secrets.
type SecretsFunc func(ctx context.Context, name string) (string, error)

// Secret implements Secrets.
func (f SecretsFunc) Secret(ctx context.Context, name string) (string, error) { return f(ctx, name) }

// TenantSecrets gives a tool the secrets of the tenant a call acts for:
// the ${tenant:NAME} references of an HTTP tool's configuration. The
// tenant is the calling chain's (CallerFrom(ctx).Tenant()), never a value
// the chain supplies. A tool calls TenantSecret immediately before use and
// keeps the value no longer than the call; the value must not appear in
// the tool's arguments, results or errors.
//
// An implementation must never answer one tenant's request with another
// tenant's secret, and must refuse (with an error) a tenant or name that it
// cannot map to exactly one secret.
type TenantSecrets interface {
	// TenantSecret returns the secret named name of tenant, or an error
	// that contains neither the value nor anything read from where it is
	// kept. An empty value is an error too.
	TenantSecret(ctx context.Context, tenant, name string) (string, error)
}

// TenantSecretsFunc adapts a function to TenantSecrets.
type TenantSecretsFunc func(ctx context.Context, tenant, name string) (string, error)

// TenantSecret implements TenantSecrets.
func (f TenantSecretsFunc) TenantSecret(ctx context.Context, tenant, name string) (string, error) {
	return f(ctx, tenant, name)
}

// CredentialUnavailableError is returned by a tool that could not obtain a
// credential the call needs (a secret that is not set, unreadable, too
// large, or not valid in a header) and therefore sent nothing: the call
// fails at once with reason credential_unavailable. Its message names the
// reference as configured, never a value.
type CredentialUnavailableError struct {
	// Ref is the reference as written in the configuration, such as
	// "${tenant:crm_token}" or "${env:API_TOKEN}".
	Ref string
	// Reason says why in words the tool vouches for ("the call has no
	// tenant", "the secret holds a line break"); it is part of Error and
	// reaches the chain. Empty: not said.
	Reason string
	// Err is the secret source's error, for the host's own use (errors.Is,
	// a log line under the operator's control). It is not part of Error: a
	// source may name host paths, or worse, in it.
	Err error
}

func (e *CredentialUnavailableError) Error() string {
	msg := "credential " + e.Ref + " is not available"
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

func (e *CredentialUnavailableError) Unwrap() error { return e.Err }

// CredentialExpiredError is returned by a tool whose delegated credential
// was refused as no longer valid: the token service would not exchange
// the chain's subject token (expired, revoked or otherwise rejected), so a
// fresh one is needed and nothing was sent. The call fails with reason
// credential_expired. Its message names the audience, never a token.
type CredentialExpiredError struct {
	// Audience is the audience the tool asked a token for.
	Audience string
	// Reason says why in words the tool vouches for; it is part of Error.
	Reason string
	// Err is the underlying error, for the host's own use; it is not part
	// of Error.
	Err error
}

func (e *CredentialExpiredError) Error() string {
	msg := "the delegated credential for audience " + e.Audience + " is expired or was refused"
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

func (e *CredentialExpiredError) Unwrap() error { return e.Err }
