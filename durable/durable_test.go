package durable_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
)

var key = []byte("durable-test-key-0123456789abcdef")

// backend is one shared storage, opened as often as a test needs
// processes.
type backend struct {
	name string
	open func(t testing.TB) blobstore.Driver
}

func backends(t testing.TB) []backend {
	mem := memblob.New()
	dir := t.TempDir()
	bs := []backend{
		{"mem", func(testing.TB) blobstore.Driver { return mem }},
		// Each open is another process over the same directory.
		{"fs", func(t testing.TB) blobstore.Driver {
			d, err := fsblob.New(dir)
			require.NoError(t, err)
			return d
		}},
	}
	if os.Getenv(s3blob.EnvEndpoint) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but AIRLOCK_S3_ENDPOINT is unset: run the tests with scripts/minio.sh run -- go test ./...")
		}
		t.Log("no MinIO: the s3 half is skipped (scripts/minio.sh run -- go test ./durable/)")
		return bs
	}
	cfg, err := s3blob.ConfigFromEnv()
	require.NoError(t, err)
	var b [6]byte
	_, _ = rand.Read(b[:])
	cfg.Bucket = "airlock-durable-" + hex.EncodeToString(b[:])
	return append(bs, backend{"s3", func(t testing.TB) blobstore.Driver {
		d, err := s3blob.New(context.Background(), cfg)
		require.NoError(t, err)
		return d
	}})
}

// stores returns n Stores ("processes") on one storage.
func stores(t testing.TB, b backend, n int, opts durable.Options) ([]*durable.Store, blobstore.Driver) {
	t.Helper()
	var out []*durable.Store
	var drv blobstore.Driver
	for i := range n {
		drv = b.open(t)
		bs := blobstore.New(drv, blobstore.Options{})
		if b.name != "mem" {
			t.Cleanup(func() { _ = bs.Close() })
		}
		o := opts
		o.Blobs, o.Key, o.Node = bs, cmpBytes(opts.Key, key), "node-"+string(rune('a'+i))
		s, err := durable.New(o)
		require.NoError(t, err)
		out = append(out, s)
	}
	return out, drv
}

func cmpBytes(a, b []byte) []byte {
	if a != nil {
		return a
	}
	return b
}

// each runs f against every backend, in a fresh chain id space.
func each(t *testing.T, f func(t *testing.T, b backend, id string)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			var r [5]byte
			_, _ = rand.Read(r[:])
			f(t, b, "ch_"+hex.EncodeToString(r[:]))
		})
	}
}

func approval(chainID string, seq int, args string) durable.Approval {
	sum := sha256.Sum256([]byte(args))
	return durable.Approval{ID: durable.ApprovalID(chainID, seq), Tenant: "acme", ChainID: chainID, Seq: seq, Tool: "send",
		Risk: "HIGH", Args: []byte(args), ArgsHash: hex.EncodeToString(sum[:]), ArgsSize: len(args),
		Created: time.Now(), Expires: time.Now().Add(time.Hour)}
}

func TestChainRecords(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ss, _ := stores(t, b, 2, durable.Options{})
		ctx := context.Background()
		_, err := ss[0].GetChain(ctx, "acme", id)
		require.ErrorIs(t, err, durable.ErrNotFound)
		c := &durable.Chain{ID: id, Tenant: "acme", Language: "javascript", Status: durable.StatusRunning, Node: ss[0].Node(),
			Lease: time.Now().Add(time.Second), Created: time.Now(), Open: []durable.OpenCall{{Tool: "slow", Start: time.Now()}}}
		require.NoError(t, ss[0].PutChain(ctx, c))
		got, err := ss[1].GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, durable.StatusRunning, got.Status)
		require.Len(t, got.Open, 1)
		_, err = ss[1].GetChain(ctx, "globex", id)
		require.ErrorIs(t, err, durable.ErrNotFound, "records are per tenant")
		var live []durable.Live
		require.NoError(t, ss[1].Scan(ctx, func(l durable.Live) error {
			if l.ID == id {
				live = append(live, l)
			}
			return nil
		}))
		require.Len(t, live, 1)
		require.Equal(t, "node-a", live[0].Node)

		// Two processes finish at once: exactly one wins, and its record
		// stands; the loser cannot overwrite it afterwards either.
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i, s := range ss {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f := *c
				f.Status = []string{"ok", "cancelled"}[i]
				f.Result = &chain.RunResult{ID: id, Status: chain.Status(f.Status)}
				if won, err := s.Finish(ctx, &f); err == nil && won {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		require.Equal(t, int32(1), wins.Load())
		got, err = ss[0].GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, string(got.Result.Status), got.Status)
		require.ErrorIs(t, ss[0].PutChain(ctx, c), durable.ErrEnded)
		got2, err := ss[1].GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, got.Status, got2.Status)
		live = nil
		require.NoError(t, ss[1].Scan(ctx, func(l durable.Live) error {
			if l.ID == id {
				live = append(live, l)
			}
			return nil
		}))
		require.Empty(t, live, "an ended chain leaves the index")
		n := 0
		require.NoError(t, ss[0].ListChains(ctx, "acme", func(c *durable.Chain) error {
			if c.ID == id {
				n++
			}
			return nil
		}))
		require.Equal(t, 1, n)
	})
}

func TestBigRecordsFit(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ss, _ := stores(t, b, 1, durable.Options{})
		ctx := context.Background()
		trace := make([]session.Record, 10000)
		for i := range trace {
			trace[i] = session.Record{Seq: i + 1, Tool: "lookup", Status: session.StatusError, Reason: "tool_error", Message: strings.Repeat("m", 200)}
		}
		c := &durable.Chain{ID: id, Tenant: "acme", Status: "ok", Trace: trace,
			Result: &chain.RunResult{ID: id, Status: chain.StatusOK, Value: []byte(`"` + strings.Repeat("v", 900<<10) + `"`), Trace: trace}}
		won, err := ss[0].Finish(ctx, c)
		require.NoError(t, err)
		require.True(t, won)
		got, err := ss[0].GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.NotEmpty(t, got.ResultRef, "the result went to a blob")
		require.Len(t, got.Result.Trace, 10000, "read back whole")
		require.Equal(t, 10000, len(got.Trace)+got.TraceDropped)
		require.Equal(t, 10000, got.Trace[len(got.Trace)-1].Seq, "the newest records are kept")
	})
}

func TestInterrupt(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		clk := time.Now()
		ss, drv := stores(t, b, 2, durable.Options{Lease: 15 * time.Second, Clock: func() time.Time { return clk }})
		ctx := context.Background()
		start := clk.Add(-time.Minute)
		// The lost process's session had pinned an artifact its first call
		// stored (owner: the chain id).
		blobs := blobstore.New(drv, blobstore.Options{})
		art, err := blobs.Put(ctx, "acme", strings.NewReader("artifact"), "text/plain")
		require.NoError(t, err)
		require.NoError(t, blobs.Pin(ctx, "acme", art.Ref, id))
		pins := func() int {
			n := 0
			require.NoError(t, drv.List(ctx, "", func(e blobstore.Entry) error {
				if strings.Contains(e.Key, art.Ref[len("blob_"):]) && strings.Contains(e.Key, "/pin/") {
					n++
				}
				return nil
			}))
			return n
		}
		require.Equal(t, 1, pins())
		require.NoError(t, ss[0].PutChain(ctx, &durable.Chain{ID: id, Tenant: "acme", Status: durable.StatusRunning, Node: "node-a",
			Lease: start, Created: start, Trace: []session.Record{{Seq: 1, Tool: "lookup", Status: session.StatusOK, Refs: []string{art.Ref}}},
			Open: []durable.OpenCall{{Tool: "send", Start: start}, {Tool: "slow", Start: start}}}))
		won, err := ss[1].Interrupt(ctx, "acme", id)
		require.NoError(t, err)
		require.False(t, won, "a lapsed lease seen once is not enough")
		clk = clk.Add(5 * time.Second)
		won, err = ss[1].Interrupt(ctx, "acme", id)
		require.NoError(t, err)
		require.False(t, won, "nor seen again less than half a lease later")
		clk = clk.Add(3 * time.Second)
		won, err = ss[1].Interrupt(ctx, "acme", id)
		require.NoError(t, err)
		require.True(t, won, "the same lapsed lease, half a lease on")
		won, err = ss[0].Interrupt(ctx, "acme", id)
		require.NoError(t, err)
		require.False(t, won, "once")
		c, err := ss[0].GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, durable.StatusInterrupted, c.Status)
		require.Equal(t, durable.ReasonProcessLost, c.Result.Reason)
		require.Len(t, c.Result.Trace, 3)
		for i, rec := range c.Result.Trace[1:] {
			require.Equal(t, i+2, rec.Seq)
			require.Equal(t, durable.ReasonCallInterrupted, rec.Reason)
			require.Equal(t, session.StatusError, rec.Status)
		}
		require.Equal(t, []string{"send", "slow"}, []string{c.Result.Trace[1].Tool, c.Result.Trace[2].Tool})
		require.Zero(t, pins(), "the lost session's pins are released")
	})
}

func TestParkSealAndTamper(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ss, drv := stores(t, b, 2, durable.Options{})
		ctx := context.Background()
		state := make([]byte, 3<<20)
		_, _ = rand.Read(state)
		p := &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: time.Now(), Expires: time.Now().Add(time.Hour),
			Approvals: []durable.Approval{approval(id, 2, `{"to":"a"}`)}, State: state}
		require.NoError(t, ss[0].SavePark(ctx, p))
		require.Error(t, ss[0].SavePark(ctx, p), "a generation is parked once")
		got, err := ss[1].LoadPark(ctx, "acme", id, 1)
		require.NoError(t, err)
		require.True(t, bytes.Equal(state, got.State))
		require.Len(t, got.Approvals, 1)
		_, err = ss[1].LoadPark(ctx, "globex", id, 1)
		require.ErrorIs(t, err, durable.ErrNotFound)
		_, err = ss[1].LoadPark(ctx, "acme", id, 2)
		require.ErrorIs(t, err, durable.ErrNotFound)

		// Another key.
		other, _ := stores(t, b, 1, durable.Options{Key: []byte("another-key-0123456789abcdef-xyz")})
		_, err = other[0].LoadPark(ctx, "acme", id, 1)
		require.ErrorIs(t, err, durable.ErrTampered)
		// A limit below the state's size: refused before reading it.
		small, _ := stores(t, b, 1, durable.Options{MaxStateBytes: 1 << 20})
		_, err = small[0].LoadPark(ctx, "acme", id, 1)
		require.ErrorContains(t, err, "over the limit")

		edit := func(suffix string, f func([]byte) []byte) {
			t.Helper()
			var k string
			require.NoError(t, drv.List(ctx, "", func(e blobstore.Entry) error {
				if strings.HasSuffix(e.Key, suffix) && (strings.Contains(e.Key, id) || suffix == "/data") {
					// The state is stored encrypted: nonce and tag on top.
					if suffix != "/data" || e.Size == int64(len(state)+12+16) {
						k = e.Key
					}
				}
				return nil
			}))
			require.NotEmpty(t, k, suffix)
			rc, err := drv.Get(ctx, k, 0, -1)
			require.NoError(t, err)
			data, err := io.ReadAll(rc)
			rc.Close()
			require.NoError(t, err)
			require.NoError(t, drv.Put(ctx, k, bytes.NewReader(f(data)), blobstore.PutOptions{}))
		}
		// The state's bytes.
		edit("/data", func(d []byte) []byte { d[len(d)/3] ^= 1; return d })
		_, err = ss[1].LoadPark(ctx, "acme", id, 1)
		require.ErrorIs(t, err, durable.ErrTampered)
		edit("/data", func(d []byte) []byte { d[len(d)/3] ^= 1; return d })
		_, err = ss[1].LoadPark(ctx, "acme", id, 1)
		require.NoError(t, err, "restored")
		// Fields of the seal: expiry, generation, chain, version.
		for _, tc := range []struct {
			name, from, to string
			want           error
		}{
			{"expiry", `"expires":"`, `"expires":"1`, durable.ErrTampered},
			{"chain", `"chain_id":"` + id, `"chain_id":"` + id + "x", durable.ErrTampered},
			{"size", `"size":`, `"size":1`, durable.ErrTampered},
			{"version", `"version":1`, `"version":9`, durable.ErrIncompatible},
		} {
			var orig []byte
			edit("/park/1", func(d []byte) []byte {
				orig = append([]byte(nil), d...)
				return bytes.Replace(d, []byte(tc.from), []byte(tc.to), 1)
			})
			_, err = ss[1].LoadPark(ctx, "acme", id, 1)
			require.ErrorIs(t, err, tc.want, "%s: %s", tc.name, orig)
			edit("/park/1", func([]byte) []byte { return orig })
		}
		require.NoError(t, ss[0].ReleasePark(ctx, "acme", id, 1))
	})
}

func TestClaimAndDecideRaces(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ss, _ := stores(t, b, 2, durable.Options{})
		ctx := context.Background()
		a := approval(id, 3, `{"to":"x"}`)
		require.NoError(t, ss[0].SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: time.Now(),
			Expires: time.Now().Add(time.Hour), Approvals: []durable.Approval{a}, State: []byte("s")}))
		var claims, decided atomic.Int32
		var firsts sync.Map
		var wg sync.WaitGroup
		for i := range 16 {
			s := ss[i%2]
			wg.Add(2)
			go func() {
				defer wg.Done()
				if won, err := s.Claim(ctx, "acme", id, 1, "resume"); err == nil && won {
					claims.Add(1)
				}
			}()
			go func() {
				defer wg.Done()
				d, err := s.Decide(ctx, "acme", a.ID, durable.Decision{Approved: i%2 == 0, ArgsHash: a.ArgsHash, By: s.Node()})
				switch {
				case err == nil:
					decided.Add(1)
				case errors.Is(err, durable.ErrAlreadyDecided):
				default:
					t.Error(err)
				}
				firsts.Store(d.Approved, true)
			}()
		}
		wg.Wait()
		require.Equal(t, int32(1), claims.Load())
		require.Equal(t, int32(1), decided.Load())
		n := 0
		firsts.Range(func(any, any) bool { n++; return true })
		require.Equal(t, 1, n, "every decider sees the one decision")
		_, err := ss[0].Decide(ctx, "acme", a.ID, durable.Decision{Approved: true, ArgsHash: strings.Repeat("0", 64)})
		require.ErrorIs(t, err, durable.ErrAlreadyDecided)

		// A wrong hash, and an expired request.
		late := approval(id, 4, `{"to":"y"}`)
		late.Expires = time.Now().Add(-time.Second)
		require.NoError(t, ss[0].SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 2, Created: time.Now(),
			Expires: late.Expires, Approvals: []durable.Approval{late}, State: []byte("s")}))
		_, err = ss[1].Decide(ctx, "acme", late.ID, durable.Decision{Approved: true, ArgsHash: strings.Repeat("0", 64)})
		require.ErrorIs(t, err, durable.ErrHashMismatch)
		_, err = ss[1].Decide(ctx, "acme", late.ID, durable.Decision{Approved: true, ArgsHash: late.ArgsHash})
		require.ErrorIs(t, err, durable.ErrExpired)
		_, _, err = ss[1].GetApproval(ctx, "globex", late.ID)
		require.ErrorIs(t, err, durable.ErrNotFound)
		seen := 0
		require.NoError(t, ss[1].ListApprovals(ctx, "acme", func(a *durable.Approval, d *durable.Decision) error {
			if a.ChainID == id {
				seen++
			}
			return nil
		}))
		require.Equal(t, 2, seen)
		require.Equal(t, durable.ApprovalID(id, 3), durable.ApprovalID(id, 3))
		require.NotEqual(t, durable.ApprovalID(id, 3), durable.ApprovalID(id, 4))
		require.Len(t, durable.ApprovalID(id, 3), 29)
	})
}

func TestNewRefusesWeakKeys(t *testing.T) {
	bs := blobstore.New(memblob.New(), blobstore.Options{})
	_, err := durable.New(durable.Options{Blobs: bs, Key: []byte("short")})
	require.ErrorContains(t, err, "at least 32 bytes")
	_, err = durable.New(durable.Options{Key: key})
	require.Error(t, err)
}

func TestStaleClaimIsAbandoned(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		var now atomic.Int64
		now.Store(time.Now().UnixNano())
		clock := func() time.Time { return time.Unix(0, now.Load()) }
		ss, _ := stores(t, b, 2, durable.Options{Lease: time.Second, Clock: clock})
		ctx := context.Background()
		a := approval(id, 1, `{"to":"z"}`)
		require.NoError(t, ss[0].SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: clock(), Expires: clock().Add(time.Hour),
			Approvals: []durable.Approval{a}, State: []byte("s")}))
		a.Args = nil
		require.NoError(t, ss[0].PutChain(ctx, &durable.Chain{ID: id, Tenant: "acme", Status: durable.StatusParked, Gen: 1, Pending: []durable.Approval{a}}))
		won, err := ss[0].Claim(ctx, "acme", id, 1, "resume")
		require.NoError(t, err)
		require.True(t, won)
		stale, err := ss[1].StaleClaim(ctx, "acme", id, 1)
		require.NoError(t, err)
		require.False(t, stale, "a fresh claim")
		now.Add(int64(3 * time.Second))
		stale, err = ss[1].StaleClaim(ctx, "acme", id, 1)
		require.NoError(t, err)
		require.True(t, stale)
		won, err = ss[1].Abandon(ctx, "acme", id)
		require.NoError(t, err)
		require.True(t, won)
		c, err := ss[0].GetChain(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, durable.StatusInterrupted, c.Status)
		require.Len(t, c.Result.Trace, 1)
		require.Equal(t, durable.ReasonCallInterrupted, c.Result.Trace[0].Reason)
		require.Equal(t, "send", c.Result.Trace[0].Tool)
	})
}

// noConditional is a driver whose create-only writes overwrite.
type noConditional struct{ blobstore.Driver }

func (d noConditional) Put(ctx context.Context, key string, r io.Reader, o blobstore.PutOptions) error {
	o.CreateOnly = false
	return d.Driver.Put(ctx, key, r, o)
}

func TestCheckStore(t *testing.T) {
	each(t, func(t *testing.T, b backend, _ string) {
		ss, drv := stores(t, b, 1, durable.Options{})
		if b.name == "fs" {
			// A shared directory keeps no version a writer cannot remove.
			require.ErrorIs(t, ss[0].CheckStore(context.Background()), durable.ErrUnlockedStore)
			ss, _ = stores(t, b, 1, durable.Options{AllowUnlockedStore: true})
		}
		require.NoError(t, ss[0].CheckStore(context.Background()))
		unlocked, err := durable.New(durable.Options{Blobs: blobstore.New(noConditional{drv}, blobstore.Options{}), Key: key})
		require.NoError(t, err)
		require.ErrorIs(t, unlocked.CheckStore(context.Background()), durable.ErrUnlockedStore)
		bad, err := durable.New(durable.Options{Blobs: blobstore.New(noConditional{drv}, blobstore.Options{}), Key: key,
			AllowUnlockedStore: true})
		require.NoError(t, err)
		require.ErrorIs(t, bad.CheckStore(context.Background()), durable.ErrNoConditionalWrites)
	})
}

func TestParkedStateIsEncryptedAtRest(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ss, drv := stores(t, b, 1, durable.Options{})
		ctx := context.Background()
		state := []byte(strings.Repeat("tool result with sk-live-SECRET-0123 ", 100))
		script := `const key = "sk-live-SECRET-0456"; return await tools.send({key})`
		require.NoError(t, ss[0].SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: time.Now(),
			Expires: time.Now().Add(time.Hour), State: state, Script: script}))
		require.NoError(t, drv.List(ctx, "", func(e blobstore.Entry) error {
			rc, err := drv.Get(ctx, e.Key, 0, -1)
			require.NoError(t, err)
			data, _ := io.ReadAll(rc)
			rc.Close()
			require.NotContains(t, string(data), "sk-live-SECRET", e.Key)
			return nil
		}))
		p, err := ss[0].LoadPark(ctx, "acme", id, 1)
		require.NoError(t, err)
		require.Equal(t, state, p.State)
		src, err := ss[0].GetScript(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, script, src, "the script is kept encrypted and read back whole")
		// Under a rotated key (the old one accepted while it rotates) the
		// script still opens.
		rotated, _ := stores(t, b, 1, durable.Options{Key: []byte("durable-test-key-rotated-0123456789"), PreviousKeys: [][]byte{key}})
		src, err = rotated[0].GetScript(ctx, "acme", id)
		require.NoError(t, err)
		require.Equal(t, script, src)
	})
}

// TestParkGenerations: a state unchanged since the previous generation is
// not stored again (the new seal links the previous blob); a generation
// the chain moved past is deleted, not left to expire; and loading a
// state allocates about its size once, not twice.
func TestParkGenerations(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ss, drv := stores(t, b, 2, durable.Options{})
		ctx := context.Background()
		blobs := func() (n int, size int64) {
			require.NoError(t, drv.List(ctx, "", func(e blobstore.Entry) error {
				n++
				size += e.Size
				return nil
			}))
			return n, size
		}
		_, before := blobs()
		state := make([]byte, 4<<20)
		_, _ = rand.Read(state)
		park := func(gen int, st []byte) *durable.Park {
			p := &durable.Park{Tenant: "acme", ChainID: id, Gen: gen, Created: time.Now(), Expires: time.Now().Add(time.Hour),
				Approvals: []durable.Approval{approval(id, 2, `{"to":"a"}`)}, State: st}
			require.NoError(t, ss[0].SavePark(ctx, p))
			return p
		}
		p1 := park(1, state)
		require.Greater(t, p1.Written, int64(len(state)))
		// Unchanged: linked, nothing of the state written.
		p2 := park(2, bytes.Clone(state))
		require.Zero(t, p2.Written)
		got, err := ss[1].LoadPark(ctx, "acme", id, 2)
		require.NoError(t, err)
		require.True(t, bytes.Equal(state, got.State))
		// Releasing generation 1 keeps the blob generation 2 links.
		require.NoError(t, ss[0].ReleasePark(ctx, "acme", id, 1))
		_, err = ss[1].LoadPark(ctx, "acme", id, 1)
		require.ErrorIs(t, err, durable.ErrNotFound)
		got, err = ss[1].LoadPark(ctx, "acme", id, 2)
		require.NoError(t, err)
		require.True(t, bytes.Equal(state, got.State))
		// Changed: written again; the superseded generation's blob is
		// deleted at once.
		state[0] ^= 1
		p3 := park(3, state)
		require.Greater(t, p3.Written, int64(len(state)))
		_, withTwo := blobs()
		require.NoError(t, ss[0].ReleasePark(ctx, "acme", id, 2))
		_, withOne := blobs()
		require.InDelta(t, float64(withTwo-withOne), float64(len(state)), 64<<10, "generation 2's state was deleted")
		require.InDelta(t, float64(withOne-before), float64(len(state)), 64<<10, "only generation 3's state is left")

		// Loading allocates the state once (no doubling of the buffer, the
		// plain text decrypted in place).
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		got, err = ss[1].LoadPark(ctx, "acme", id, 3)
		runtime.ReadMemStats(&m1)
		require.NoError(t, err)
		require.True(t, bytes.Equal(state, got.State))
		if b.name == "mem" {
			require.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(len(state))*3/2, "LoadPark allocated %d bytes for a %d-byte state", m1.TotalAlloc-m0.TotalAlloc, len(state))
		}
		require.NoError(t, ss[0].ReleasePark(ctx, "acme", id, 3))
		_, after := blobs()
		require.InDelta(t, float64(before), float64(after), 64<<10)
	})
}

// TestCredentialRequests: a call waiting for a fresh delegated credential
// has an id of its own (pi_, distinct from its approval's and a caller
// call's), is read back with its kind, and takes no decision and no
// answer: its credential goes to the process that resumes the chain,
// never to the store.
func TestCredentialRequests(t *testing.T) {
	each(t, func(t *testing.T, b backend, id string) {
		ss, _ := stores(t, b, 2, durable.Options{})
		ctx := context.Background()
		a := approval(id, 2, `{"email":"a@example.com"}`)
		a.ID, a.Kind, a.Gate, a.Rule = durable.CredentialID(id, 2), durable.KindCredential, "credential", "credential_expired"
		require.Equal(t, a.ID, durable.PendingID(id, 2, durable.KindCredential))
		require.True(t, strings.HasPrefix(a.ID, durable.CredentialPrefix))
		require.Len(t, a.ID, 29)
		require.NotEqual(t, durable.ApprovalID(id, 2), a.ID)
		require.NotEqual(t, durable.CallID(id, 2), a.ID)
		wrong := a
		wrong.Kind = ""
		require.Error(t, ss[0].SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: time.Now(),
			Expires: time.Now().Add(time.Hour), Approvals: []durable.Approval{wrong}, State: []byte("s")}), "a pi_ id holds a credential request only")
		require.NoError(t, ss[0].SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: id, Gen: 1, Created: time.Now(),
			Expires: time.Now().Add(time.Hour), Approvals: []durable.Approval{a}, State: []byte("s")}))
		got, d, err := ss[1].GetApproval(ctx, "acme", a.ID)
		require.NoError(t, err)
		require.Nil(t, d)
		require.Equal(t, durable.KindCredential, got.Kind)
		require.Equal(t, "credential_expired", got.Rule)
		for _, dec := range []durable.Decision{
			{Approved: true, ArgsHash: a.ArgsHash},
			{ArgsHash: a.ArgsHash, Answer: &invoker.Answer{Result: []byte(`"x"`)}},
		} {
			_, err = ss[1].Decide(ctx, "acme", a.ID, dec)
			require.ErrorContains(t, err, "waits for a fresh credential")
			require.NotErrorIs(t, err, durable.ErrAlreadyDecided)
		}
		_, d, err = ss[0].GetApproval(ctx, "acme", a.ID)
		require.NoError(t, err)
		require.Nil(t, d, "no decision was recorded")
		_, _, err = ss[0].GetApproval(ctx, "globex", a.ID)
		require.ErrorIs(t, err, durable.ErrNotFound)
	})
}
