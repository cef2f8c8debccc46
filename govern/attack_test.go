package govern_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/govern"
)

// Attacks on the idempotency records of a fleet's store (THREATS.md, T3: a
// bucket writer without the fleet key). Each TestAttack… here passes: an
// attack the code withstands, kept as a regression test.

// TestAttackIdempotencyRecordFromAnotherKindOfObject — T3 copies an
// authentic object the fleet made with the same fleet key, of another
// kind (a chain record, ALR1, in the same tenant), to an idempotency
// record's name, and edits an idempotency record's header into the ALR1
// form: neither answers the call (both read as absent, refused and
// counted), so no result the tool did not produce reaches the chain.
func TestAttackIdempotencyRecordFromAnotherKindOfObject(t *testing.T) {
	ctx := context.Background()
	key := []byte(strings.Repeat("k", 32))
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	var refused atomic.Int64
	o := storeOutcomes(t, store, govern.StoreOutcomesOptions{Keys: [][]byte{key}, OnRefused: func() { refused.Add(1) }})
	fleet, err := durable.New(durable.Options{Blobs: store, Key: key})
	require.NoError(t, err)
	require.NoError(t, fleet.PutChain(ctx, &durable.Chain{ID: "ch_1", Tenant: "acme", Status: durable.StatusRunning,
		Created: time.Now(), Lease: time.Now().Add(time.Minute)}))
	rec, _, err := store.GetRecord(ctx, "acme", "chains/ch_1/rec")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(rec), "ALR1 "))

	require.NoError(t, store.PutRecord(ctx, "acme", idemName("send", "k1"), rec, false))
	prior, err := o.Begin(ctx, "acme", "send", "k1", "h", time.Hour)
	require.NoError(t, err)
	require.Nil(t, prior, "a chain record is no idempotency record")

	_, err = o.Begin(ctx, "acme", "send", "k2", "h", time.Hour)
	require.NoError(t, err)
	require.NoError(t, o.Finish(ctx, "acme", "send", "k2", govern.Outcome{State: govern.OutcomeOK, ArgsHash: "h",
		Created: time.Now(), Result: []byte(`{"status":"ok","value":"real"}`)}))
	genuine, _, err := store.GetRecord(ctx, "acme", idemName("send", "k2"))
	require.NoError(t, err)
	require.NoError(t, store.PutRecord(ctx, "acme", idemName("send", "k2"), append([]byte("ALR1 "), genuine[5:]...), false))
	prior, err = o.Begin(ctx, "acme", "send", "k2", "h", time.Hour)
	require.NoError(t, err)
	require.Nil(t, prior, "the ALI1 MAC under another magic is refused")
	require.EqualValues(t, 2, refused.Load())
}

// TestAttackIdempotencyPendingRecordPutBack — T3 keeps the pending record
// a call wrote when it started and puts it back over the record of its
// result: a re-sent call is refused as still running (denial of service,
// which T3 may do), never run a second time, and the tenant whose record
// it is only (another tenant's call with the same tool and key runs).
func TestAttackIdempotencyPendingRecordPutBack(t *testing.T) {
	ctx := context.Background()
	key := []byte(strings.Repeat("k", 32))
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	o := storeOutcomes(t, store, govern.StoreOutcomesOptions{Keys: [][]byte{key}})
	prior, err := o.Begin(ctx, "acme", "send", "k", "h", time.Hour)
	require.NoError(t, err)
	require.Nil(t, prior)
	pending, _, err := store.GetRecord(ctx, "acme", idemName("send", "k"))
	require.NoError(t, err)
	require.NoError(t, o.Finish(ctx, "acme", "send", "k", govern.Outcome{State: govern.OutcomeOK, ArgsHash: "h",
		Created: time.Now(), Result: []byte(`{"status":"ok","value":"sent"}`)}))

	require.NoError(t, store.PutRecord(ctx, "acme", idemName("send", "k"), pending, false))
	prior, err = o.Begin(ctx, "acme", "send", "k", "h", time.Hour)
	require.NoError(t, err)
	require.NotNil(t, prior, "the call does not run again")
	require.Equal(t, govern.OutcomePending, prior.State)

	require.NoError(t, store.PutRecord(ctx, "globex", idemName("send", "k"), pending, false))
	prior, err = o.Begin(ctx, "globex", "send", "k", "h", time.Hour)
	require.NoError(t, err)
	require.Nil(t, prior, "acme's pending record does not hold globex's call")
}

// TestAttackIdempotencyHeaderOddities — headers a writer without the key
// can make (a non-canonical base64 MAC, padding, a short or long MAC, no
// newline, an empty body, a huge body) are refused as not authentic,
// without a panic, and the call runs.
func TestAttackIdempotencyHeaderOddities(t *testing.T) {
	ctx := context.Background()
	key := []byte(strings.Repeat("k", 32))
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	o := storeOutcomes(t, store, govern.StoreOutcomesOptions{Keys: [][]byte{key}})
	body := `{"state":"ok","created":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","args_hash":"h","result":{"status":"ok","value":"forged"}}`
	for i, rec := range []string{
		"ALI1 " + strings.Repeat("A", 42) + "B\n" + body, // trailing bits set: not canonical
		"ALI1 " + strings.Repeat("A", 42) + "=\n" + body,
		"ALI1 " + strings.Repeat("A", 42) + "\n" + body,
		"ALI1 " + strings.Repeat("A", 44) + "\n" + body,
		"ALI1 " + strings.Repeat("A", 43) + body,
		"ALI1 " + strings.Repeat("A", 43) + "\n",
		"ALI1 ",
		"",
		"ALI1 " + strings.Repeat("A", 43) + "\n" + body + strings.Repeat(" ", 100<<10),
	} {
		k := "odd-" + string(rune('a'+i))
		require.NoError(t, store.PutRecord(ctx, "acme", idemName("send", k), []byte(rec), false))
		prior, err := o.Begin(ctx, "acme", "send", k, "h", time.Hour)
		require.NoError(t, err, "case %d", i)
		require.Nil(t, prior, "case %d: refused, the call runs", i)
	}
}
