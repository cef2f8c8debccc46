package invoker

import (
	"errors"
	"fmt"
)

// ErrInvalidPolicy is wrapped by New and WithPolicy when a Policy field is out
// of range; the message names the field and the allowed range.
var ErrInvalidPolicy = errors.New("chain policy")

// ErrNilToolbox is returned by New for a nil *toolbox.Toolbox.
var ErrNilToolbox = errors.New("invoker: nil toolbox")

// ErrInvalidOptions is wrapped by New when an Options field is out of range.
var ErrInvalidOptions = errors.New("invoker options")

// ErrTenantQuota is what a *TenantQuotaError is (errors.Is).
var ErrTenantQuota = errors.New("invoker: tenant artifact quota exceeded")

// TenantQuotaError is returned by ChargeTenantBytes when the bytes would
// take the tenant past Options.MaxTenantArtifactBytes; nothing was
// charged.
type TenantQuotaError struct {
	// Needed is the bytes asked for, Left what the tenant has left of its
	// Limit (all in bytes).
	Needed, Left, Limit int64
}

func (e *TenantQuotaError) Error() string {
	return fmt.Sprintf("%v: %d bytes needed, %d of the tenant's %d left (store.max_tenant_artifact_bytes)", ErrTenantQuota, e.Needed, e.Left, e.Limit)
}

// Is reports whether target is ErrTenantQuota.
func (e *TenantQuotaError) Is(target error) bool { return target == ErrTenantQuota }
