package assemble_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/assemble"
)

// TestIdempotencyRecordsUseTheFleetKey: with fleet.key set, the process's
// idempotency records are authenticated with it (fleet.previous_key
// accepted): a record a keyless writer put in the store does not answer a
// call, and the refusal is counted in airlock_idempotency_refused_total.
// Without a fleet key, records are read as they are, as before.
func TestIdempotencyRecordsUseTheFleetKey(t *testing.T) {
	ctx := context.Background()
	const fleetKey, prevKey = "fleet-key-0123456789abcdef-0123456789", "previous-key-0123456789abcdef-012345"
	for _, tc := range []struct {
		name, fleet string
		answered    bool
	}{
		{"fleet key", fmt.Sprintf("fleet:\n  key: %s\n  previous_key: %s\n", fleetKey, prevKey), false},
		{"no fleet key", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := load(t, fmt.Sprintf("store:\n  dir: %s\n%s", t.TempDir(), tc.fleet))
			p, err := assemble.Build(ctx, cfg, assemble.Options{Scripts: true})
			require.NoError(t, err)
			defer p.Close(ctx)
			outcomes := p.Invoker.Governor().Outcomes()
			require.NotNil(t, outcomes)

			keyless, err := govern.NewStoreOutcomes(p.Store, govern.StoreOutcomesOptions{})
			require.NoError(t, err)
			_, err = keyless.Begin(ctx, "acme", "send", "k", "h", time.Hour)
			require.NoError(t, err)
			require.NoError(t, keyless.Finish(ctx, "acme", "send", "k", govern.Outcome{State: govern.OutcomeOK, Result: []byte(`"forged"`), Created: time.Now(), ArgsHash: "h"}))
			prior, err := outcomes.Begin(ctx, "acme", "send", "k", "h", time.Hour)
			require.NoError(t, err)
			if !tc.answered {
				require.Nil(t, prior, "a record made without the fleet key does not answer")
				require.Equal(t, 1.0, counter(t, p, "airlock_idempotency_refused_total"))
				// A record of the previous key still answers.
				prev, err := govern.NewStoreOutcomes(p.Store, govern.StoreOutcomesOptions{Keys: [][]byte{[]byte(prevKey)}})
				require.NoError(t, err)
				_, err = prev.Begin(ctx, "acme", "send", "k2", "h", time.Hour)
				require.NoError(t, err)
				prior, err = outcomes.Begin(ctx, "acme", "send", "k2", "h", time.Hour)
				require.NoError(t, err)
				require.Equal(t, govern.OutcomePending, prior.State)
				return
			}
			require.Equal(t, govern.OutcomeOK, prior.State)
			require.Equal(t, `"forged"`, string(prior.Result))
		})
	}
}

// counter reads the counter name from p's registry.
func counter(t *testing.T, p *assemble.Process, name string) float64 {
	t.Helper()
	mfs, err := p.Registry.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
