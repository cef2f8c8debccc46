package tenantsecret

import (
	"path/filepath"
	"regexp"

	"github.com/airlockrt/airlock/internal/setting"
	"github.com/airlockrt/airlock/toolbox"
)

// Bounds of a secret's value.
const (
	// DefaultMaxBytes is the default of Options.MaxBytes: 16 KiB, more
	// than any bearer token or API key needs.
	DefaultMaxBytes = 16 << 10
	// MaxMaxBytes is the largest Options.MaxBytes accepted: 1 MiB.
	MaxMaxBytes = 1 << 20
	// MaxNameLen is the longest secret name, in bytes.
	MaxNameLen = 64
)

// Options choose the tenant secret source of a process. The zero value
// configures none: ${tenant:NAME} references are then refused where the
// tools are built.
type Options struct {
	// Dir is an absolute directory holding one subdirectory per tenant and
	// in it one file per secret: Dir/<tenant>/<name>. Symbolic links that
	// stay inside the tenant's subdirectory are followed (the ..data links
	// of a mounted Kubernetes secret); one that leads out of it is refused.
	// Default: none.
	Dir string
	// EnvPrefix turns on the environment source: secret NAME of tenant T
	// is the variable EnvName(EnvPrefix, T, NAME), for instance
	// AIRLOCK_SECRET_ACME__CRM_TOKEN for prefix AIRLOCK_SECRET_. 1 to 64 of
	// A-Z, 0-9 and '_', starting with a letter. Default: none. At most one
	// of Dir and EnvPrefix may be set.
	EnvPrefix string
	// MaxBytes bounds one secret's value in bytes; a larger one is
	// unavailable. Default DefaultMaxBytes; at most MaxMaxBytes.
	MaxBytes int64
	// LookupEnv reads the environment for the environment source. Default
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

var prefixRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

// Validate checks o; an error is a *setting.KeyError naming the key (dir,
// env_prefix or max_bytes).
func (o Options) Validate() error {
	switch {
	case o.Dir != "" && o.EnvPrefix != "":
		return setting.Errorf("env_prefix", "and dir are both set: choose one source")
	case o.Dir != "" && !filepath.IsAbs(o.Dir):
		return setting.Errorf("dir", "%q must be an absolute path", o.Dir)
	case o.EnvPrefix != "" && !prefixRE.MatchString(o.EnvPrefix):
		return setting.Errorf("env_prefix", "%q must be 1 to 64 of A-Z, 0-9 and _, starting with a letter (e.g. AIRLOCK_SECRET_)", o.EnvPrefix)
	case o.MaxBytes < 0 || o.MaxBytes > MaxMaxBytes:
		return setting.Errorf("max_bytes", "%d must be 0 (the default, %d) to %d", o.MaxBytes, DefaultMaxBytes, MaxMaxBytes)
	}
	return nil
}

// Source returns the source o configures, or nil when it configures none.
func (o Options) Source() (toolbox.TenantSecrets, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	max := o.MaxBytes
	if max == 0 {
		max = DefaultMaxBytes
	}
	switch {
	case o.Dir != "":
		return NewDir(o.Dir, max), nil
	case o.EnvPrefix != "":
		return NewEnv(o.EnvPrefix, o.LookupEnv, max), nil
	}
	return nil, nil
}

// ValidName reports whether name is a valid secret name: 1 to MaxNameLen
// bytes of a-z, 0-9 and '_', starting with a letter. Nothing else (no
// '.', '/', '-', upper case or NUL) reaches a source.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > MaxNameLen || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
