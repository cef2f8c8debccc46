package service_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/faultblob"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// The fleet under faults (THREATS.md T6, invariant 4; docs/durability.md,
// "Faults, measured"): a few in-process services ("processes") share one
// store through faultblob, each with its own fault schedule and clock skew,
// and a seeded schedule drives submissions, decisions, resumes, cancels,
// crashes and forged records at them. Then the faults stop, every chain is
// driven to its end, and the checker asks: did any call run twice, or
// without an authentic approval; was any chain lost (not ended); was any
// forged object taken for real; is any pin left? Any of these fails the
// test.
//
// go test runs a bounded schedule; make soak runs longer ones:
//
//	AIRLOCK_SOAK_OPS=5000 AIRLOCK_SOAK_SEEDS=1,2,3 go test -run TestFleetUnderFaults ./service/

var faultsKey = []byte("faults-fleet-key-0123456789abcdef-xyz")

const (
	faultsTenant = "acme"
	faultsLease  = 300 * time.Millisecond
	faultsProcs  = 3
)

// faultRates are the store faults of a process while faults are on.
var faultRates = faultblob.Faults{LatencyRate: 0.2, MaxLatency: 5 * time.Millisecond, ErrorRate: 0.01, LostRate: 0.01, RaceRate: 0.1}

// proc is one airlock process of the fleet.
type proc struct {
	name  string
	drv   *faultblob.Driver
	svc   *service.Service
	stop  context.CancelFunc // its upkeep
	dead  atomic.Bool
	fleet *durable.Store
}

// faultRun is one randomised run and what its checker follows.
type faultRun struct {
	t      *testing.T
	shared func() blobstore.Driver // a new driver over the shared storage
	raw    blobstore.Driver        // the storage, behind the faults' back
	clean  *durable.Store          // reads the storage without faults
	rng    *mrand.Rand
	seed   uint64

	mu      sync.Mutex
	procs   []*proc // the live processes, one per slot
	dead    []*proc // killed, kept to drain at the end
	started int     // processes started
	chains  []string
	tokens  map[string]string // approval id → the token of its call, once seen
	execs   map[string][]string
	ops     map[string]int
	forged  map[string]int // kind → forged objects written

	resumes sync.WaitGroup
}

func (r *faultRun) count(op string) {
	r.mu.Lock()
	r.ops[op]++
	r.mu.Unlock()
}

// newProc starts a process in slot i.
func (r *faultRun) newProc(t *testing.T, i int) *proc {
	r.mu.Lock()
	r.started++
	n := r.started
	r.mu.Unlock()
	// Clocks differ by up to half a lease between processes (the docs ask
	// for less than a lease).
	skew := time.Duration(r.rng.Int64N(int64(faultsLease))) - faultsLease/2
	p := &proc{name: fmt.Sprintf("p%d-%d", i, n)}
	p.drv = faultblob.New(r.shared(), faultblob.Options{Seed: r.seed*1000 + uint64(n), Faults: faultRates, Skew: skew})
	bs := blobstore.New(p.drv, blobstore.Options{Clock: p.drv.Now})
	var err error
	p.fleet, err = durable.New(durable.Options{Blobs: bs, Key: faultsKey, Node: p.name, Lease: faultsLease, Clock: p.drv.Now})
	require.NoError(t, err)
	box, _ := demo.Toolbox()
	require.NoError(t, box.Add(toolbox.Func("send", "Sends a message; counts each execution", func(_ context.Context, in struct {
		To string `json:"to"`
	}) (string, error) {
		if p.dead.Load() {
			// A killed process does nothing more.
			return "", errors.New("killed")
		}
		r.mu.Lock()
		r.execs[in.To] = append(r.execs[in.To], p.name)
		r.mu.Unlock()
		return "sent " + in.To, nil
	}).WithRisk(toolbox.High)))
	queue := approval.NewQueue(approval.Options{})
	inv, err := invoker.New(box, invoker.Options{Approver: queue, Store: bs})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	var logger *slog.Logger
	if os.Getenv("AIRLOCK_FAULTS_VERBOSE") != "" {
		logger = slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	p.svc, err = service.New(runner, service.Options{Queue: queue, Fleet: p.fleet, Park: true, ParkTTL: 3 * time.Second, Logger: logger, Clock: p.drv.Now})
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	p.stop = stop
	p.svc.Start(ctx)
	return p
}

// tlog writes log lines to the test's log.
type tlog struct{ t *testing.T }

func (w tlog) Write(b []byte) (int, error) { w.t.Log(strings.TrimSpace(string(b))); return len(b), nil }

// kill is the process's SIGKILL: nothing it does reaches the store any
// more, its tools do nothing, its upkeep stops; it is not closed.
func (r *faultRun) kill(p *proc) {
	p.dead.Store(true)
	p.drv.Kill()
	p.stop()
}

func (r *faultRun) live() *proc {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.procs[r.rng.IntN(len(r.procs))]
}

// randomChain picks one of the latest chains: the ones still likely to be
// running or parked.
func (r *faultRun) randomChain() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.chains) == 0 {
		return "", false
	}
	recent := r.chains[max(0, len(r.chains)-30):]
	return recent[r.rng.IntN(len(recent))], true
}

// pending picks a call a recent chain waits for, read as a person would:
// the chain's view, then the request with its arguments, through one
// process.
func (r *faultRun) pending(ctx context.Context) (approval.Request, bool) {
	id, ok := r.randomChain()
	if !ok {
		return approval.Request{}, false
	}
	p := r.live()
	v, err := p.svc.Chain(ctx, faultsTenant, id)
	if err != nil || len(v.Pending) == 0 {
		return approval.Request{}, false
	}
	a, err := p.svc.Approval(ctx, faultsTenant, v.Pending[r.rng.IntN(len(v.Pending))].ID)
	if err != nil {
		return approval.Request{}, false
	}
	return a, true
}

// script returns a chain whose HIGH calls send tokens unique to it.
func (r *faultRun) script(n int) string {
	a, b := fmt.Sprintf("c%d-a", n), fmt.Sprintf("c%d-b", n)
	ms := 50 + r.rng.IntN(1500)
	switch r.rng.IntN(6) {
	case 0:
		return fmt.Sprintf(`return await tools.send({to: %q})`, a)
	case 1:
		return fmt.Sprintf(`return await Promise.all([tools.send({to: %q}), tools.send({to: %q})])`, a, b)
	case 2: // a timer wakes it, decided or not
		return fmt.Sprintf(`return await Promise.race([tools.send({to: %q}).then(() => "sent"), new Promise(r => setTimeout(() => r("timed out"), %d))])`, a, ms)
	case 3:
		return fmt.Sprintf(`let ticks = 0; setTimeout(() => { ticks++ }, %d);
try { await tools.send({to: %q}) } catch (e) { ticks += 10 }
return [await tools.send({to: %q}), ticks]`, ms, a, b)
	case 4: // an artifact pinned by the chain
		return fmt.Sprintf(`const big = await tools.make_csv({rows: 20000, seed: 1}); return await tools.send({to: %q})`, a)
	default:
		return fmt.Sprintf(`const [x, y] = await Promise.all([tools.send({to: %q}), new Promise(r => setTimeout(r, %d))]);
return await tools.send({to: %q})`, a, ms, b)
	}
}

func (r *faultRun) submit(ctx context.Context) {
	p := r.live()
	r.mu.Lock()
	n := len(r.chains)
	r.mu.Unlock()
	v, err := p.svc.Submit(ctx, service.Caller{Tenant: faultsTenant, Role: service.RoleAll},
		&service.SubmitRequest{Script: r.script(n)}, service.SubmitOptions{Detach: true})
	if err != nil {
		r.count("submit_refused")
		return
	}
	r.count("submit")
	r.mu.Lock()
	r.chains = append(r.chains, v.ID)
	r.mu.Unlock()
}

// decide decides a pending approval, from one process or from two at once.
func (r *faultRun) decide(ctx context.Context, twice bool) {
	a, ok := r.pending(ctx)
	if !ok {
		r.count("decide_none")
		return
	}
	var in struct{ To string }
	// A request decided already keeps no arguments: its token was noted
	// when it was first decided.
	if json.Unmarshal(a.Args, &in) == nil && in.To != "" {
		r.mu.Lock()
		r.tokens[a.ID] = in.To
		r.mu.Unlock()
	}
	approve, hold := r.rng.IntN(3) > 0, r.rng.IntN(4) == 0
	if !twice {
		r.count("decide")
		_, _ = r.live().svc.Decide(ctx, faultsTenant, a.ID, service.Decision{Approve: approve, ArgsHash: a.ArgsHash, Hold: hold})
		return
	}
	r.count("decide_race")
	var wg sync.WaitGroup
	for _, yes := range []bool{approve, !approve} {
		p := r.live()
		wg.Go(func() {
			_, _ = p.svc.Decide(ctx, faultsTenant, a.ID, service.Decision{Approve: yes, ArgsHash: a.ArgsHash})
		})
	}
	wg.Wait()
}

// resume resumes a chain from one process, or from every one at once.
func (r *faultRun) resume(all bool) {
	id, ok := r.randomChain()
	if !ok {
		return
	}
	ps := []*proc{r.live()}
	r.count("resume")
	if all {
		r.count("resume_race")
		r.mu.Lock()
		ps = slices.Clone(r.procs)
		r.mu.Unlock()
	}
	for _, p := range ps {
		r.resumes.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _ = p.svc.Resume(ctx, faultsTenant, id)
		})
	}
}

func (r *faultRun) cancel(ctx context.Context) {
	if id, ok := r.randomChain(); ok {
		r.count("cancel")
		_, _ = r.live().svc.Cancel(ctx, faultsTenant, id)
	}
}

// crash kills a process and starts a fresh one in its slot.
func (r *faultRun) crash() {
	r.count("crash")
	r.mu.Lock()
	i := r.rng.IntN(len(r.procs))
	p := r.procs[i]
	r.mu.Unlock()
	r.kill(p)
	fresh := r.newProc(r.t, i)
	r.mu.Lock()
	r.procs[i], r.dead = fresh, append(r.dead, p)
	r.mu.Unlock()
}

// forge writes, as a bucket writer without the fleet key would, an
// approving decision for a pending call or an end for a chain, under the
// first name the real one may take that is free.
func (r *faultRun) forge(ctx context.Context) {
	var mac [32]byte
	_, _ = rand.Read(mac[:])
	head := "ALR1 " + base64.RawURLEncoding.EncodeToString(mac[:]) + "\n"
	var kind, name string
	var body []byte
	if r.rng.IntN(2) == 0 {
		a, ok := r.pending(ctx)
		if !ok {
			return
		}
		kind, name = "decision", "approvals/"+a.ID+"/decision"
		body, _ = json.Marshal(durable.Decision{Approved: true, ArgsHash: a.ArgsHash, By: "forger", At: time.Now().UTC()})
	} else {
		id, ok := r.randomChain()
		if !ok {
			return
		}
		kind, name = "end", "chains/"+id+"/end"
		body, _ = json.Marshal(durable.Chain{ID: id, Tenant: faultsTenant, Status: "ok", Node: "forger",
			Result: &chain.RunResult{ID: id, Status: chain.StatusOK, Value: json.RawMessage(`"FORGED"`)}})
	}
	for slot := range 4 {
		key := "r/" + faultsTenant + "/" + name
		if slot > 0 {
			key += "." + strconv.Itoa(slot)
		}
		err := r.raw.Put(ctx, key, bytes.NewReader(append([]byte(head), body...)), blobstore.PutOptions{CreateOnly: true})
		if err == nil {
			r.mu.Lock()
			r.forged[kind]++
			r.mu.Unlock()
			return
		}
		if !errors.Is(err, blobstore.ErrExist) {
			return
		}
		if r.rng.IntN(2) == 0 {
			return // the real object is there; a forgery after it changes nothing
		}
	}
}

// step runs one operation of the schedule.
func (r *faultRun) step(ctx context.Context) {
	switch x := r.rng.IntN(100); {
	case x < 25:
		r.submit(ctx)
	case x < 45:
		r.decide(ctx, false)
	case x < 50:
		r.decide(ctx, true)
	case x < 60:
		r.resume(false)
	case x < 63:
		r.resume(true)
	case x < 67:
		r.cancel(ctx)
	case x < 70:
		r.crash()
	case x < 73:
		r.count("forge")
		r.forge(ctx)
	default: // time passes: leases lapse, timers fall due
		r.count("pause")
		time.Sleep(time.Duration(r.rng.IntN(30)) * time.Millisecond)
	}
}

// settle stops the faults and drives every chain to its end: it decides
// what parked chains wait for and resumes them, and waits for lapsed
// leases to be reaped. It returns the chains still not ended.
func (r *faultRun) settle(ctx context.Context, within time.Duration) (left []string) {
	r.mu.Lock()
	procs := slices.Clone(r.procs)
	ids := slices.Clone(r.chains)
	r.mu.Unlock()
	for _, p := range procs {
		p.drv.SetFaults(false)
	}
	deadline := time.Now().Add(within)
	for {
		left = left[:0]
		for _, id := range ids {
			c, err := r.clean.GetChain(ctx, faultsTenant, id)
			switch {
			case err != nil:
				left = append(left, id+" (no record: "+err.Error()+")")
			case chain.Status(c.Status).Final():
			case c.Status == durable.StatusParked:
				left = append(left, id+" (parked)")
				p := procs[r.rng.IntN(len(procs))]
				for _, a := range c.Pending {
					// The request's arguments name its call's token (a
					// decided request keeps only their hash: then it was
					// decided before, and its token noted then).
					if req, _, err := r.clean.GetApproval(ctx, faultsTenant, a.ID); err == nil && req.Args != nil {
						var in struct{ To string }
						_ = json.Unmarshal(req.Args, &in)
						r.mu.Lock()
						r.tokens[a.ID] = in.To
						r.mu.Unlock()
					}
					_, _ = p.svc.Decide(ctx, faultsTenant, a.ID, service.Decision{Approve: r.rng.IntN(2) == 0, ArgsHash: a.ArgsHash, Hold: true})
				}
				r.resumes.Go(func() {
					rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					_, _ = p.svc.Resume(rctx, faultsTenant, id)
				})
			default:
				left = append(left, id+" ("+c.Status+")")
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// check returns the violations of the invariants.
func (r *faultRun) check(ctx context.Context) (violations []string) {
	// The authentic decisions, as the storage holds them.
	approved := map[string]bool{} // token → an authentic approval of it
	r.mu.Lock()
	tokens := maps.Clone(r.tokens)
	r.mu.Unlock()
	for id, tok := range tokens {
		_, d, err := r.clean.GetApproval(ctx, faultsTenant, id)
		if err == nil && d != nil && d.Approved && d.By != "forger" {
			approved[tok] = true
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for tok, by := range r.execs {
		if len(by) > 1 {
			violations = append(violations, fmt.Sprintf("call %s ran %d times (on %v)", tok, len(by), by))
		}
		if !approved[tok] {
			violations = append(violations, fmt.Sprintf("call %s ran on %v without an authentic approval", tok, by))
			if os.Getenv("AIRLOCK_FAULTS_VERBOSE") != "" {
				_ = r.clean.ListApprovals(ctx, faultsTenant, func(a *durable.Approval, d *durable.Decision) error {
					for id, tk := range tokens {
						if tk == tok && id == a.ID {
							r.t.Logf("token %s: approval %s decision %+v", tok, a.ID, d)
						}
					}
					if strings.Contains(string(a.Args), `"`+tok+`"`) {
						r.t.Logf("token %s: approval %s (args) decision %+v", tok, a.ID, d)
					}
					return nil
				})
			}
		}
	}
	for _, id := range r.chains {
		c, err := r.clean.GetChain(ctx, faultsTenant, id)
		if err != nil {
			continue // reported by settle
		}
		if c.Node == "forger" || c.Result != nil && string(c.Result.Value) == `"FORGED"` {
			violations = append(violations, "chain "+id+" reads as the forged end")
		}
	}
	return violations
}

// pins lists the pin markers left in the storage.
func pinsIn(t *testing.T, d blobstore.Driver) []string {
	var out []string
	require.NoError(t, d.List(context.Background(), "", func(en blobstore.Entry) error {
		if strings.Contains(en.Key, "/pin/") {
			out = append(out, en.Key)
		}
		return nil
	}))
	return out
}

// pinOwner names the owner of a pin marker, with its chain's record.
func (r *faultRun) pinOwner(ctx context.Context, key string) (string, *durable.Chain) {
	r.mu.Lock()
	ids := slices.Clone(r.chains)
	r.mu.Unlock()
	h := key[strings.LastIndex(key, "/")+1:]
	for _, id := range ids {
		owners := []string{id}
		for gen := 1; gen < 20; gen++ {
			owners = append(owners, "park:"+id+":"+strconv.Itoa(gen))
		}
		for _, o := range owners {
			if sum := sha256.Sum256([]byte(o)); hex.EncodeToString(sum[:]) == h {
				c, _ := r.clean.GetChain(ctx, faultsTenant, id)
				return o, c
			}
		}
	}
	return "unknown", nil
}

// runFaults runs one schedule of ops operations from seed on the storage
// shared opens, and reports its figures.
func runFaults(t *testing.T, seed uint64, ops int, shared func() blobstore.Driver) {
	raw := shared()
	cleanBS := blobstore.New(shared(), blobstore.Options{})
	t.Cleanup(func() { _ = cleanBS.Close(); _ = raw.Close() })
	clean, err := durable.New(durable.Options{Blobs: cleanBS, Key: faultsKey, Node: "checker", Lease: faultsLease})
	require.NoError(t, err)
	r := &faultRun{t: t, shared: shared, raw: raw, clean: clean, seed: seed, rng: mrand.New(mrand.NewPCG(seed, seed+1)),
		tokens: map[string]string{}, execs: map[string][]string{}, ops: map[string]int{}, forged: map[string]int{}}
	for i := range faultsProcs {
		r.procs = append(r.procs, r.newProc(t, i))
	}
	t.Cleanup(func() {
		defer func(start time.Time) {
			t.Logf("drained the processes in %s", time.Since(start).Round(time.Millisecond))
		}(time.Now())
		r.resumes.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for _, p := range append(slices.Clone(r.procs), r.dead...) {
			p.stop()
			_ = p.svc.Close(ctx)
		}
	})
	ctx := context.Background()
	start := time.Now()
	for range ops {
		r.step(ctx)
	}
	faultsFor := time.Since(start)
	start = time.Now()
	left := r.settle(ctx, 20*time.Second)
	settleFor := time.Since(start)
	r.resumes.Wait()
	violations := r.check(ctx)
	unended := map[string]bool{}
	for _, l := range left {
		id, _, _ := strings.Cut(l, " ")
		unended[id] = true
		violations = append(violations, "chain "+l+" did not end")
	}
	var pins []string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if pins = pinsIn(t, raw); len(pins) == 0 {
			break
		}
	}
	for _, p := range pins {
		owner, c := r.pinOwner(ctx, p)
		if c != nil && unended[c.ID] {
			continue // its chain's fate is reported above
		}
		status := "?"
		if c != nil {
			status = c.Status
		}
		blob := "live"
		if _, err := raw.Stat(ctx, p[:strings.Index(p, "/pin/")]+"/meta"); err != nil {
			blob = "gone"
		}
		violations = append(violations, fmt.Sprintf("pin left: %s (owner %s, chain %s, blob %s)", p, owner, status, blob))
	}

	var st faultblob.Stats
	r.mu.Lock()
	for _, p := range append(slices.Clone(r.procs), r.dead...) {
		st = st.Add(p.drv.Stats())
	}
	ran := 0
	for _, by := range r.execs {
		ran += len(by)
	}
	statuses := map[string]int{}
	for _, id := range r.chains {
		if c, err := clean.GetChain(ctx, faultsTenant, id); err == nil {
			k := c.Status
			if c.Result != nil && c.Result.Reason != "" {
				k += "/" + c.Result.Reason
			}
			statuses[k]++
			if os.Getenv("AIRLOCK_FAULTS_VERBOSE") != "" && c.Result != nil {
				t.Logf("chain %s: %s %s %s", id, c.Status, c.Result.Reason, c.Result.Error)
			}
		}
	}
	t.Logf("seed %d: %d operations in %s (%v), settled in %s, %d chains %v, %d processes started, %d calls ran; store: %s; forged %v; violations: %d",
		seed, ops, faultsFor.Round(time.Millisecond), r.ops, settleFor.Round(time.Millisecond), len(r.chains), statuses, r.started, ran, st, r.forged, len(violations))
	r.mu.Unlock()
	require.Empty(t, violations)
}

// faultBackends make the storages of the fleet under faults, a fresh one
// per run: memory, and MinIO (a bucket of its own) when
// AIRLOCK_S3_ENDPOINT names one and AIRLOCK_SOAK_OPS is set (make soak;
// the bounded run stays on memory, to stay short).
func faultBackends(t *testing.T) map[string]func() func() blobstore.Driver {
	out := map[string]func() func() blobstore.Driver{"mem": func() func() blobstore.Driver {
		mem := memblob.New()
		return func() blobstore.Driver { return mem.Reopen() }
	}}
	if os.Getenv(s3blob.EnvEndpoint) == "" || os.Getenv("AIRLOCK_SOAK_OPS") == "" {
		return out
	}
	out["s3"] = func() func() blobstore.Driver {
		cfg, err := s3blob.ConfigFromEnv()
		require.NoError(t, err)
		var b [6]byte
		_, _ = rand.Read(b[:])
		cfg.Bucket = "airlock-faults-" + hex.EncodeToString(b[:])
		return func() blobstore.Driver {
			d, err := s3blob.New(context.Background(), cfg)
			require.NoError(t, err)
			return d
		}
	}
	return out
}

// TestFleetUnderFaults drives the fleet through a randomised schedule on a
// faulty store and checks the invariants (see the top of this file).
// AIRLOCK_SOAK_OPS and AIRLOCK_SOAK_SEEDS (comma-separated) lengthen it.
func TestFleetUnderFaults(t *testing.T) {
	ops, seeds := 300, []uint64{1}
	if v := os.Getenv("AIRLOCK_SOAK_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "AIRLOCK_SOAK_OPS")
		ops = n
	}
	if v := os.Getenv("AIRLOCK_SOAK_SEEDS"); v != "" {
		seeds = nil
		for s := range strings.SplitSeq(v, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
			require.NoError(t, err, "AIRLOCK_SOAK_SEEDS")
			seeds = append(seeds, n)
		}
	}
	for name, storage := range faultBackends(t) {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
				runFaults(t, seed, ops, storage())
			})
		}
	}
}
