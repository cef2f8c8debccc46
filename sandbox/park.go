package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	jsprelude "github.com/airlockrt/airlock/guest-sdk/js"
	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
)

// Parking (RATIONALE.md, "Why park the guest's state instead of replaying
// its calls?"): a run whose Script.Park is set, and whose Bridge answers a
// call with *Pending, goes on until nothing but pending calls and timers is
// left; then, between two guest entries, it records the instance (memory as a
// difference against the engine's prepared instance, globals, clock) and the
// host's half of the event loop (pending call ids, the earliest timer, logs,
// counters) and ends, its instance released. Resume continues it, in this
// process or another one with the same engine: each pending call is handed
// to Resumption.Retry, and the script goes on exactly where it stopped.

// Pending is the error a Bridge returns for a call whose outcome waits for
// something that may take long (a human's approval). Token is the Bridge's
// own description of the call; it is kept in the parked state and handed to
// Resumption.Retry when the run resumes. In a run that cannot park (Script.Park
// unset, or a module), Pending is a Bridge failure.
type Pending struct{ Token []byte }

func (p *Pending) Error() string { return "sandbox: the call waits for a decision" }

// PendingCall is a call a parked run waits for.
type PendingCall struct {
	// ID is the guest's call id.
	ID int32 `json:"id"`
	// Token is what the Bridge returned in its *Pending.
	Token []byte `json:"token"`
}

// Parked is a run that stopped to wait for its pending calls.
type Parked struct {
	// State is everything Resume needs, in a versioned binary form. It is
	// not sealed: whoever stores it must protect its integrity (it holds the
	// guest's memory, which the host then trusts to be the guest's own).
	State []byte
	// Calls are the pending calls, in the order they were made.
	Calls []PendingCall
	// Wake, when set, is when the run's earliest timer falls due (real
	// clock only): resume it then, whether or not its calls were decided,
	// so the timer runs (a still-pending call just waits on, and the run
	// may park again). Zero: no timer, or the virtual clock, whose time
	// does not pass while parked.
	Wake time.Time
}

// ErrIncompatibleState is returned by Resume for a state written by another
// version of the engine, or for another memory limit than this engine can
// give.
var ErrIncompatibleState = errors.New("sandbox: parked state from an incompatible engine")

// ErrCorruptState is returned by Resume for bytes that are not a parked state.
var ErrCorruptState = errors.New("sandbox: malformed parked state")

// Resumption is what Resume needs besides the state.
type Resumption struct {
	// State is Parked.State.
	State []byte
	// Bridge serves the calls the script makes from now on.
	Bridge Bridge
	// Retry is called once for each pending call, on its own goroutine,
	// with its token; it answers like a Bridge, and may answer *Pending
	// again (the call still waits).
	Retry func(ctx context.Context, token []byte) ([]byte, error)
	// Artifacts reads the artifacts the script was handed (Script.Artifacts).
	Artifacts ArtifactReader
	// Park lets the resumed run park again.
	Park bool
	// Tenant is whose parse slot the script takes when Resume parses it
	// again, as Script.Tenant.
	Tenant string
}

// The state's header, then its host half as JSON, then the instance.
const (
	parkMagic   = "ALPS"
	parkVersion = 1
	// parkVersionKeys marks a state that holds CryptoKeys (hostState.Keys):
	// an engine that reads only version 1 would resume it without them, so
	// it refuses it as incompatible instead. States without keys stay
	// version 1.
	parkVersionKeys = 2
	// maxHostState bounds the host half: logs (MaxLogBytes, at most 64 MiB
	// by Limits' ceiling), pending tokens and the script.
	maxHostState = 256 << 20
)

// hostState is the host's half of a parked run.
type hostState struct {
	// Prelude is the SHA-256 of the prelude the run started with: the
	// guest's memory holds that prelude's code, which speaks the host
	// protocol of its day, so a state is resumed only by an engine with the
	// same prelude (a state captured against the bare module is not
	// covered by the base image's identity).
	Prelude  string `json:"prelude"`
	Source   string `json:"source"`
	Filename string `json:"filename"`
	Lang     Lang   `json:"lang"`
	Guest    Guest  `json:"guest"`

	Timeout        time.Duration `json:"timeout"`
	MemoryBytes    uint64        `json:"memory_bytes"`
	MaxLogBytes    int           `json:"max_log_bytes"`
	MaxLogEntries  int           `json:"max_log_entries"`
	MaxResultBytes int           `json:"max_result_bytes"`
	MaxInFlight    int           `json:"max_in_flight"`
	MaxArgsBytes   int           `json:"max_args_bytes"`
	MaxStackBytes  int           `json:"max_stack_bytes"`
	MaxReadBytes   int64         `json:"max_read_bytes"`

	Virtual bool          `json:"virtual"`
	Start   int64         `json:"start"`   // the real clock's start, Unix ns
	Origin  int64         `json:"origin"`  // the instance's monotonic origin
	VNow    int64         `json:"vnow"`    // the virtual clock
	Elapsed float64       `json:"elapsed"` // the timers' clock when it parked
	Active  time.Duration `json:"active"`  // time the run ran, parks excluded

	Wake      float64       `json:"wake"`
	InFlight  int           `json:"in_flight"`
	NextID    int32         `json:"next_id"`
	Pending   []PendingCall `json:"pending"`
	Logs      []LogEntry    `json:"logs"`
	LogBytes  int           `json:"log_bytes"`
	Truncated bool          `json:"truncated"`
	ReadBytes int64         `json:"read_bytes"`
	Calls     int           `json:"calls"`
	Entries   int           `json:"entries"`
	Crypto    []byte        `json:"crypto,omitempty"` // a seeded run's crypto stream
	Keys      []parkedKey   `json:"keys,omitempty"`   // the run's CryptoKeys (subtleops.go)
	KeyNext   int32         `json:"key_next,omitempty"`
	// IntlFormats are the prefixes of the run's Intl formats, by handle
	// (scriptRun.formats).
	IntlFormats []string `json:"intl_formats,omitempty"`
	// Sites are the call sites the host read of pending calls
	// (scriptRun.sites).
	Sites map[int32][]quickjs.Site `json:"sites,omitempty"`
}

// canPark reports whether the run should park now: it may, something is
// pending, and nothing else is in flight or waiting to be handed over.
func (r *scriptRun) canPark() bool {
	return r.park && len(r.pending) > 0 && r.inFlight == len(r.pending) && len(r.queued) == 0 && len(r.ready) == 0
}

// capture records the parked run. The instance must be idle.
func (r *scriptRun) capture(ctx context.Context, e *ScriptEngine) (*Parked, error) {
	rt, err := e.runtime(ctx, r.lim.MemoryBytes)
	if err != nil {
		return nil, err
	}
	base, err := e.base(ctx, rt, r.lim.MemoryBytes)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(r.pending, func(a, b PendingCall) int { return cmp.Compare(a.ID, b.ID) })
	snap, err := rt.Capture(ctx, r.in, base)
	if err != nil {
		return nil, fmt.Errorf("sandbox: parking: %w", err)
	}
	h := hostState{
		Prelude: preludeHash(), Source: r.prep.source, Filename: r.prep.filename, Lang: r.prep.lang, Guest: r.guest,
		Timeout: r.lim.Timeout, MemoryBytes: r.lim.MemoryBytes, MaxLogBytes: r.lim.MaxLogBytes,
		MaxLogEntries: r.lim.MaxLogEntries, MaxResultBytes: r.lim.MaxResultBytes, MaxInFlight: r.lim.MaxInFlight,
		MaxArgsBytes: r.lim.MaxArgsBytes, MaxStackBytes: r.lim.MaxStackBytes, MaxReadBytes: r.lim.MaxReadBytes,
		Virtual: r.clock.virtual, Start: r.clock.start.UnixNano(), Origin: r.clock.origin, VNow: r.clock.vnow,
		Elapsed: r.clock.elapsed(), Active: r.active + time.Since(r.began),
		Wake: r.wake, InFlight: r.inFlight, NextID: r.nextID, Pending: r.pending, Sites: r.sites,
		Logs: r.logs, LogBytes: r.logBytes, Truncated: r.truncated, ReadBytes: r.readBytes,
		Calls: r.stats.Calls, Entries: r.stats.Entries,
	}
	if h.Keys, err = r.keys.park(); err != nil {
		return nil, err
	}
	h.KeyNext = r.keys.next
	h.IntlFormats = r.formats.prefixes
	if c, ok := r.cryptoRand.(*rand.ChaCha8); ok {
		if h.Crypto, err = c.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	js, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(parkMagic)
	version := uint64(parkVersion)
	if len(h.Keys) > 0 {
		version = parkVersionKeys
	}
	buf.Write(binary.AppendUvarint(nil, version))
	buf.Write(binary.AppendUvarint(nil, uint64(len(js))))
	buf.Write(js)
	if err := snap.Marshal(&buf); err != nil {
		return nil, err
	}
	p := &Parked{State: buf.Bytes(), Calls: r.pending}
	if r.wake >= 0 && !r.clock.virtual {
		p.Wake = time.Now().Add(time.Duration((r.wake - r.clock.elapsed()) * float64(time.Millisecond)))
	}
	return p, nil
}

// preludeHash is the hex SHA-256 of the embedded prelude.
var preludeHash = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(jsprelude.Source))
	return hex.EncodeToString(sum[:])
})

// decodeState splits a parked state into its host half and the instance's
// bytes.
func decodeState(state []byte) (*hostState, []byte, error) {
	if len(state) < len(parkMagic) || string(state[:len(parkMagic)]) != parkMagic {
		return nil, nil, fmt.Errorf("%w: not a parked run", ErrCorruptState)
	}
	rest := state[len(parkMagic):]
	v, n := binary.Uvarint(rest)
	if n <= 0 {
		return nil, nil, fmt.Errorf("%w: no version", ErrCorruptState)
	}
	if v != parkVersion && v != parkVersionKeys {
		return nil, nil, fmt.Errorf("%w: format version %d; this engine reads versions %d and %d", ErrIncompatibleState, v, parkVersion, parkVersionKeys)
	}
	rest = rest[n:]
	size, n := binary.Uvarint(rest)
	if n <= 0 || size > maxHostState || size > uint64(len(rest)-n) {
		return nil, nil, fmt.Errorf("%w: bad host state length", ErrCorruptState)
	}
	rest = rest[n:]
	var h hostState
	if err := json.Unmarshal(rest[:size], &h); err != nil {
		return nil, nil, fmt.Errorf("%w: host state: %v", ErrCorruptState, err)
	}
	return &h, rest[size:], nil
}

// limits returns the limits the parked run ran under, checked.
func (h *hostState) limits() (Limits, error) {
	lim := Limits{Timeout: h.Timeout, MemoryBytes: h.MemoryBytes, MaxLogBytes: h.MaxLogBytes,
		MaxLogEntries: h.MaxLogEntries, MaxResultBytes: h.MaxResultBytes, MaxInFlight: h.MaxInFlight,
		MaxArgsBytes: h.MaxArgsBytes, MaxStackBytes: h.MaxStackBytes, MaxReadBytes: h.MaxReadBytes}
	if lim.Timeout <= 0 || lim.MemoryBytes == 0 || lim.MaxInFlight <= 0 {
		return Limits{}, fmt.Errorf("%w: its limits are missing", ErrCorruptState)
	}
	return lim.withDefaults()
}

// check refuses a host state whose counters cannot be a run's.
func (h *hostState) check(lim Limits) error {
	bad := h.InFlight != len(h.Pending) || h.InFlight > lim.MaxInFlight || h.NextID < 1 ||
		len(h.Logs) > lim.MaxLogEntries || h.LogBytes < 0 || h.LogBytes > lim.MaxLogBytes ||
		h.Active < 0 || h.Calls < 0 || h.Entries < 0 || h.ReadBytes < 0 || h.VNow < 0 ||
		h.Elapsed < 0 || h.Wake < -1 || h.Lang != LangJS && h.Lang != LangTS
	seen := map[int32]bool{}
	for _, p := range h.Pending {
		bad = bad || p.ID < 1 || p.ID >= h.NextID || seen[p.ID]
		seen[p.ID] = true
	}
	for id, sites := range h.Sites {
		bad = bad || !seen[id] || len(sites) > maxSiteFrames
		for _, s := range sites {
			bad = bad || len(s.Name) > maxSiteName
		}
	}
	if bad {
		return fmt.Errorf("%w: inconsistent counters", ErrCorruptState)
	}
	return h.Guest.Validate()
}

// base returns the base parked instances of memBytes are recorded
// against: the prepared snapshot for that limit (taken now if there is none
// yet), else the bare module.
func (e *ScriptEngine) base(ctx context.Context, rt *quickjs.Runtime, memBytes uint64) (*quickjs.Base, error) {
	e.mu.Lock()
	sn, ok := e.snaps[memBytes]
	e.mu.Unlock()
	if !ok {
		in, err := e.newInstance(ctx, rt, memBytes)
		if err != nil {
			return nil, err
		}
		in.Close(ctx)
		e.mu.Lock()
		sn = e.snaps[memBytes]
		e.mu.Unlock()
	}
	if sn != nil && sn.s != nil {
		return quickjs.BaseOf(sn.s), nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bare == nil {
		e.bare = map[uint64]*quickjs.Base{}
	}
	b := e.bare[memBytes]
	if b == nil {
		if len(e.bare) >= maxSnapshots {
			return quickjs.BaseOf(nil), nil
		}
		b = quickjs.BaseOf(nil)
		e.bare[memBytes] = b
	}
	return b, nil
}

// Resume continues a parked run: it restores the instance, hands each
// pending call to res.Retry, and runs the event loop on from where it
// stopped, under the limits the run started with (its Timeout counting only
// the time it ran, not the time it was parked). It returns what Run returns,
// and ErrCorruptState or ErrIncompatibleState (with a nil Result) for a
// state it cannot restore.
func (e *ScriptEngine) Resume(ctx context.Context, res Resumption) (*Result, error) {
	start := time.Now()
	if res.Bridge == nil || res.Retry == nil {
		return nil, fmt.Errorf("%w: Resumption needs a Bridge and a Retry", ErrInvalidScript)
	}
	h, inst, err := decodeState(res.State)
	if err != nil {
		return nil, err
	}
	if h.Prelude != preludeHash() {
		return nil, fmt.Errorf("%w: it was parked by an engine with another prelude", ErrIncompatibleState)
	}
	lim, err := h.limits()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptState, err)
	}
	if err := h.check(lim); err != nil {
		return nil, err
	}
	keys, err := restoreKeys(h.Keys, h.KeyNext)
	if err != nil {
		return nil, err
	}
	formats, err := restoreIntlFormats(h.IntlFormats)
	if err != nil {
		return nil, err
	}
	snap, err := quickjs.Unmarshal(inst, uint32(quickjs.MemLimit(lim.MemoryBytes)/quickjs.PageSize))
	switch {
	case errors.Is(err, quickjs.ErrIncompatible):
		return nil, fmt.Errorf("%w: %v", ErrIncompatibleState, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrCorruptState, err)
	case snap.HeapLimit() != lim.MemoryBytes:
		return nil, fmt.Errorf("%w: its engine state is for another memory limit", ErrCorruptState)
	}
	prep, err := prepare(ctx, Script{Source: h.Source, Filename: h.Filename, Lang: h.Lang, Tenant: res.Tenant}, e.parse)
	if err != nil {
		return nil, fmt.Errorf("%w: its script no longer prepares: %v", ErrIncompatibleState, err)
	}
	ctx, end, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	left := lim.Timeout - h.Active
	ctx, cancel := withTimeLimit(ctx, max(left, 0), lim, "script")
	defer cancel()
	rt, err := e.runtime(ctx, lim.MemoryBytes)
	if err != nil {
		return nil, err
	}
	base, err := e.base(ctx, rt, lim.MemoryBytes)
	if err != nil {
		return nil, err
	}
	in, err := rt.RestoreParked(ctx, snap, base)
	if errors.Is(err, quickjs.ErrIncompatible) {
		// Captured against the bare module (this engine had no prepared
		// snapshot then, or another process had none).
		in, err = rt.RestoreParked(ctx, snap, quickjs.BaseOf(nil))
	}
	switch {
	case errors.Is(err, quickjs.ErrIncompatible):
		return nil, fmt.Errorf("%w: %v", ErrIncompatibleState, err)
	case err != nil:
		return nil, fmt.Errorf("sandbox: resuming: %w", err)
	}
	r := newScriptRun(ctx, in, prep, res.Bridge, lim)
	r.restore(h, e.opts.Clock)
	r.keys = keys
	r.formats = formats
	if len(h.Crypto) > 0 {
		c := &rand.ChaCha8{}
		if err := c.UnmarshalBinary(h.Crypto); err != nil {
			in.Close(ctx)
			return nil, fmt.Errorf("%w: crypto stream: %v", ErrCorruptState, err)
		}
		r.cryptoRand = c
	}
	r.artifacts, r.retry, r.park = res.Artifacts, res.Retry, res.Park
	in.SetClock(r.clock)
	r.stats.Instantiate = time.Since(start)
	out := r.run(ctx, e, start)
	if r.exit != nil {
		return out, r.exit
	}
	return out, nil
}

// restore sets the run's host half from h; the pending calls are queued for
// Retry.
func (r *scriptRun) restore(h *hostState, now func() time.Time) {
	r.guest = h.Guest
	r.clock = newRunClock(h.Virtual, now, h.Origin)
	r.clock.vnow = h.VNow
	if !h.Virtual {
		r.clock.start = time.Unix(0, h.Start)
		// Another host's clock may be behind: the timers' clock (and so
		// performance.now) never goes back.
		parkedAt := time.Duration(h.Elapsed * float64(time.Millisecond))
		if r.clock.now().Sub(r.clock.start) < parkedAt {
			r.clock.start = r.clock.now().Add(-parkedAt)
		}
		// The guest's clock resumes where it stopped and catches up with
		// the host's through the timers that fell due meanwhile.
		r.clock.lag = max(int64(r.clock.now().Sub(r.clock.start)-parkedAt), 0)
	}
	r.active = h.Active
	r.wake, r.inFlight, r.nextID, r.sites = h.Wake, h.InFlight, h.NextID, h.Sites
	r.logs, r.logBytes, r.truncated, r.readBytes = h.Logs, h.LogBytes, h.Truncated, h.ReadBytes
	r.stats.Calls, r.stats.Entries = h.Calls, h.Entries
	for _, p := range h.Pending {
		r.queued = append(r.queued, queuedCall{id: p.ID, token: p.Token})
	}
	r.resumed = true
}
