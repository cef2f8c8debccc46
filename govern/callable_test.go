package govern_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/toolbox"
)

// TestCallable: what discovery shows a chain — scopes granted and a gate
// other than deny at the tool's base risk.
func TestCallable(t *testing.T) {
	scoped := toolbox.Info{Name: "push", Scopes: []string{"repo:write"}, Risk: toolbox.High}
	plain := toolbox.Info{Name: "read", Risk: toolbox.Safe}
	for _, tc := range []struct {
		name string
		p    govern.Profile
		info toolbox.Info
		want bool
	}{
		{"no scopes needed", govern.Profile{}, plain, true},
		{"scope not granted", govern.Profile{}, scoped, false},
		{"scope granted", govern.Profile{Scopes: []string{"repo:write"}}, scoped, true},
		{"every scope granted", govern.Profile{Scopes: []string{"*"}}, scoped, true},
		{"restricted denies HIGH", govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Restricted}, scoped, false},
		{"restricted allows SAFE", govern.Profile{Autonomy: govern.Restricted}, plain, true},
		{"a profile's own deny", govern.Profile{Matrix: govern.Matrix{govern.Supervised: {govern.Deny, govern.Deny, govern.Deny}}}, plain, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.p.Callable(tc.info))
		})
	}
}
