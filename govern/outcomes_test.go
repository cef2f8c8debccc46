package govern_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync/atomic"
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
				a = storeOutcomes(t, blobstore.New(d, blobstore.Options{}), govern.StoreOutcomesOptions{Now: c.Now})
				b = storeOutcomes(t, blobstore.New(d, blobstore.Options{}), govern.StoreOutcomesOptions{Now: c.Now})
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
	o := storeOutcomes(t, blobstore.New(memblob.New(), blobstore.Options{}), govern.StoreOutcomesOptions{})
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

func storeOutcomes(t *testing.T, rs govern.RecordStore, opts govern.StoreOutcomesOptions) govern.Outcomes {
	t.Helper()
	o, err := govern.NewStoreOutcomes(rs, opts)
	require.NoError(t, err)
	return o
}

// idemName is the record name NewStoreOutcomes stores (tool, key) under.
func idemName(tool, key string) string {
	sum := sha256.Sum256([]byte(key))
	return "idem/" + tool + "/" + hex.EncodeToString(sum[:])
}

// TestStoreOutcomesAuthenticated: with fleet keys, a record answers a
// re-sent call only if the fleet key made it for that tenant, tool and
// idempotency key. A record written without the key, under another key,
// edited, or moved to another key, tool or tenant reads as absent: Begin
// creates the pending record (the call runs), and the refusal is counted.
// A previous key's record is accepted during rotation.
func TestStoreOutcomesAuthenticated(t *testing.T) {
	ctx := context.Background()
	key := []byte(strings.Repeat("k", 32))
	oldKey := []byte(strings.Repeat("o", 32))
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	var refused atomic.Int64
	fleet := storeOutcomes(t, store, govern.StoreOutcomesOptions{Keys: [][]byte{key, oldKey}, OnRefused: func() { refused.Add(1) }})
	keyless := storeOutcomes(t, store, govern.StoreOutcomesOptions{})
	other := storeOutcomes(t, store, govern.StoreOutcomesOptions{Keys: [][]byte{[]byte(strings.Repeat("x", 32))}})
	rotated := storeOutcomes(t, store, govern.StoreOutcomesOptions{Keys: [][]byte{oldKey}})
	forged := govern.Outcome{State: govern.OutcomeOK, Result: []byte(`{"status":"ok","value":"forged"}`), Created: time.Now(), ArgsHash: "h"}
	write := func(o govern.Outcomes, tenant, k string) {
		t.Helper()
		_, err := o.Begin(ctx, tenant, "send", k, "h", time.Hour)
		require.NoError(t, err)
		require.NoError(t, o.Finish(ctx, tenant, "send", k, forged))
	}
	// runs asserts that Begin finds no record (the call runs) and reads
	// its own pending record back.
	runs := func(tenant, k string) {
		t.Helper()
		prior, err := fleet.Begin(ctx, tenant, "send", k, "h", time.Hour)
		require.NoError(t, err)
		require.Nil(t, prior, "a record the fleet key did not make reads as absent")
		prior, err = fleet.Begin(ctx, tenant, "send", k, "h", time.Hour)
		require.NoError(t, err)
		require.Equal(t, govern.OutcomePending, prior.State, "its own record replaced it")
	}

	write(keyless, "acme", "k-keyless")
	runs("acme", "k-keyless")
	write(other, "acme", "k-other")
	runs("acme", "k-other")
	require.EqualValues(t, 2, refused.Load())

	// A genuine record answers.
	write(fleet, "acme", "k1")
	prior, err := fleet.Begin(ctx, "acme", "send", "k1", "h", time.Hour)
	require.NoError(t, err)
	require.Equal(t, govern.OutcomeOK, prior.State)
	require.JSONEq(t, `{"status":"ok","value":"forged"}`, string(prior.Result))
	genuine, _, err := store.GetRecord(ctx, "acme", idemName("send", "k1"))
	require.NoError(t, err)

	// Moved to another key, tool or tenant; edited.
	for _, mv := range []struct{ tenant, tool, key string }{{"acme", "send", "k2"}, {"acme", "mail", "k1"}, {"globex", "send", "k1"}} {
		require.NoError(t, store.PutRecord(ctx, mv.tenant, idemName(mv.tool, mv.key), genuine, false))
		prior, err := fleet.Begin(ctx, mv.tenant, mv.tool, mv.key, "h", time.Hour)
		require.NoError(t, err)
		require.Nil(t, prior, "%s/%s/%s: a record moved from elsewhere is refused", mv.tenant, mv.tool, mv.key)
	}
	edited := []byte(strings.Replace(string(genuine), `"state":"ok"`, `"state":"failed"`, 1))
	require.NotEqual(t, genuine, edited)
	require.NoError(t, store.PutRecord(ctx, "acme", idemName("send", "k1"), edited, false))
	runs("acme", "k1")
	require.EqualValues(t, 6, refused.Load())

	// Rotation: a record of the previous key is accepted.
	write(rotated, "acme", "k-old")
	prior, err = fleet.Begin(ctx, "acme", "send", "k-old", "h", time.Hour)
	require.NoError(t, err)
	require.Equal(t, govern.OutcomeOK, prior.State)

	_, err = govern.NewStoreOutcomes(store, govern.StoreOutcomesOptions{Keys: [][]byte{[]byte("short")}})
	require.ErrorContains(t, err, "at least 32 bytes")
}
