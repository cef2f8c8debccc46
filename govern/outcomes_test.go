package govern_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/govern"
)

type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// TestOutcomes runs the same cases against the in-memory outcomes and the
// blob-store ones (two Stores over one storage: two processes).
func TestOutcomes(t *testing.T) {
	ctx := context.Background()
	for _, impl := range []string{"mem", "store"} {
		t.Run(impl, func(t *testing.T) {
			c := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			var a, b govern.Outcomes
			if impl == "mem" {
				a = govern.NewMemOutcomes(c.Now)
				b = a
			} else {
				d := memblob.New()
				a = govern.NewStoreOutcomes(blobstore.New(d, blobstore.Options{}), c.Now)
				b = govern.NewStoreOutcomes(blobstore.New(d, blobstore.Options{}), c.Now)
			}
			w := time.Hour
			prior, err := a.Begin(ctx, "acme", "send", "k", "h", w)
			require.NoError(t, err)
			require.Nil(t, prior, "the first Begin creates")
			prior, err = b.Begin(ctx, "acme", "send", "k", "h", w)
			require.NoError(t, err)
			require.Equal(t, govern.OutcomePending, prior.State)
			require.NoError(t, a.Finish(ctx, "acme", "send", "k", govern.Outcome{State: govern.OutcomeOK, Result: []byte(`{"status":"ok"}`), Created: c.now}))
			prior, err = b.Begin(ctx, "acme", "send", "k", "h", w)
			require.NoError(t, err)
			require.Equal(t, govern.OutcomeOK, prior.State)
			require.Equal(t, `{"status":"ok"}`, string(prior.Result))
			// Per tenant and per tool.
			for _, tt := range [][2]string{{"other", "send"}, {"acme", "mail"}} {
				prior, err = b.Begin(ctx, tt[0], tt[1], "k", "h", w)
				require.NoError(t, err)
				require.Nil(t, prior)
			}
			// Past the window the key is free again.
			c.now = c.now.Add(w)
			prior, err = b.Begin(ctx, "acme", "send", "k", "h", w)
			require.NoError(t, err)
			require.Nil(t, prior)
			prior, err = a.Begin(ctx, "acme", "send", "k", "h", w)
			require.NoError(t, err)
			require.Equal(t, govern.OutcomePending, prior.State)
		})
	}
}

func TestStoreOutcomesRefuseBadTenants(t *testing.T) {
	o := govern.NewStoreOutcomes(blobstore.New(memblob.New(), blobstore.Options{}), nil)
	_, err := o.Begin(context.Background(), "../x", "send", "k", "h", time.Hour)
	require.ErrorIs(t, err, blobstore.ErrInvalidTenant)
}

func TestKeys(t *testing.T) {
	require.True(t, govern.ValidKey("order-42:retry.1_A"))
	require.False(t, govern.ValidKey("d:0123"), "the derived keys' prefix is reserved")
	for _, k := range []string{"", "has space", strings.Repeat("k", 129), "ü"} {
		require.False(t, govern.ValidKey(k), k)
	}
	a := govern.DeriveKey("s_1", 1, []byte(`{"a":1}`))
	require.Regexp(t, `^d:[0-9a-f]{64}$`, a)
	require.False(t, govern.ValidKey(a), "a caller cannot pass a derived key")
	require.Equal(t, a, govern.DeriveKey("s_1", 1, []byte(`{"a":1}`)))
	require.NotEqual(t, a, govern.DeriveKey("s_1", 2, []byte(`{"a":1}`)))
	require.NotEqual(t, govern.DeriveKey("s_11", 1, []byte(`{}`)), govern.DeriveKey("s_1", 11, []byte(`{}`)), "unambiguous")
}
