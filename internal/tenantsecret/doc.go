// Package tenantsecret keeps the secrets of each tenant apart: it resolves
// the ${tenant:NAME} references of HTTP tools for the tenant of the calling
// chain, from a directory with one subdirectory per tenant (mounted
// Kubernetes secrets) or from environment variables under a prefix. Both
// sources implement toolbox.TenantSecrets; an embedding program may supply
// its own (a vault client) through the same interface.
//
//	src, err := tenantsecret.New(tenantsecret.Options{Dir: "/var/run/airlock/tenants"})
//	v, err := src.TenantSecret(ctx, "acme", "crm_token") // /var/run/airlock/tenants/acme/crm_token
//
// Names and tenants are checked against strict patterns (ValidName,
// blobstore.ValidTenant) before anything is looked up, so neither can
// climb out of its place: a name is 1 to 64 of a-z, 0-9 and '_' starting
// with a letter; a tenant has no '.', '/' or NUL. Nothing is cached: every
// call reads the secret again, so a rotated secret takes effect on the
// next call. See docs/identity.md.
//
// # Concurrency
//
// Sources are immutable and safe for concurrent use.
//
// # Errors
//
// TenantSecret returns an error wrapping ErrUnavailable for a secret that
// is not set, empty, unreadable or not a regular file, ErrTooLarge for one
// above Options.MaxBytes, and ErrInvalidName for a tenant or name that does
// not satisfy the patterns above (or that the environment source cannot
// name without ambiguity, EnvName). No error holds a value or a host path.
package tenantsecret
