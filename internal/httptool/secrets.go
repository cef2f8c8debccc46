package httptool

import (
	"context"
	"errors"
	"fmt"

	"github.com/airlockrt/airlock/internal/scrub"
	"github.com/airlockrt/airlock/toolbox"
)

// ErrNoSecret is returned by EnvSecrets for a name that is not set, empty
// or not a valid name. Its message names the secret, never a value.
var ErrNoSecret = errors.New("secret not available")

// EnvSecrets returns a toolbox.Secrets reading the environment through
// lookup (os.LookupEnv in production): secret NAME is the variable NAME,
// for names of 1 to 128 of A-Z, a-z, 0-9 and '_' not starting with a
// digit. It reads at call time, so a rotated variable takes effect on the
// next call.
func EnvSecrets(lookup func(string) (string, bool)) toolbox.Secrets {
	return toolbox.SecretsFunc(func(_ context.Context, name string) (string, error) {
		if !validSecretName(name) {
			return "", fmt.Errorf("%w: %q is not a secret name", ErrNoSecret, name)
		}
		v, ok := lookup(name)
		if !ok || v == "" {
			return "", fmt.Errorf("%w: %s is not set", ErrNoSecret, name)
		}
		return v, nil
	})
}

func validSecretName(name string) bool {
	if len(name) < 1 || len(name) > 128 || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Thresholds of secret scrubbing (package scrub), in bytes of the secret
// value.
const (
	MinSecretBytes        = scrub.MinSecretBytes
	MinEncodedSecretBytes = scrub.MinEncodedSecretBytes
	FragmentBytes         = scrub.FragmentBytes
)
