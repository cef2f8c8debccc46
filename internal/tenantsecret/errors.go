package tenantsecret

import "errors"

var (
	// ErrUnavailable is wrapped by TenantSecret for a secret that is not
	// set, empty, unreadable, or (in a directory) not a regular file.
	ErrUnavailable = errors.New("tenantsecret: secret not available")
	// ErrTooLarge is wrapped by TenantSecret for a secret above
	// Options.MaxBytes.
	ErrTooLarge = errors.New("tenantsecret: secret too large")
	// ErrInvalidName is wrapped by TenantSecret for a tenant or secret name
	// that does not satisfy the package's patterns, and by EnvName for one
	// the environment source cannot name.
	ErrInvalidName = errors.New("tenantsecret: invalid tenant or secret name")
)
