package tenantsecret

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/airlockrt/airlock/blobstore"
)

// Env reads secrets from environment variables under a prefix (EnvName).
// It implements toolbox.TenantSecrets.
type Env struct {
	prefix string
	lookup func(string) (string, bool)
	max    int64
}

// NewEnv returns the environment source of prefix, reading through lookup
// (nil: os.LookupEnv), with values of at most maxBytes (<= 0:
// DefaultMaxBytes). It reads at call time, so a changed variable takes
// effect on the next call.
func NewEnv(prefix string, lookup func(string) (string, bool), maxBytes int64) *Env {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Env{prefix: prefix, lookup: lookup, max: maxBytes}
}

// EnvName returns the variable holding secret name of tenant under
// prefix: prefix, the tenant upper-cased with each '-' written '_', two
// underscores, then the name upper-cased. Tenant acme-eu's crm_token under
// AIRLOCK_SECRET_ is AIRLOCK_SECRET_ACME_EU__CRM_TOKEN.
//
// The mapping is one-to-one: the tenant part never holds two underscores in
// a row nor ends with one, so the first "__" after the prefix ends it, and
// the name part is the rest. For that, it serves only tenant ids made of
// a-z and 0-9 in runs joined by single hyphens (^[a-z0-9]+(-[a-z0-9]+)*$):
// a tenant id with '_' (a_b could not be told from a-b), "--" or a trailing
// '-' is refused with ErrInvalidName, so no two tenants can ever reach the
// same variable. Such tenants use the directory source.
func EnvName(prefix, tenant, name string) (string, error) {
	if !blobstore.ValidTenant(tenant) || !envTenant(tenant) || !ValidName(name) {
		return "", fmt.Errorf("%w: tenant %q and secret %q cannot be named in the environment (tenant ids of a-z, 0-9 and single inner '-' only; use the directory source)",
			ErrInvalidName, tenant, name)
	}
	t := strings.ReplaceAll(strings.ToUpper(tenant), "-", "_")
	return prefix + t + "__" + strings.ToUpper(name), nil
}

// envTenant reports whether tenant is runs of a-z0-9 joined by single '-'.
func envTenant(tenant string) bool {
	prevHyphen := true // no leading '-'
	for i := 0; i < len(tenant); i++ {
		c := tenant[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			prevHyphen = false
		case c == '-' && !prevHyphen:
			prevHyphen = true
		default:
			return false
		}
	}
	return !prevHyphen
}

// TenantSecret implements toolbox.TenantSecrets.
func (e *Env) TenantSecret(_ context.Context, tenant, name string) (string, error) {
	v, err := EnvName(e.prefix, tenant, name)
	if err != nil {
		return "", err
	}
	s, ok := e.lookup(v)
	switch {
	case !ok || s == "":
		return "", fmt.Errorf("%w: %s is not set", ErrUnavailable, v)
	case int64(len(s)) > e.max:
		return "", fmt.Errorf("%w: %s is larger than %d bytes", ErrTooLarge, v, e.max)
	}
	return s, nil
}
