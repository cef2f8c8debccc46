package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// fleetKey seals the test fleet's parked chains.
var fleetKey = []byte("fleet-key-0123456789abcdef-0123456789")

// fleet is n servers ("processes") on one shared store, each with the
// notify tool (HIGH risk) counting its executions in sent.
type fleet struct {
	envs  []*env
	store *blobstore.Store
	drv   blobstore.Driver
	sent  *sync.Map // recipient → *atomic.Int32
}

func (f *fleet) count(to string) int32 {
	v, _ := f.sent.LoadOrStore(to, new(atomic.Int32))
	return v.(*atomic.Int32).Load()
}

type notifyIn struct {
	To string `json:"to"`
}

func newFleet(t *testing.T, n int, edit func(*setup)) *fleet {
	t.Helper()
	return newFleetOn(t, memblob.New(), n, edit)
}

// newFleetOn is newFleet on the shared store's driver drv.
func newFleetOn(t *testing.T, drv blobstore.Driver, n int, edit func(*setup)) *fleet {
	t.Helper()
	f := &fleet{drv: drv, sent: &sync.Map{}}
	f.store = blobstore.New(f.drv, blobstore.Options{})
	t.Cleanup(func() { _ = f.store.Close() })
	for i := range n {
		f.envs = append(f.envs, newEnv(t, func(o *setup) {
			o.Shared = f.store
			var err error
			o.Fleet, err = durable.New(durable.Options{Blobs: f.store, Key: fleetKey, Node: "node-" + string(rune('a'+i)), Lease: 600 * time.Millisecond})
			require.NoError(t, err)
			o.Park = true
			o.Tools = append(o.Tools, toolbox.Func("notify", "Sends a notification", func(_ context.Context, in notifyIn) (string, error) {
				v, _ := f.sent.LoadOrStore(in.To, new(atomic.Int32))
				v.(*atomic.Int32).Add(1)
				return "notified " + in.To, nil
			}).WithRisk(toolbox.High))
			if edit != nil {
				edit(o)
			}
		}))
	}
	return f
}

const fleetScript = `
const t0 = Date.now();
let ticked = false;
setTimeout(() => { ticked = true }, 1500); // wakes the parked chain if it is still parked then
const [a, b, c] = await Promise.all([tools.notify({to: "ops"}), tools.kv_get({key: "k"}), tools.notify({to: "dev"})]);
return {a, c, ticked};
`

// pendingOf waits until chain id is parked on want approvals, read
// through e, and returns them.
func pendingOf(t *testing.T, e *env, id string, want int) service.ChainView {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		v := e.view(t, keyAcme, id)
		if v.Status == "parked" && len(v.Pending) == want {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("chain %s did not park on %d approvals", id, want)
	return service.ChainView{}
}

// decideOn decides approval a through e.
func decideOn(t *testing.T, e *env, a durable.Approval, decision string) reply {
	t.Helper()
	return e.do(t, "POST", "/v1/approvals/"+a.ID, keyAcme, map[string]string{"decision": decision, "args_hash": a.ArgsHash})
}

// settled waits until chain id has a final status, read through e.
func settled(t *testing.T, e *env, id string) service.ChainView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		v := e.view(t, keyAcme, id)
		switch v.Status {
		case "running", "parked", "waiting_approval":
		default:
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("chain %s did not end", id)
	return service.ChainView{}
}

func TestFleetParkOnOneResumeOnAnother(t *testing.T) {
	f := newFleet(t, 2, nil)
	a, b := f.envs[0], f.envs[1]
	v := a.submit(t, keyAcme, map[string]any{"script": fleetScript}, false)
	require.Equal(t, "parked", v.Status, "a synchronous submission answers when the chain parks")
	id := v.ID
	v = pendingOf(t, b, id, 2)
	require.Equal(t, "notify", v.Pending[0].Tool)
	require.False(t, v.Expires.IsZero())

	// Both requests are listed, with their arguments, on either process.
	var list struct{ Approvals []map[string]any }
	r := b.do(t, "GET", "/v1/approvals", keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.Len(t, list.Approvals, 2)
	require.Equal(t, `{"approvals":[]}`, strings.TrimSpace(string(b.do(t, "GET", "/v1/approvals", keyGlobex, nil).body)))

	// A wrong hash is refused; the first decision resumes the chain, which
	// parks again on the second call.
	bad := v.Pending[0]
	bad.ArgsHash = strings.Repeat("0", 64)
	require.Equal(t, http.StatusConflict, decideOn(t, b, bad, "approve").code)
	r = decideOn(t, b, v.Pending[0], "approve")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, http.StatusConflict, decideOn(t, a, v.Pending[0], "deny").code, "the first decision stands")
	v = pendingOf(t, a, id, 1)
	require.Equal(t, int32(1), f.count("ops"))
	r = decideOn(t, a, v.Pending[0], "deny")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	v = settled(t, b, id)
	require.Equal(t, "error", v.Status, "the denied call throws in the script")
	require.Contains(t, v.Result.Error, "was denied")
	require.Equal(t, int32(1), f.count("ops"))
	require.Equal(t, int32(0), f.count("dev"))
	require.Len(t, v.Result.Trace, 3)
	// Parked at least twice: on both calls, then on the second alone (its
	// 10 ms timer may wake it once more in between).
	require.GreaterOrEqual(t, a.metric(t, "airlock_chain_transitions_total", map[string]string{"transition": "parked"})+
		b.metric(t, "airlock_chain_transitions_total", map[string]string{"transition": "parked"}), 2.0)
}

func TestFleetResumeRaceRunsTheCallOnce(t *testing.T) {
	f := newFleet(t, 3, nil)
	src := `return await tools.notify({to: "race"})`
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": src}, false)
	require.Equal(t, "parked", v.Status)
	v = pendingOf(t, f.envs[1], v.ID, 1)
	// The decision is recorded directly, then every process tries to
	// resume at once.
	_, err := f.envs[2].svc.Decide(context.Background(), "acme", v.Pending[0].ID, service.Decision{Approve: true, ArgsHash: v.Pending[0].ArgsHash, Hold: true})
	require.NoError(t, err)
	chainID := v.ID
	var wg sync.WaitGroup
	var won atomic.Int32
	for _, e := range f.envs {
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := e.svc.Resume(context.Background(), "acme", chainID); err == nil {
					won.Add(1)
				}
			}()
		}
	}
	wg.Wait()
	require.Equal(t, int32(1), won.Load())
	v = settled(t, f.envs[0], chainID)
	require.Equal(t, "ok", v.Status, "%+v", v.Result)
	require.Equal(t, int32(1), f.count("race"))
}

func TestFleetTamperedStateIsRefused(t *testing.T) {
	f := newFleet(t, 2, nil)
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "t"})`}, false)
	require.Equal(t, "parked", v.Status)
	v = pendingOf(t, f.envs[1], v.ID, 1)
	// Flip a byte of every blob's data: the parked state among them.
	ctx := context.Background()
	var keys []string
	require.NoError(t, f.drv.List(ctx, "", func(en blobstore.Entry) error {
		if strings.HasSuffix(en.Key, "/data") {
			keys = append(keys, en.Key)
		}
		return nil
	}))
	require.NotEmpty(t, keys)
	for _, k := range keys {
		rc, err := f.drv.Get(ctx, k, 0, -1)
		require.NoError(t, err)
		var b strings.Builder
		_, err = io.Copy(&b, rc)
		rc.Close()
		require.NoError(t, err)
		data := []byte(b.String())
		data[len(data)/2] ^= 0x01
		require.NoError(t, f.drv.Put(ctx, k, bytes.NewReader(data), blobstore.PutOptions{}))
	}
	require.Equal(t, http.StatusOK, decideOn(t, f.envs[1], v.Pending[0], "approve").code)
	v = settled(t, f.envs[0], v.ID)
	require.Equal(t, "error", v.Status)
	require.Equal(t, server.ReasonStateRefused, v.Result.Reason)
	require.Equal(t, int32(0), f.count("t"), "nothing of a refused state runs")
}

func TestFleetExpiryReleasesPins(t *testing.T) {
	f := newFleet(t, 2, func(o *setup) { o.ParkTTL = 300 * time.Millisecond })
	src := `const big = await tools.make_csv({rows: 20000, seed: 1});
try { await tools.notify({to: "late"}); return "sent" } catch (e) { return e.reason }`
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": src}, false)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	require.NotEmpty(t, f.pins(t), "the parked chain pins its artifact and its state")
	v = settled(t, f.envs[1], v.ID)
	require.Equal(t, "ok", v.Status, "%+v", v.Result)
	require.Equal(t, `"approval_expired"`, string(v.Result.Value))
	require.Equal(t, int32(0), f.count("late"))
	require.Eventually(t, func() bool { return len(f.pins(t)) == 0 }, 10*time.Second, 20*time.Millisecond, "pins left: %v", f.pins(t))
}

func TestFleetInterruptedChainListsUnknownCalls(t *testing.T) {
	f := newFleet(t, 2, nil)
	ctx := context.Background()
	// A record as a process that died mid-call leaves it.
	fl := f.envs[0].svc.Fleet()
	gone, err := durable.New(durable.Options{Blobs: f.store, Key: fleetKey, Node: "node-gone", Lease: 600 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now().Add(-time.Minute).UTC()
	require.NoError(t, gone.PutChain(ctx, &durable.Chain{ID: "ch_gone", Tenant: "acme", Language: "javascript", Status: durable.StatusRunning,
		Node: "node-gone", Lease: start, Created: start, Updated: start,
		Open: []durable.OpenCall{{Seq: 2, Tool: "notify", Start: start}}}))
	var c *durable.Chain
	require.Eventually(t, func() bool {
		c, err = fl.GetChain(ctx, "acme", "ch_gone")
		return err == nil && c.Status == durable.StatusInterrupted
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, durable.ReasonProcessLost, c.Result.Reason)
	require.Len(t, c.Result.Trace, 1)
	require.Equal(t, "notify", c.Result.Trace[0].Tool)
	require.Equal(t, durable.ReasonCallInterrupted, c.Result.Trace[0].Reason)
	v := f.envs[1].view(t, keyAcme, "ch_gone")
	require.Equal(t, "interrupted", v.Status)
}

func TestFleetCancelParked(t *testing.T) {
	f := newFleet(t, 2, nil)
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": `const big = await tools.make_csv({rows: 20000, seed: 1}); return await tools.notify({to: "c"})`}, false)
	require.Equal(t, "parked", v.Status)
	r := f.envs[1].do(t, "DELETE", "/v1/chains/"+v.ID, keyAcme, nil)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	v = settled(t, f.envs[0], v.ID)
	require.Equal(t, "cancelled", v.Status)
	require.Eventually(t, func() bool { return len(f.pins(t)) == 0 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, `{"approvals":[]}`, strings.TrimSpace(string(f.envs[0].do(t, "GET", "/v1/approvals", keyAcme, nil).body)))
	require.Equal(t, int32(0), f.count("c"))
}

// pins returns the pin markers in the shared store.
func (f *fleet) pins(t *testing.T) []string {
	t.Helper()
	var out []string
	require.NoError(t, f.drv.List(context.Background(), "", func(en blobstore.Entry) error {
		if strings.Contains(en.Key, "/pin/") {
			out = append(out, en.Key)
		}
		return nil
	}))
	return out
}

// TestFleetEventsOfAStoredChain: a chain that parked on one process is
// streamed by another from the store: its status, then done once a
// decision resumed it.
func TestFleetEventsOfAStoredChain(t *testing.T) {
	f := newFleet(t, 2, nil)
	a, b := f.envs[0], f.envs[1]
	v := a.submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "sse"})`}, false)
	require.Equal(t, "parked", v.Status)
	events := b.stream(t, keyAcme, v.ID, "")
	ev := next(t, events)
	require.Equal(t, server.EventStatus, ev.name)
	require.Contains(t, ev.data, `"status":"parked"`)
	require.Contains(t, ev.data, v.Pending[0].ID)
	require.Equal(t, http.StatusOK, decideOn(t, a, v.Pending[0], "approve").code)
	for {
		ev = next(t, events)
		if ev.name == server.EventDone {
			break
		}
		require.Equal(t, server.EventStatus, ev.name)
	}
	require.Contains(t, ev.data, `"status":"ok"`)
	require.Contains(t, ev.data, `notified sse`)
	require.Equal(t, int32(1), f.count("sse"))
	// Another tenant's key sees nothing.
	require.Equal(t, http.StatusNotFound, b.do(t, "GET", "/v1/chains/"+v.ID+"/events", keyGlobex, nil).code)
}

// TestFleetResumeNeedsItsProfile: a chain submitted under a profile the
// configuration no longer has is not resumed under none.
func TestFleetResumeNeedsItsProfile(t *testing.T) {
	prof := &service.Profile{Name: "ops"}
	f := newFleet(t, 2, func(o *setup) {
		o.Profile = func(string) *service.Profile { return prof }
	})
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": `const big = await tools.make_csv({rows: 20000, seed: 1}); return await tools.notify({to: "p"})`}, false)
	require.Equal(t, "parked", v.Status)
	require.Equal(t, http.StatusOK, decideOn(t, f.envs[1], v.Pending[0], "approve").code)
	v = settled(t, f.envs[0], v.ID)
	require.Equal(t, "error", v.Status)
	require.Equal(t, server.ReasonStateRefused, v.Result.Reason)
	require.Contains(t, v.Result.Error, `profile "ops"`)
	require.Equal(t, int32(0), f.count("p"))
	require.Eventually(t, func() bool { return len(f.pins(t)) == 0 }, 10*time.Second, 20*time.Millisecond)
}

// TestFleetTimerWakesAParkedChain: a parked chain's timer runs when it
// falls due, decided or not, as it would in memory: a race between an
// approval and a timeout is won by the timeout.
func TestFleetTimerWakesAParkedChain(t *testing.T) {
	f := newFleet(t, 2, nil)
	src := `return await Promise.race([tools.notify({to: "w"}).then(() => "sent"), new Promise(r => setTimeout(() => r("timed out"), 300))])`
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": src}, false)
	require.Equal(t, "parked", v.Status)
	v = settled(t, f.envs[1], v.ID)
	require.Equal(t, "ok", v.Status, "%+v", v.Result)
	require.Equal(t, `"timed out"`, string(v.Result.Value))
	require.Equal(t, int32(0), f.count("w"))
	// The request it left is no longer listed, and cannot be decided.
	require.Equal(t, `{"approvals":[]}`, strings.TrimSpace(string(f.envs[0].do(t, "GET", "/v1/approvals", keyAcme, nil).body)))
	a, _, err := f.envs[0].svc.Fleet().GetApproval(context.Background(), "acme", durable.ApprovalID(v.ID, 1))
	require.NoError(t, err)
	require.Equal(t, http.StatusGone, decideOn(t, f.envs[1], *a, "approve").code)
	require.Equal(t, int32(0), f.count("w"))
}

// TestFleetParkedChainShowsItsStretch: a parked chain's view carries what
// the stretch before it parked produced — its logs, files, artifacts and
// stats — on any process, with arrays (never null) where the API has
// them; its stream says status parked, not done.
func TestFleetParkedChainShowsItsStretch(t *testing.T) {
	f := newFleet(t, 2, nil)
	a, b := f.envs[0], f.envs[1]
	v := a.submit(t, keyAcme, map[string]any{"script": `
		console.log("before parking");
		const csv = await tools.make_csv({rows: 20000, seed: 1});
		const chart = await tools.render_chart({values: [1, 2, 3]});
		return await tools.notify({to: "stretch"});`}, false)
	require.Equal(t, "parked", v.Status)
	for _, e := range []*env{a, b} {
		r := e.do(t, "GET", "/v1/chains/"+v.ID, keyAcme, nil)
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		var got struct {
			Status string
			Result map[string]json.RawMessage
		}
		require.NoError(t, json.Unmarshal(r.body, &got))
		require.Equal(t, "parked", got.Status)
		for _, k := range []string{"logs", "trace", "files", "artifacts"} {
			require.True(t, bytes.HasPrefix(got.Result[k], []byte("[")), "result.%s is an array: %s", k, got.Result[k])
		}
		require.Contains(t, string(got.Result["logs"]), "before parking")
		var files, arts []map[string]any
		require.NoError(t, json.Unmarshal(got.Result["files"], &files))
		require.NoError(t, json.Unmarshal(got.Result["artifacts"], &arts))
		require.Len(t, files, 1, "render_chart's image")
		require.Len(t, arts, 1, "make_csv's offloaded result")
		var stats struct {
			Calls  int   `json:"calls"`
			WallNS int64 `json:"wall_ns"`
		}
		require.NoError(t, json.Unmarshal(got.Result["stats"], &stats))
		require.Equal(t, 2, stats.Calls)
		require.Positive(t, stats.WallNS)
	}
	events := b.stream(t, keyAcme, v.ID, "")
	ev := next(t, events)
	require.Equal(t, server.EventStatus, ev.name, "a parked chain has not ended: %s", ev.data)
	require.Contains(t, ev.data, "before parking")
	require.Equal(t, http.StatusOK, decideOn(t, a, v.Pending[0], "approve").code)
	for ev.name != server.EventDone {
		ev = next(t, events)
	}
	require.Contains(t, ev.data, `"status":"ok"`)
}
