package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
	"github.com/airlockrt/airlock/sandbox/internal/wire"
)

// The event loop (RATIONALE.md, "Why a host-driven event loop?"):
//
//  1. The host calls __airlock_start(...) (quickjs.Instance.Start). The
//     prelude compiles the script and starts it; the job queue then runs
//     until it is empty and the call returns.
//  2. Every tools.x(args) the script makes calls __airlock_host(OP_CALL),
//     which queues the call and returns an id at once; the guest keeps
//     running and may make more (up to MaxInFlight; the prelude queues the
//     rest).
//  3. Queued calls are handed to the Bridge as soon as the guest gives the
//     host control: when the evaluation returns (the guest is idle), or at
//     the guest's next periodic yield (quickjs.Yielder, at most ~0.1 ms of
//     computation away). Each runs on its own goroutine, except a call that
//     is the only one outstanding when the guest goes idle: nothing can
//     happen until it completes, so it runs on the driving goroutine. That
//     saves a goroutine start and a cross-thread wake-up (~15 µs together on
//     a 2-core VM) per sequential `await tools.x()`, and changes nothing
//     observable: the Bridge still gets the run's context, and a deadline
//     during the call is still reported as Timeout. (Not while a timer is
//     pending: the timer may have to fire before the call completes.)
//  4. Timers live in the prelude, which tells the host its earliest due time
//     (OP_TIMER); the host owns the clock (runClock) and the wait.
//  5. When the evaluation returns with the script unsettled, nextEvent picks
//     the next event, the earliest of the completions that arrived and the
//     due timer, waiting for one if there is none (or until the deadline),
//     and the host calls the prelude's __airlock_pump with that completion,
//     its payload parsed by the engine (quickjs.Instance.Pump), and the
//     prelude settles its promise, or, handed none, runs the due timer; the
//     job queue runs again before the call returns.
//  6. The script's settlement calls OP_DONE or OP_FAIL; the host records the
//     outcome. OP_FAIL unwinds the guest by panicking out of the host
//     function; OP_DONE returns, and the guest runs nothing more than the
//     rest of the prelude's job (quickjs.Instance.Finish), which spares the
//     trap's cost on the common path. Calls still queued then are dropped
//     without reaching the Bridge.

// stopGuest is the panic value a host call uses to abandon the guest.
type stopGuest struct{}

type callResult struct {
	id      int32
	env     []byte
	value   []byte // wire.OkValue of env, or nil
	err     error
	at      float64 // when it completed, on the timers' clock
	stamped bool    // at is set (by the goroutine that ran the call)
}

// readyCall is a completion waiting to be handed to the guest.
type readyCall struct {
	c  wire.Completion
	at float64
}

// queuedCall is a call the guest made that has not reached the Bridge yet.
type queuedCall struct {
	id    int32
	tool  string
	args  []byte
	token []byte   // a pending call of a resumed run, for Resumption.Retry
	site  CallSite // where the script made it, when the host read it (CallSiteOf)
}

type scriptRun struct {
	rngSeed [4]uint32 // Math.random's seed for this run
	in      *quickjs.Instance
	prep    *prepared
	bridge  Bridge
	lim     Limits

	// cryptoRand is the source of crypto.getRandomValues and randomUUID
	// (OpRandom, webops.go); nil means crypto/rand.
	cryptoRand io.Reader
	// keys are the run's CryptoKeys (OpSubtle, subtleops.go).
	keys subtleKeys
	// formats are the run's compiled Intl formats (OpIntlFormat,
	// intlops.go).
	formats intlFormats

	bctx    context.Context
	bcancel context.CancelFunc
	wg      sync.WaitGroup
	results chan callResult // capacity MaxInFlight: senders never block; nil until launch first needs it
	queued  []queuedCall
	ready   []readyCall // completions not yet handed over, by arrival
	batch   []byte

	artifacts ArtifactReader // Script.Artifacts
	readBytes int64          // artifact bytes read so far
	readErr   []byte         // why the last read was refused

	clock    *runClock
	wake     float64 // the guest's earliest timer, in ms on clock; -1: none
	event    wire.Completion
	hasEvent bool // event is the next completion pump hands over

	inFlight   int  // made and not yet taken by the guest
	delivering bool // the host called __airlock_pump and the guest has not asked OpPumped yet
	nextID     int32
	// sites are the call sites read from the guest's stack (callSites) of
	// the calls in flight that have one, for their failure.
	sites map[int32][]quickjs.Site
	site  []quickjs.Site // callSites' buffer
	// argsBuf is startCallValue's buffer (at most maxArgsScratch kept).
	argsBuf     []byte
	noCallValue bool // noCallValueKey
	// lineStarts are the offsets of the lines of prep.code, and siteMemo
	// the positions worked out, for callSite.
	lineStarts []int
	siteMemo   map[siteKeyOf]CallSite

	logs      []LogEntry
	logBytes  int
	truncated bool
	value     json.RawMessage
	exit      *ExitError
	finished  bool
	stats     Stats

	// Parking (park.go).
	guest   Guest                                                   // the script's clock and seed settings
	park    bool                                                    // the run may park
	pending []PendingCall                                           // calls the Bridge answered with *Pending
	parking bool                                                    // nextEvent decided to park
	resumed bool                                                    // the guest is idle in a restored instance
	retry   func(ctx context.Context, token []byte) ([]byte, error) // Resumption.Retry
	active  time.Duration                                           // time run before the last park
	began   time.Time                                               // when this stretch of the run began
}

func newScriptRun(ctx context.Context, in *quickjs.Instance, prep *prepared, bridge Bridge, lim Limits) *scriptRun {
	bctx, bcancel := context.WithCancel(ctx)
	return &scriptRun{
		in: in, prep: prep, bridge: bridge, lim: lim,
		bctx: bctx, bcancel: bcancel,
		nextID:      1,
		wake:        -1,
		noCallValue: ctx.Value(noCallValueKey{}) != nil,
	}
}

// noCallValueKey, set on a Run's context by tests, makes the run decline
// every CALL_VALUE, so that the prelude stringifies every call's
// arguments itself (TestCallValueAsStringify compares the two).
type noCallValueKey struct{}

// drive runs the event loop until the script settles or the run fails.
//
// When ctx ends, the instance is interrupted (RATIONALE.md, "Why an
// interrupt check at loop headers, not close-on-context-done?"): guest code
// traps at its next loop header and the Eval in progress fails, which
// classify reports as the context's end. A host call in progress is Go code
// and sees ctx end on its own: the wait for the next event selects on it,
// and the Bridge gets a context derived from it.
func (r *scriptRun) drive(ctx context.Context) {
	stop := context.AfterFunc(ctx, r.in.Interrupt)
	defer stop()
	hctx := quickjs.WithHandler(ctx, r.in, r)
	r.in.SetStackLimit(uint32(min(r.lim.MaxStackBytes, 1<<30)))
	body := 0
	if r.prep.body {
		body = 1
	}
	// __airlock_start(maxInFlight, body, [maxResult, seed…], where,
	// source), called as the completions are (quickjs.Instance.Start): no
	// source to compile.
	params := fmt.Appendf(r.batch[:0], "[%d,%d,%d,%d,%d]", r.lim.MaxResultBytes,
		r.rngSeed[0], r.rngSeed[1], r.rngSeed[2], r.rngSeed[3])
	r.batch = params
	pumping := false
	if r.resumed {
		// A restored guest is idle, waiting for its next event.
		if !r.nextEvent(ctx) {
			return
		}
		pumping = true
	}
	for {
		if ctx.Err() != nil {
			r.exit = ctxExit(ctx)
			return
		}
		r.stats.Entries++
		var (
			exc  bool
			text string
			err  error
		)
		if pumping {
			exc, text, err = r.pump(hctx)
		} else {
			exc, text, err = r.start(hctx, int32(min(r.lim.MaxInFlight, math.MaxInt32)), int32(body), params)
		}
		if r.finished {
			return
		}
		if err != nil {
			r.exit = r.classify(ctx, err)
			return
		}
		if exc {
			r.exit = r.loopException(text)
			return
		}
		if !r.nextEvent(ctx) {
			return
		}
		pumping = true
	}
}

// start calls the prelude's __airlock_start, which compiles the script and
// starts it; the job queue runs before it returns.
func (r *scriptRun) start(ctx context.Context, limit, body int32, params []byte) (exc bool, text string, err error) {
	fn, err := r.in.GlobalFunc(ctx, startFunc)
	if err != nil {
		return false, "", err
	}
	// The source and where it comes from go as arguments: asking the
	// host for them would call back into the guest from a host call, on a
	// second call stack.
	return r.in.Start(ctx, fn, limit, body, params, r.where(nil), []byte(r.prep.code))
}

// pump hands the guest the event nextEvent chose: it calls the prelude's
// __airlock_pump with the completion (its id, its kind and its payload,
// which the engine parses: wire.Completion) or, with id 0, to run the
// earliest due timer; the job queue runs before it returns.
func (r *scriptRun) pump(ctx context.Context) (exc bool, text string, err error) {
	fn, err := r.in.GlobalFunc(ctx, pumpFunc)
	if err != nil {
		return false, "", err
	}
	// The prelude's pump asks first (OpPumped); a call the script makes
	// later, as the jobs run, is not the host's.
	r.delivering = true
	defer func() { r.delivering = false }()
	if !r.hasEvent {
		return r.in.Pump(ctx, fn, 0, 0, nil, nil)
	}
	c := r.event
	r.inFlight--
	r.event, r.hasEvent = wire.Completion{}, false
	sites, ok := r.sites[c.ID]
	if ok {
		delete(r.sites, c.ID)
	}
	if c.Value != nil {
		return r.in.Pump(ctx, fn, c.ID, 1, wire.EngineText(c.Value), nil)
	}
	var where []byte
	if ok {
		where = appendSites(r.batch[:0], sites)
		r.batch = where
	}
	return r.in.Pump(ctx, fn, c.ID, 0, wire.EngineText(c.Envelope), where)
}

// appendSites appends the JSON form of sites the prelude reads
// (hostSites in guest-sdk/js/prelude/05-errors.js): [native, input, name,
// line, column] for each, flags as 0 or 1 and name null when it has none.
func appendSites(dst []byte, sites []quickjs.Site) []byte {
	dst = append(dst, '[')
	for i, s := range sites {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		dst = append(dst, "01"[b2i(s.Native)], ',', "01"[b2i(s.Input)], ',')
		if s.HasName {
			name, _ := json.Marshal(s.Name) // a string: cannot fail
			dst = append(dst, name...)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(s.Line), 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(s.Col), 10)
		dst = append(dst, ']')
	}
	return append(dst, ']')
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nextEvent waits, with the guest idle, for the next event to hand it: the
// earliest of the completions that arrived and the due timer, whichever
// happened first (a completion at the same millisecond as the timer goes
// first). It reports false, with r.exit set, when the run must end instead:
// its context ended, a Bridge call failed, or nothing is left that could
// settle the script.
func (r *scriptRun) nextEvent(ctx context.Context) bool {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		r.drain()
		if r.finished {
			return false
		}
		r.clock.catchUp(r.wake)
		due := r.wake >= 0 && r.wake <= r.clock.elapsed()
		if len(r.ready) > 0 && (!due || r.ready[0].at <= r.wake) {
			r.event = r.ready[0].c
			r.hasEvent = true
			r.ready[0] = readyCall{}
			r.ready = r.ready[1:]
			return true
		}
		if due {
			return true
		}
		if r.canPark() {
			r.parking = true
			return false
		}
		if r.inFlight == 0 {
			if r.wake < 0 {
				r.exit = &ExitError{Kind: ScriptError, Message: "the script can never finish: it awaits a promise " +
					"that no tool call, timer or other job will settle"}
				return false
			}
			if r.clock.virtual {
				r.clock.jump(r.wake) // nothing else can happen first
				continue
			}
		}
		if len(r.queued) == 1 && r.inFlight == 1 && r.wake < 0 {
			// The only call outstanding and no timer: run it here.
			q := r.queued[0]
			r.queued = r.queued[:0]
			r.count(q)
			r.in.IdleBegin()
			c := r.call(q)
			r.in.IdleEnd()
			if ctx.Err() != nil {
				r.exit = ctxExit(ctx)
				return false
			}
			r.accept(c)
			continue
		}
		r.launch()
		var fire <-chan time.Time
		if r.wake >= 0 && !r.clock.virtual {
			d := r.clock.until(r.wake)
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			fire = timer.C
		}
		r.in.IdleBegin()
		select {
		case c := <-r.results:
			r.in.IdleEnd()
			r.accept(c)
		case <-fire:
			r.in.IdleEnd()
		case <-ctx.Done():
			r.in.IdleEnd()
			r.exit = ctxExit(ctx)
			return false
		}
	}
}

// drain accepts every completion that has arrived, without waiting.
func (r *scriptRun) drain() {
	for !r.finished {
		select {
		case c := <-r.results:
			r.accept(c)
		default:
			return
		}
	}
}

// pumpFunc is the prelude's function that delivers events (pump), and
const pumpFunc, startFunc = "__airlock_pump", "__airlock_start"

// Yield implements quickjs.Yielder: the guest is computing, so queued calls
// start now rather than when it goes idle.
func (r *scriptRun) Yield(context.Context, *quickjs.Instance) { r.launch() }

// launch hands every queued call to the Bridge, each on its own goroutine.
func (r *scriptRun) launch() {
	if len(r.queued) > 0 && r.results == nil {
		// Made at the first call that needs it: most runs make none, or
		// one that nextEvent runs inline, and the channel's buffer is a
		// few KiB (nil blocks the receives until then).
		r.results = make(chan callResult, r.lim.MaxInFlight)
	}
	for _, q := range r.queued {
		r.count(q)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			c := r.call(q)
			if !r.clock.virtual {
				c.at, c.stamped = r.clock.stamp(), true
			}
			r.results <- c
		}()
	}
	clear(r.queued)
	r.queued = r.queued[:0]
}

// finish cancels and waits for the calls still in flight and discards the
// instance.
func (r *scriptRun) finish(ctx context.Context) {
	r.bcancel()
	r.wg.Wait()
	// The linear memory may exceed the limit by the engine's headroom
	// (Limits.MemoryBytes); what the script can use is the limit.
	r.stats.MemoryBytes = min(r.in.MemoryBytes(), r.lim.MemoryBytes)
	r.in.Close(ctx)
}

func (r *scriptRun) stop(exit *ExitError) {
	r.finished = true
	r.exit = exit
	panic(stopGuest{})
}

// HostCall implements quickjs.Handler: one __airlock_host(op, ...) call.
func (r *scriptRun) HostCall(ctx context.Context, in *quickjs.Instance, args []uint64) (ret uint64) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopGuest); !ok {
				r.finished = true
				// The panic value and stack go to Err for the host's logs, not
				// into Message, which reaches API clients.
				r.exit = &ExitError{Kind: HostError, Message: "sandbox internal error; the chain was stopped",
					Err: fmt.Errorf("sandbox: internal panic: %v\n%s", v, debug.Stack())}
			}
			panic(stopGuest{})
		}
	}()
	if r.finished {
		// The run has its result (done): nothing the guest asks after it
		// is answered.
		panic(stopGuest{})
	}
	op := int32(-1)
	if len(args) > 0 {
		op, _ = quickjs.DecodeInt(args[0])
	}
	switch op {
	case wire.OpCall:
		return r.startCall(ctx, args)
	case wire.OpCallValue:
		return r.startCallValue(ctx, args)
	case wire.OpLog:
		r.log(ctx, args)
		return in.Undefined()
	case wire.OpTimer:
		return r.timer(ctx, args)
	case wire.OpRead:
		return r.read(ctx, args)
	case wire.OpDone:
		r.done(ctx, args)
		return in.Undefined()
	case wire.OpFail:
		r.fail(ctx, args)
	case wire.OpRandom:
		return r.opRandom(ctx, args)
	case wire.OpDigest:
		return r.opDigest(ctx, args)
	case wire.OpIntl:
		return r.intl(ctx, args)
	case wire.OpIntlFormat:
		return r.intlFormat(ctx, args)
	case wire.OpSubtle:
		return r.opSubtle(ctx, args)
	case wire.OpPromise:
		return r.opPromise(ctx, args)
	case wire.OpPumped:
		delivered := r.delivering
		r.delivering = false
		if delivered {
			return quickjs.Int(1)
		}
		return quickjs.Int(0)
	case wire.OpWhere:
		return r.newString(ctx, r.where(args))
	case wire.OpTooLarge:
		size := string(r.copyStr(ctx, r.str(ctx, args, 1), 32))
		r.stop(&ExitError{Kind: LimitExceeded, Limit: LimitResult,
			Message: fmt.Sprintf("the result's JSON is at least %s bytes, more than %d (%s)", size, r.lim.MaxResultBytes, r.lim.setting("max_result_bytes"))})
	}
	r.stop(&ExitError{Kind: Trap, Message: fmt.Sprintf("the guest broke the host protocol (operation %d)", op)})
	return 0
}

// guestErr handles an error from a re-entrant guest call.
func (r *scriptRun) guestErr(err error) {
	if quickjs.IsOutOfMemory(err) {
		r.stop(r.memoryExit(nil))
	}
	panic(stopGuest{}) // the driver classifies the failed call
}

// str locates string argument i, or stops the run.
func (r *scriptRun) str(ctx context.Context, args []uint64, i int) *quickjs.StringRef {
	if i >= len(args) {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (missing argument)"})
	}
	return r.toString(ctx, args[i])
}

// toString converts v with the engine's ToString, which may run script
// code (a toString method, a getter). That code may end the run: a script
// that captured the prelude's settlement functions can report its result
// from inside it. The host operation in progress must then not act on
// what it read (replace the result, log, queue a call, fail the run): it
// abandons the guest instead, as the result's host call used to.
func (r *scriptRun) toString(ctx context.Context, v uint64) *quickjs.StringRef {
	ref, err := r.in.ToString(ctx, v)
	if err != nil {
		r.guestErr(err)
	}
	if r.finished {
		_ = ref.Release(ctx)
		panic(stopGuest{})
	}
	return ref
}

// copyStr copies up to n bytes of ref and releases it.
func (r *scriptRun) copyStr(ctx context.Context, ref *quickjs.StringRef, n int) []byte {
	b, err := ref.Bytes(n)
	if err == nil {
		err = ref.Release(ctx)
	}
	if err != nil {
		r.guestErr(err)
	}
	return b
}

func (r *scriptRun) newString(ctx context.Context, b []byte) uint64 {
	v, err := r.in.NewString(ctx, b)
	if err != nil {
		r.guestErr(err)
	}
	return v
}

// startCall handles CALL(args JSON, tool name[, stub, frames]): the two
// strings are read as one "<tool>\n<args JSON>" payload was, with the same
// limits and messages, and checked as wire.DecodeCall checks its halves
// (wire.CheckCall), without the guest joining them.
func (r *scriptRun) startCall(ctx context.Context, args []uint64) uint64 {
	limit := r.lim.MaxArgsBytes + wire.MaxToolNameBytes + 1
	if len(args) < 3 {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (missing argument)"})
	}
	name := r.strArg(ctx, args[2], limit)
	var argsJSON []byte
	if name != nil {
		argsJSON = r.strArg(ctx, args[1], limit-len(name)-1)
	}
	return r.queueCall(ctx, args, name, argsJSON)
}

// startCallValue handles CALL_VALUE(args, tool name, stub, frames): CALL
// with the arguments' JSON written by the host (quickjs.AppendJSON) when
// they are a plain value; else it returns undefined having done nothing,
// and the prelude sends CALL with JSON.stringify's. The JSON is at most
// MaxArgsBytes long (longer is declined, and CALL reports it), and meets
// the same limits as CALL's.
func (r *scriptRun) startCallValue(ctx context.Context, args []uint64) uint64 {
	if len(args) < 3 {
		r.stop(&ExitError{Kind: Trap, Message: "the guest broke the host protocol (missing argument)"})
	}
	if r.noCallValue {
		return r.in.Undefined()
	}
	buf, ok := r.in.AppendJSON(r.argsBuf[:0], args[1], r.lim.MaxArgsBytes)
	if cap(buf) <= maxArgsScratch {
		r.argsBuf = buf[:0]
	}
	if !ok {
		return r.in.Undefined()
	}
	limit := r.lim.MaxArgsBytes + wire.MaxToolNameBytes + 1
	name := r.strArg(ctx, args[2], limit)
	var argsJSON []byte
	if name != nil && len(buf) <= limit-len(name)-1 {
		argsJSON = append(make([]byte, 0, len(buf)), buf...)
	}
	return r.queueCall(ctx, args, name, argsJSON)
}

// maxArgsScratch bounds the buffer a run keeps for writing arguments.
const maxArgsScratch = 64 << 10

// queueCall checks a call's name and arguments JSON (nil: over the
// limit), queues it and returns its id, negated when the call site could
// not be read (CALL's answer).
func (r *scriptRun) queueCall(ctx context.Context, args []uint64, name, argsJSON []byte) uint64 {
	if argsJSON == nil {
		r.stop(&ExitError{Kind: LimitExceeded, Limit: LimitArgs,
			Message: fmt.Sprintf("a tool call's arguments exceed %d bytes (%s)", r.lim.MaxArgsBytes, r.lim.setting("max_args_bytes"))})
	}
	if err := wire.CheckCall(name, argsJSON); err != nil {
		r.stop(&ExitError{Kind: ScriptError, Message: "invalid tool call: " + err.Error()})
	}
	tool := string(name)
	if len(argsJSON) > r.lim.MaxArgsBytes {
		r.stop(&ExitError{Kind: LimitExceeded, Limit: LimitArgs,
			Message: fmt.Sprintf("tools.%s: arguments of %d bytes exceed %d (%s)", tool, len(argsJSON), r.lim.MaxArgsBytes, r.lim.setting("max_args_bytes"))})
	}
	if r.inFlight >= r.lim.MaxInFlight {
		r.stop(&ExitError{Kind: LimitExceeded, Limit: LimitInFlight,
			Message: fmt.Sprintf("more than %d tool calls in flight (%s)", r.lim.MaxInFlight, r.lim.setting("max_in_flight"))})
	}
	id := r.nextID
	r.nextID++
	r.inFlight++
	r.queued = append(r.queued, queuedCall{id: id, tool: tool, args: argsJSON})
	if len(args) < 5 {
		return quickjs.Int(id)
	}
	if n, ok := quickjs.DecodeInt(args[4]); ok && !r.callSites(ctx, id, args[3], n) {
		return quickjs.Int(-id) // the prelude captures the site itself
	} else if ok {
		r.queued[len(r.queued)-1].site = r.callSite(tool, r.sites[id])
	}
	return quickjs.Int(id)
}

// strArg returns the string v as UTF-8 (non-nil), read in place when it
// can be (no guest call); nil when it has more than max bytes (the guest's
// copy is then left to the run's end, which follows).
func (r *scriptRun) strArg(ctx context.Context, v uint64, max int) []byte {
	if max < 0 {
		return nil
	}
	b, ok := r.in.ReadString(v, max)
	if !ok || len(b) > max {
		ref := r.toString(ctx, v)
		if ref.Len() > max {
			return nil
		}
		b = r.copyStr(ctx, ref, ref.Len())
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// callSites reads, for call id, the call site of the tools.x stub the
// script called (the prelude passes it, and how many frames below it to
// keep: limitFrames in guest-sdk/js/prelude/05-errors.js) from the guest's
// stack, and keeps it for the call's failure. It reports false when it
// could not.
func (r *scriptRun) callSites(ctx context.Context, id int32, stub uint64, n int32) bool {
	if n < 0 || n > maxSiteFrames {
		return false
	}
	input, err := r.in.Atom(ctx, "<input>")
	if err != nil {
		r.guestErr(err)
	}
	name, err := r.in.Atom(ctx, "name")
	if err != nil {
		r.guestErr(err)
	}
	sites, ok := r.in.CallSites(stub, int(n), input, name, r.site[:0])
	r.site = sites[:0]
	if !ok {
		return false
	}
	if r.sites == nil {
		r.sites = map[int32][]quickjs.Site{}
	}
	r.sites[id] = slices.Clone(sites)
	return true
}

// maxSiteFrames bounds the frames of a call site the host reads: the
// prelude keeps at most Error.stackTraceLimit's default (10) less the
// prelude's frames above the script's (6).
const maxSiteFrames = 4

// maxSiteName bounds the name of a call site's function in a parked state,
// as quickjs.CallSites bounds it (in bytes, UTF-8: 3 for each of its 1024
// characters at most).
const maxSiteName = 3 << 10

// count counts a call handed to the Bridge; a pending call retried was
// counted when it was made.
func (r *scriptRun) count(q queuedCall) {
	if q.token == nil {
		r.stats.Calls++
	}
}

// call runs one Bridge call (or, for a pending call of a resumed run, one
// Retry) and checks its envelope. It runs on the call's own goroutine, or on
// the driving one, so the count of calls is the launcher's.
func (r *scriptRun) call(q queuedCall) callResult {
	id, tool := q.id, q.tool
	if q.token != nil {
		tool = "a pending call"
	}
	env, err := func() (env []byte, err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("bridge panicked: %v", v)
			}
		}()
		if q.token != nil {
			return r.retry(r.bctx, q.token)
		}
		if q.site.Line > 0 {
			return r.bridge(&siteCtx{Context: r.bctx, site: q.site}, tool, q.args)
		}
		return r.bridge(r.bctx, tool, q.args)
	}()
	var value []byte
	if err == nil {
		// A plain ok result (checked by OkValue) reaches the guest as its
		// value alone; any other envelope whole.
		var plain bool
		if value, plain = wire.OkValue(env); !plain {
			if cerr := wire.CheckEnvelope(env); cerr != nil {
				err = fmt.Errorf("bridge returned a bad envelope for %s: %w", tool, cerr)
			}
		}
		if err == nil && uint64(len(env)) > r.lim.MemoryBytes {
			err = errEnvelopeTooLarge
		}
	} else {
		err = fmt.Errorf("bridge failed on %s: %w", tool, err)
	}
	return callResult{id: id, env: env, value: value, err: err}
}

var errEnvelopeTooLarge = errors.New("envelope larger than the guest's memory limit")

// accept records one completion; a failed Bridge call ends the run.
func (r *scriptRun) accept(c callResult) {
	switch {
	case c.err == nil:
		if !c.stamped {
			c.at = r.clock.stamp()
		}
		// Keep r.ready in arrival order: goroutines may deliver out of it.
		i := len(r.ready)
		for i > 0 && r.ready[i-1].at > c.at {
			i--
		}
		r.ready = slices.Insert(r.ready, i, readyCall{c: wire.Completion{ID: c.id, Envelope: c.env, Value: c.value}, at: c.at})
	case errors.As(c.err, new(*Pending)):
		var p *Pending
		errors.As(c.err, &p)
		if !r.park {
			r.finished = true
			r.exit = &ExitError{Kind: HostError, Message: "sandbox internal error; the chain was stopped",
				Err: errors.New("sandbox: the bridge answered a call with Pending in a run that cannot park")}
			return
		}
		r.pending = append(r.pending, PendingCall{ID: c.id, Token: bytes.Clone(p.Token)})
	case errors.Is(c.err, errEnvelopeTooLarge):
		r.finished = true
		r.exit = &ExitError{Kind: LimitExceeded, Limit: LimitMemory,
			Message: fmt.Sprintf("a tool result of %d bytes does not fit in the memory limit of %s (%s)", len(c.env), mib(r.lim.MemoryBytes), r.lim.setting("memory"))}
	default:
		r.finished = true
		r.exit = &ExitError{Kind: HostError, Message: c.err.Error(), Err: c.err}
	}
}

// timer handles OpTimer (due): due is the guest's earliest timer now, in
// milliseconds since the run began as a decimal string, or -1 for none;
// -2 only reads the clock. It returns the timers' clock, in milliseconds
// since the run began, as a decimal string.
func (r *scriptRun) timer(ctx context.Context, args []uint64) uint64 {
	if len(args) > 1 {
		if n, ok := quickjs.DecodeInt(args[1]); ok {
			if n == -1 {
				r.wake = -1
			}
		} else if due, err := strconv.ParseFloat(string(r.copyStr(ctx, r.str(ctx, args, 1), 32)), 64); err == nil && due >= 0 && !math.IsInf(due, 0) {
			r.wake = due
		}
	}
	r.batch = strconv.AppendFloat(r.batch[:0], r.clock.elapsed(), 'f', -1, 64)
	return r.newString(ctx, r.batch)
}

func (r *scriptRun) log(ctx context.Context, args []uint64) {
	level := LogInfo
	if len(args) > 1 {
		if n, ok := quickjs.DecodeInt(args[1]); ok && n >= 0 && n < 4 {
			level = [...]LogLevel{LogDebug, LogInfo, LogWarn, LogError}[n]
		}
	}
	if len(r.logs) >= r.lim.MaxLogEntries {
		r.truncated = true
		r.stop(&ExitError{Kind: LimitExceeded, Limit: LimitLogs,
			Message: fmt.Sprintf("console output exceeds %d entries (%s)", r.lim.MaxLogEntries, r.lim.setting("max_log_entries"))})
	}
	ref := r.str(ctx, args, 2)
	// Each entry costs LogEntryOverhead on top of its text; the copy is
	// capped at what the budget has left.
	budget := r.lim.MaxLogBytes - r.logBytes - LogEntryOverhead
	over := ref.Len() > budget
	if budget >= 0 {
		text := r.copyStr(ctx, ref, budget)
		r.logs = append(r.logs, LogEntry{Level: level, Text: sanitize(text)})
		r.logBytes += len(text) + LogEntryOverhead
	}
	if over {
		r.truncated = true
		r.stop(&ExitError{Kind: LimitExceeded, Limit: LimitLogs,
			Message: fmt.Sprintf("console output exceeds %d bytes (%s)", r.lim.MaxLogBytes, r.lim.setting("max_log_bytes"))})
	}
}

func (r *scriptRun) done(ctx context.Context, args []uint64) {
	var b []byte
	if len(args) > 1 {
		// Read in place when it can be (no guest call, so no second call
		// stack): what ToString would give, as strArg does.
		if v, ok := r.in.ReadString(args[1], r.lim.MaxResultBytes); ok && len(v) <= r.lim.MaxResultBytes {
			b = v
		}
	}
	if b == nil {
		ref := r.str(ctx, args, 1)
		if ref.Len() > r.lim.MaxResultBytes {
			r.stop(&ExitError{Kind: LimitExceeded, Limit: LimitResult,
				Message: fmt.Sprintf("the result's JSON is %d bytes, more than %d (%s)", ref.Len(), r.lim.MaxResultBytes, r.lim.setting("max_result_bytes"))})
		}
		b = r.copyStr(ctx, ref, ref.Len())
	}
	// The engine's JSON.stringify escapes lone surrogates; a string it did
	// not make (a replaced JSON.stringify) may hold one raw, which the
	// engine converts to WTF-8: not UTF-8, so not JSON either.
	if !json.Valid(b) || !utf8.Valid(b) {
		r.stop(&ExitError{Kind: ScriptError, Message: "the script's result is not valid JSON"})
	}
	r.value = b
	// The run is over, but the guest is not unwound with a panic: it
	// returns from this call, and the job it runs, and no other job runs
	// (quickjs.Instance.Finish).
	r.finished = true
	r.in.Finish()
}

// maxFailureBytes bounds the error report copied from the guest.
const maxFailureBytes = 64 << 10

func (r *scriptRun) fail(ctx context.Context, args []uint64) {
	ref := r.str(ctx, args, 1)
	f := wire.DecodeFailure(r.copyStr(ctx, ref, maxFailureBytes))
	r.stop(r.failure(f))
}

// where answers OpWhere: the script's language and file name, or a
// position in the guest's JavaScript mapped to the TypeScript source.
func (r *scriptRun) where(args []uint64) []byte {
	if len(args) < 3 {
		return []byte(r.prep.lang.String() + "\n" + r.prep.filename)
	}
	line, ok1 := quickjs.DecodeInt(args[1])
	col, ok2 := quickjs.DecodeInt(args[2])
	if !ok1 || !ok2 {
		return nil
	}
	l, c, ok := r.prep.mapTS(int(line), int(col))
	if !ok {
		return nil
	}
	return []byte(strconv.Itoa(l) + ":" + strconv.Itoa(c))
}

// seed draws this run's Math.random seed from src, or from crypto/rand when
// src is nil. An all-zero seed is replaced: the generator needs one bit.
func (r *scriptRun) seed(src io.Reader) error {
	if src == nil {
		src = rand.Reader
	}
	var b [16]byte
	if _, err := io.ReadFull(src, b[:]); err != nil {
		return err
	}
	for i := range r.rngSeed {
		r.rngSeed[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	if r.rngSeed == [4]uint32{} {
		r.rngSeed[0] = 1
	}
	return nil
}

// failure turns the prelude's error report into an ExitError.
func (r *scriptRun) failure(f wire.Failure) *ExitError {
	// QuickJS throws null instead of its InternalError when it runs out of
	// memory building that error, and some allocation failures leave an
	// exception without a value; the engine's out-of-memory flag, or a
	// linear memory grown to the limit, tells those from a script's own
	// `throw null`.
	if f.Name == "InternalError" && f.Message == "out of memory" ||
		!f.Error && (r.in.OutOfMemory() || r.in.MemoryBytes() >= r.lim.MemoryBytes) {
		return r.memoryExit(nil)
	}
	if f.Compile && f.Name == "SyntaxError" {
		if line, col, ok := staticImport(r.prep.source); ok {
			return &ExitError{Kind: ScriptError, Message: "SyntaxError: " + quickjs.DenyMessage, Line: line, Column: col}
		}
	}
	msg := f.Message
	if f.Error && f.Name != "" {
		msg = f.Name + ": " + f.Message
	}
	xe := &ExitError{Kind: ScriptError, Message: msg}
	if f.Line > 0 && f.Line <= r.prep.lines && f.Column > 0 {
		xe.Line, xe.Column = f.Line, f.Column
	}
	if f.Compile && f.Name == "SyntaxError" && r.prep.lang == LangJS {
		// QuickJS places some syntax errors at the start of the statement;
		// esbuild's parser gives the exact token when it agrees, and its
		// words, so a script reads the same error from Check (airlock
		// check, the server's submission check) and from a run.
		var pe *ExitError
		if errors.As(check(context.Background(), Script{Source: r.prep.source, Lang: LangJS, Tenant: r.prep.tenant}, r.prep.parse), &pe) {
			xe.Line, xe.Column, xe.Message = pe.Line, pe.Column, pe.Message
		}
	}
	return xe
}

// loopException handles an exception escaping the prelude's entry points,
// which in practice means the guest ran out of memory inside them.
func (r *scriptRun) loopException(text string) *ExitError {
	if strings.Contains(text, "out of memory") || r.in.OutOfMemory() {
		return r.memoryExit(nil)
	}
	return &ExitError{Kind: ScriptError, Message: "uncaught exception in the event loop: " + text}
}

// classify explains a failed guest call that no host call accounted for.
func (r *scriptRun) classify(ctx context.Context, err error) *ExitError {
	if ctx.Err() != nil || r.in.Interrupted() {
		return ctxExit(ctx)
	}
	// wazero's own call-depth limit ("stack overflow") catches a recursion
	// that does not move the C stack pointer.
	if r.in.StackOverflowed() || strings.Contains(err.Error(), "wasm error: stack overflow") {
		return &ExitError{Kind: LimitExceeded, Limit: LimitStack,
			Message: "the script's recursion exhausted its stack (" + r.lim.setting("max_stack_bytes") + ")", Err: err}
	}
	if quickjs.IsOutOfMemory(err) || r.in.MemoryBytes()+quickjs.PageSize > r.lim.MemoryBytes+memoryHeadroom {
		return r.memoryExit(err)
	}
	msg := err.Error()
	if i := strings.Index(msg, "wasm error: "); i >= 0 {
		msg = msg[i+len("wasm error: "):]
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return &ExitError{Kind: Trap, Message: "wasm trap: " + msg, Err: err}
}

// staticImport locates the first static import declaration in src that
// imports a value (not `import type …` or `import {type A} …`, which
// TypeScript drops), which QuickJS rejects as a syntax error in a script:
// the engine has no modules to import (RATIONALE.md, "Why is the engine
// sealed against imports?").
func staticImport(src string) (line, col int, ok bool) {
	for _, loc := range importDecl.FindAllStringIndex(src, -1) {
		stmt := src[loc[0]:]
		if typeOnlyImport(stmt) {
			continue
		}
		off := loc[0] + strings.Index(stmt, "import")
		line, col = position(src, off)
		return line, col, true
	}
	return 0, 0, false
}

// memoryExit is the exit of a run that reached its memory limit.
func (r *scriptRun) memoryExit(err error) *ExitError {
	return &ExitError{Kind: LimitExceeded, Limit: LimitMemory,
		Message: fmt.Sprintf("memory limit of %s reached (%s)", mib(r.lim.MemoryBytes), r.lim.setting("memory")), Err: err}
}

// mib formats n bytes in MiB: "64 MiB", "0.5 MiB".
func mib(n uint64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MiB"
}

// ctxExit reports why ctx ended: a time limit names its setting.
func ctxExit(ctx context.Context) *ExitError {
	if errors.Is(context.Cause(ctx), errEngineClosed) {
		return &ExitError{Kind: Cancelled, Message: "the engine was closed", Err: context.Canceled}
	}
	var tl *timeLimit
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.As(context.Cause(ctx), &tl) {
		return &ExitError{Kind: Timeout, Message: tl.Error(), Err: context.DeadlineExceeded}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &ExitError{Kind: Timeout, Message: "the run's deadline passed", Err: context.DeadlineExceeded}
	}
	return &ExitError{Kind: Cancelled, Message: "the run was cancelled", Err: context.Canceled}
}
