package server_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
)

// countingDriver counts the reads of a store and the bytes written to it.
type countingDriver struct {
	blobstore.Driver
	gets    atomic.Int64
	written atomic.Int64
}

func (d *countingDriver) Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	d.gets.Add(1)
	return d.Driver.Get(ctx, key, offset, length)
}

func (d *countingDriver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) error {
	return d.Driver.Put(ctx, key, &countingReader{r: r, n: &d.written}, opts)
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// healthyGlobex parks a chain of the other tenant, approves it and
// checks it ends ok: a tenant's budget never touches another's.
func healthyGlobex(t *testing.T, f *fleet) {
	t.Helper()
	g := f.envs[0].submit(t, keyGlobex, map[string]any{"script": `return await tools.notify({to: "globex"})`}, false)
	require.Equal(t, "parked", g.Status)
	require.Equal(t, http.StatusOK, f.envs[1].do(t, "POST", "/v1/approvals/"+g.Pending[0].ID, keyGlobex,
		map[string]string{"decision": "approve", "args_hash": g.Pending[0].ArgsHash}).code)
	g = settledAs(t, f.envs[0], keyGlobex, g.ID)
	require.Equal(t, "ok", g.Status, "%+v", g.Result)
	require.Equal(t, int32(1), f.count("globex"))
}

// wakeLoop is a script that parks on an undecided approval with an interval
// timer: it wakes, runs the timer and parks again, for ever.
const wakeLoop = `
let n = 0;
setInterval(() => { n++ }, 100);
return await tools.notify({to: "loop"});
`

// TestFleetWakesAreBudgeted: a parked chain whose timer wakes it again and
// again ends limit_exceeded, reason wakes, after approval.max_wakes
// resumes; each wake deletes the generation it moved past, so the bucket
// holds one state at a time; another tenant's chain parks and finishes
// alongside.
func TestFleetWakesAreBudgeted(t *testing.T) {
	drv := &countingDriver{Driver: memblob.New()}
	f := newFleetOn(t, drv, 2, func(o *setup) { o.MaxWakes = 4 })
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": wakeLoop}, false)
	require.Equal(t, "parked", v.Status)
	w0 := drv.written.Load()
	healthyGlobex(t, f)
	stateBlobs := 0
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c := f.envs[1].view(t, keyAcme, v.ID); c.Status != "parked" && c.Status != "running" {
			break
		}
		n := 0
		require.NoError(t, drv.List(context.Background(), "", func(e blobstore.Entry) error {
			if e.Size > 8<<10 && !isRecord(e.Key) {
				n++
			}
			return nil
		}))
		stateBlobs = max(stateBlobs, n)
	}
	v = settledAs(t, f.envs[1], keyAcme, v.ID)
	require.Equal(t, "limit_exceeded", v.Status, "%+v", v.Result)
	require.Equal(t, server.ReasonWakes, v.Result.Reason)
	require.Contains(t, v.Result.Error, "approval.max_wakes")
	require.Equal(t, int32(0), f.count("loop"))
	require.LessOrEqual(t, stateBlobs, 3, "superseded generations are deleted, not kept for the store's TTL")
	t.Logf("bytes written to the store per wake: %d", (drv.written.Load()-w0)/4)
	// Nothing of it is left pinned; its requests cannot be decided.
	require.Eventually(t, func() bool { return len(f.pins(t)) == 0 }, 10*time.Second, 20*time.Millisecond)
}

func isRecord(key string) bool {
	for _, part := range []string{"/rec", "/meta", "/pin/", "/unpinned", "live/", "/park/", "/claim/", "/end", "/req", "/decision"} {
		if strings.Contains(key, part) {
			return true
		}
	}
	return false
}

// TestFleetParkBytesAreBudgeted: a waking chain with a large state ends
// limit_exceeded, reason park_bytes, once its parks would have written more
// than approval.max_park_bytes in all.
func TestFleetParkBytesAreBudgeted(t *testing.T) {
	drv := &countingDriver{Driver: memblob.New()}
	f := newFleetOn(t, drv, 2, func(o *setup) { o.MaxParkBytes = 3 << 20 })
	src := `
const big = new Float64Array(120000);
for (let i = 0; i < big.length; i++) big[i] = Math.random();
setInterval(() => { big[0]++ }, 100);
return await tools.notify({to: "bytes"});
`
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": src}, false)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	healthyGlobex(t, f)
	v = settledAs(t, f.envs[1], keyAcme, v.ID)
	require.Equal(t, "limit_exceeded", v.Status, "%+v", v.Result)
	require.Equal(t, server.ReasonParkBytes, v.Result.Reason)
	require.Contains(t, v.Result.Error, "approval.max_park_bytes")
	require.Equal(t, int32(0), f.count("bytes"))
	require.Eventually(t, func() bool { return len(f.pins(t)) == 0 }, 10*time.Second, 20*time.Millisecond)
	var kept int64
	require.NoError(t, drv.List(context.Background(), "", func(e blobstore.Entry) error {
		if !isRecord(e.Key) {
			kept += e.Size
		}
		return nil
	}))
	t.Logf("bytes written to the store in all: %d; blob bytes left in the bucket after the chain ended: %d", drv.written.Load(), kept)
	require.Less(t, kept, int64(1<<20), "no parked state is left behind")
}

// TestFleetTimeoutCountsAwakeTime: the time a parked chain spends awake,
// stretch after stretch, counts toward limits.timeout.
func TestFleetTimeoutCountsAwakeTime(t *testing.T) {
	f := newFleet(t, 2, nil)
	// Each tick keeps the guest busy for 300 ms and the next is not due
	// when it ends, so the chain parks between ticks: no stretch alone
	// reaches the 1 s limit, their sum does.
	src := `
setInterval(() => { const t = Date.now(); while (Date.now() - t < 300) {} }, 450);
return await tools.notify({to: "busy"});
`
	v := f.envs[0].submit(t, keyAcme, map[string]any{"script": src, "limits": map[string]any{"timeout": "1s"}}, false)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	healthyGlobex(t, f)
	v = settledAs(t, f.envs[1], keyAcme, v.ID)
	require.Equal(t, "timeout", v.Status, "%+v", v.Result)
	require.Equal(t, "timeout", v.Result.Reason)
	require.GreaterOrEqual(t, v.Result.Stats.Wall, 900*time.Millisecond, "the stretches' run time adds up")
	require.Equal(t, int32(0), f.count("busy"))
}

// TestFleetParkedChainsPerTenant: a tenant with approval.max_parked_per_tenant
// parked chains cannot park another (it ends limit_exceeded, reason
// parked_chains); another tenant still parks; once one is decided, a place
// is free again.
func TestFleetParkedChainsPerTenant(t *testing.T) {
	f := newFleet(t, 2, func(o *setup) { o.MaxParkedPerTenant = 2 })
	var parked []service.ChainView
	for _, to := range []string{"p1", "p2"} {
		v := f.envs[0].submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "` + to + `"})`}, false)
		require.Equal(t, "parked", v.Status)
		parked = append(parked, v)
	}
	v := f.envs[1].submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "p3"})`}, false)
	require.Equal(t, "limit_exceeded", v.Status, "%+v", v.Result)
	require.Equal(t, server.ReasonParkedChains, v.Result.Reason)
	require.Contains(t, v.Result.Error, "approval.max_parked_per_tenant")
	require.Equal(t, int32(0), f.count("p3"))
	healthyGlobex(t, f)
	require.Equal(t, http.StatusOK, decideOn(t, f.envs[1], parked[0].Pending[0], "approve").code)
	require.Equal(t, "ok", settled(t, f.envs[0], parked[0].ID).Status)
	v = f.envs[1].submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "p4"})`}, false)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
}

// TestFleetParkedStatesChargeTenantQuota: a parked state counts against
// its tenant's store.max_tenant_artifact_bytes in the parking process: a
// tenant whose first parked chain fills it cannot park a second (it ends
// limit_exceeded, reason quota_exceeded, its call never runs); another
// tenant's chain parks and finishes alongside; once the first chain
// resumed here, its state no longer counts and the tenant parks again.
func TestFleetParkedStatesChargeTenantQuota(t *testing.T) {
	// One parked state of these scripts fits, two do not, whatever size
	// the engine makes one: a fleet whose quota holds none says the size.
	small := newFleet(t, 1, func(o *setup) { o.MaxTenantArtifactBytes = 1 })
	probe := small.envs[0].submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "q0"})`}, false)
	require.Equal(t, "limit_exceeded", probe.Status, "%+v", probe.Result)
	m := regexp.MustCompile(`^parking needs (\d+) bytes`).FindStringSubmatch(probe.Result.Error)
	require.NotNil(t, m, probe.Result.Error)
	need, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	quota := need * 3 / 2
	f := newFleet(t, 2, func(o *setup) { o.MaxTenantArtifactBytes = int64(quota) })
	a := f.envs[0]
	first := a.submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "q1"})`}, false)
	require.Equal(t, "parked", first.Status, "%+v", first.Result)
	v := a.submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "q2"})`}, false)
	require.Equal(t, "limit_exceeded", v.Status, "%+v", v.Result)
	require.Equal(t, server.ReasonTenantQuota, v.Result.Reason)
	require.Equal(t, "quota_exceeded", v.Result.Reason)
	require.Regexp(t, `^parking needs \d+ bytes of the tenant's artifact quota and \d+ of its `+strconv.Itoa(quota)+` \(store.max_tenant_artifact_bytes\) are left; it ended without its waiting calls$`, v.Result.Error)
	require.Empty(t, v.Pending)
	require.Equal(t, int32(0), f.count("q2"))
	require.Equal(t, "limit_exceeded", a.view(t, keyAcme, v.ID).Status, "its record says so on every process")

	healthyGlobex(t, f)

	// Decided and resumed on the process that parked it: the state is
	// released and no longer counted.
	require.Equal(t, http.StatusOK, decideOn(t, a, first.Pending[0], "approve").code)
	require.Equal(t, "ok", settled(t, a, first.ID).Status)
	v = a.submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "q3"})`}, false)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
}

// TestFleetStreamsShareOnePoll: many streams of one stored chain on a
// process cost one read of its record per poll, not one per stream; the
// tenant's streams are capped (429 too_many_streams) while another
// tenant's stream still opens.
func TestFleetStreamsShareOnePoll(t *testing.T) {
	const n = 40
	drv := &countingDriver{Driver: memblob.New()}
	f := newFleetOn(t, drv, 2, func(o *setup) { o.MaxStreamsPerTenant = n })
	a, b := f.envs[0], f.envs[1]
	v := a.submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "sse"})`}, false)
	require.Equal(t, "parked", v.Status)
	g := a.submit(t, keyGlobex, map[string]any{"script": `return await tools.notify({to: "g"})`}, false)
	require.Equal(t, "parked", g.Status)

	rate := func() float64 {
		g0, t0 := drv.gets.Load(), time.Now()
		time.Sleep(3 * time.Second)
		return float64(drv.gets.Load()-g0) / time.Since(t0).Seconds()
	}
	idle := rate()
	var mu sync.Mutex
	var streams []<-chan sse
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := b.stream(t, keyAcme, v.ID, "")
			mu.Lock()
			streams = append(streams, s)
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, s := range streams {
		ev := next(t, s)
		require.Equal(t, server.EventStatus, ev.name)
	}
	busy := rate()
	t.Logf("store reads per second: %.1f idle, %.1f with %d streams of one parked chain", idle, busy, n)
	require.Less(t, busy-idle, 15.0, "%d streams must share one poll of the record (before: about %d reads a second)", n, 2*n)

	// Stream n+1 of the tenant is refused, with the exact reason; the other
	// tenant's opens.
	r := b.do(t, "GET", "/v1/chains/"+v.ID+"/events", keyAcme, nil)
	require.Equal(t, http.StatusTooManyRequests, r.code)
	require.Contains(t, string(r.body), `"reason":"`+server.ReasonTooManyStreams+`"`)
	gs := b.stream(t, keyGlobex, g.ID, "")
	require.Equal(t, server.EventStatus, next(t, gs).name)

	// A decision ends the chain: every stream gets done.
	require.Equal(t, http.StatusOK, decideOn(t, a, v.Pending[0], "approve").code)
	for _, s := range streams {
		for {
			ev := next(t, s)
			if ev.name == server.EventDone {
				require.Contains(t, ev.data, `"status":"ok"`)
				break
			}
		}
	}
	require.Equal(t, int32(1), f.count("sse"))
	// The other tenant's parked chain, cancelled, ends its stream.
	require.Equal(t, http.StatusOK, a.do(t, "DELETE", "/v1/chains/"+g.ID, keyGlobex, nil).code)
	for ev := next(t, gs); ev.name != server.EventDone; ev = next(t, gs) {
	}
}
