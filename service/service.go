package service

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/metrics"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// Defaults of Options.
const (
	DefaultMaxRequestBytes     = 1 << 20
	DefaultMaxConcurrentChains = 64
	DefaultResultTTL           = 15 * time.Minute
	DefaultMaxResults          = 1000
	DefaultMaxResultsBytes     = 256 << 20
	DefaultParkTTL             = durable.DefaultParkTTL
	DefaultMaxWakes            = 100
	DefaultMaxParkBytes        = 1 << 30
	DefaultMaxParkedPerTenant  = 100
	DefaultMaxStreamsPerTenant = 64
)

// Options configure New. The zero value works: no keys (every caller is
// LocalCaller), no fleet, the default limits, a queue and a metrics
// registry of the service's own.
type Options struct {
	// ToolSets name groups of tools a submission may select with "tools",
	// e.g. {"demo": [...], "http": [...]}. Nil: tools are selected by name
	// only.
	ToolSets map[string][]string
	// Limits are the sandbox limits before a submission's own. Zero fields
	// take sandbox's defaults. The policy before a submission's own is the
	// runner's invoker's.
	Limits sandbox.Limits
	// MaxPolicy and MaxLimits are the most a submission may ask for (above
	// it: ReasonAboveLimit). A zero field means the service's own value, so
	// by default a submission may only lower a setting, never raise it.
	MaxPolicy invoker.Policy
	MaxLimits sandbox.Limits
	// Guest is the clock and randomness scripts see unless a submission
	// chooses its own; the zero value is the real clock and fresh
	// randomness.
	Guest sandbox.Guest
	// Queue holds the approval requests of live chains; it should be the
	// runner's invoker's approver when people decide. Nil: an empty queue
	// of the service's own.
	Queue *approval.Queue
	// Keys resolves an API key to its caller (tenant, role, profile). Nil:
	// no keys; every caller is LocalCaller.
	Keys func(key string) (Caller, bool)
	// Profiles are the configured profiles by name, for resuming a parked
	// chain under the profile it was submitted with; DefaultProfile is the
	// profile of LocalCaller. Nil: resumed chains run under the zero profile
	// (only when no profiles are configured).
	Profiles       map[string]*Profile
	DefaultProfile *Profile
	// Registerer receives the chain metrics. Nil: a registry of the
	// service's own.
	Registerer prometheus.Registerer
	// Tracer records a span per chain (the invoker's hooks record the tool
	// calls). Nil: no chain spans.
	Tracer *tracing.Tracer
	// MaxRequestBytes caps a submission's script and input together (and
	// the HTTP face's request bodies). Default 1 MiB.
	MaxRequestBytes int64
	// MaxConcurrentChains caps the chains running at once; more are refused
	// with ReasonTooManyChains. Default 64.
	MaxConcurrentChains int
	// ResultTTL is how long a finished chain stays readable. Default 15m.
	ResultTTL time.Duration
	// MaxResults caps the finished chains kept; the oldest go first.
	// Default 1000.
	MaxResults int
	// MaxResultsBytes caps the bytes the finished chains kept hold (their
	// results, logs, traces and event histories, as encoded); the oldest go
	// first. Default 256 MiB.
	MaxResultsBytes int64
	// Logger receives the service's log lines. Nil discards them.
	Logger *slog.Logger
	// Clock is the service's time: the leases, expiries and timestamps it
	// writes to the fleet and the ones it judges, and its own records'.
	// Nil is time.Now. Give the fleet's durable.Store the same one.
	Clock func() time.Time
	// Fleet, when set, is the store several processes share: every chain
	// has a record there that any of them serves, a running chain's lease
	// is renewed (Start), and a chain whose process stopped renewing it is
	// marked interrupted by another (docs/durability.md).
	Fleet *durable.Store
	// Park makes a call that needs approval park its chain in Fleet
	// instead of waiting for the decision (approval.mode park): the chain
	// ends its stretch with status parked, and a decision taken through any
	// process resumes it there. Requires Fleet.
	Park bool
	// ParkTTL is how long a parked chain waits for its decisions; past it,
	// its waiting calls end approval_expired and it runs on. It must not
	// be longer than Fleet's (durable.Options.ParkTTL), which sets how
	// long the records that keep a call from running twice stay locked.
	// Default: Fleet's, or DefaultParkTTL (24h) without a Fleet.
	ParkTTL time.Duration
	// MaxWakes caps how many times a parked chain is resumed (by a decision
	// or by its script's timer falling due); a chain resumed that many
	// times that would park again ends limit_exceeded, ReasonWakes. Default
	// 100 (docs/limits.md).
	MaxWakes int
	// MaxParkBytes caps the state bytes one chain's parks write to the
	// store in all, each park counting its state's size; a park past it
	// ends the chain limit_exceeded, ReasonParkBytes. Default 1 GiB.
	MaxParkBytes int64
	// MaxParkedPerTenant caps the chains of one tenant parked in the fleet
	// at once; a chain that would park past it ends limit_exceeded,
	// ReasonParkedChains (a chain parking again keeps its place). Counted
	// from the fleet's index when the chain parks, so processes parking
	// at the same instant may each take the last place. Default 100.
	MaxParkedPerTenant int
	// MaxStreamsPerTenant caps the event streams (Follow) one tenant has
	// open on this process; more are refused with ErrTooManyStreams.
	// Default 64.
	MaxStreamsPerTenant int
	// MaxPendingCallsPerTenant caps the calls of caller tools one tenant
	// has waiting for their answers in this process at once; a call past
	// it fails tool_unavailable without being handed out. Default 256.
	MaxPendingCallsPerTenant int
	// MaxCallerResultBytes caps an answer's result; a larger one is
	// refused (ErrResultTooLarge) and the call waits on. Default and, in a
	// fleet, ceiling: 512 KiB (durable.MaxAnswerBytes).
	MaxCallerResultBytes int
}

// Service runs chains and keeps them: submissions, their events, approvals
// and decisions, cancellation, and in a fleet the upkeep of the shared
// store. Build it with New; Start runs the background upkeep; Close drains
// it.
type Service struct {
	opts    Options
	log     *slog.Logger
	box     *toolbox.Toolbox
	policy  invoker.Policy // the runner's, defaults filled in
	runner  *chain.Runner
	engines chain.Engines
	queue   *approval.Queue
	metrics *metrics.Chains
	tracer  *tracing.Tracer
	slots   chan struct{}
	unsub   func()
	baseCtx context.Context
	stopAll context.CancelCauseFunc
	live    sync.Map // chain id → *run, while running
	// draining is set by Close: no new chains.
	draining atomic.Bool
	// started is set by Start: the service does the fleet's upkeep and
	// resumes decided chains in the background.
	started     atomic.Bool
	stopUpkeep  context.CancelFunc
	upkeepEnded chan struct{}
	// verified holds the parked index entries (tenant/id/gen) whose
	// record the reaper has read and found parked on that generation;
	// only the reaper's goroutine uses it, and each pass keeps only the
	// entries it listed.
	verified map[string]bool

	// cmu guards charges: the parked states this process charged to
	// their tenants' artifact quotas, by parkCharge key.
	cmu     sync.Mutex
	charges map[string]parkCharged
	// pendingCalls counts, under cmu, each tenant's calls of caller tools
	// waiting here (MaxPendingCallsPerTenant).
	pendingCalls map[string]int

	// wmu guards watches (the shared polls of chains streamed from the
	// store, by tenant/id) and streams (open streams by tenant).
	wmu     sync.Mutex
	watches map[string]*watch
	streams map[string]int

	mu       sync.Mutex
	runs     map[string]*run // running and retained
	finished []*run          // retained, oldest first
	retained int64           // the finished runs' sizes
	running  sync.WaitGroup
}

// now reads the service's clock (Options.Clock).
func (s *Service) now() time.Time { return s.opts.Clock() }

// New builds a Service that runs chains on runner, which must have a
// script engine. It starts nothing: no goroutine runs until Start, and
// until then the service runs what it is asked to (Submit, Resume) and no
// upkeep.
func New(runner *chain.Runner, opts Options) (*Service, error) {
	if runner == nil {
		return nil, ErrNoRunner
	}
	engines := runner.Engines()
	if engines.Scripts == nil {
		return nil, ErrNoEngine
	}
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("service: %w", err)
	}
	policy := runner.Invoker().Policy()
	if err := policy.CheckCeiling(opts.MaxPolicy); err != nil {
		return nil, fmt.Errorf("service: MaxPolicy: %w", err)
	}
	if err := opts.Limits.CheckCeiling(opts.MaxLimits); err != nil {
		return nil, fmt.Errorf("service: MaxLimits: %w", err)
	}
	opts.MaxRequestBytes = cmp.Or(opts.MaxRequestBytes, DefaultMaxRequestBytes)
	opts.MaxConcurrentChains = cmp.Or(opts.MaxConcurrentChains, DefaultMaxConcurrentChains)
	opts.ResultTTL = cmp.Or(opts.ResultTTL, DefaultResultTTL)
	opts.MaxResults = cmp.Or(opts.MaxResults, DefaultMaxResults)
	opts.MaxResultsBytes = cmp.Or(opts.MaxResultsBytes, DefaultMaxResultsBytes)
	if opts.Fleet != nil {
		if opts.ParkTTL > opts.Fleet.ParkTTL() {
			return nil, fmt.Errorf("service: ParkTTL (%s) must not be longer than the fleet's durable.Options.ParkTTL (%s), which decides how long the records that keep an approved call from running twice stay locked", opts.ParkTTL, opts.Fleet.ParkTTL())
		}
		opts.ParkTTL = cmp.Or(opts.ParkTTL, opts.Fleet.ParkTTL())
	}
	opts.ParkTTL = cmp.Or(opts.ParkTTL, DefaultParkTTL)
	opts.MaxWakes = cmp.Or(opts.MaxWakes, DefaultMaxWakes)
	opts.MaxParkBytes = cmp.Or(opts.MaxParkBytes, DefaultMaxParkBytes)
	opts.MaxParkedPerTenant = cmp.Or(opts.MaxParkedPerTenant, DefaultMaxParkedPerTenant)
	opts.MaxStreamsPerTenant = cmp.Or(opts.MaxStreamsPerTenant, DefaultMaxStreamsPerTenant)
	if opts.MaxWakes < 0 || opts.MaxParkBytes < 0 || opts.MaxParkedPerTenant < 0 || opts.MaxStreamsPerTenant < 0 {
		return nil, fmt.Errorf("service: MaxWakes, MaxParkBytes, MaxParkedPerTenant and MaxStreamsPerTenant must not be negative")
	}
	opts.MaxPendingCallsPerTenant = cmp.Or(opts.MaxPendingCallsPerTenant, DefaultMaxPendingCalls)
	opts.MaxCallerResultBytes = cmp.Or(opts.MaxCallerResultBytes, DefaultMaxCallerResultBytes)
	if opts.MaxPendingCallsPerTenant < 0 || opts.MaxCallerResultBytes < 0 {
		return nil, fmt.Errorf("service: MaxPendingCallsPerTenant and MaxCallerResultBytes must not be negative")
	}
	if opts.Fleet != nil && opts.MaxCallerResultBytes > durable.MaxAnswerBytes {
		return nil, fmt.Errorf("service: MaxCallerResultBytes (%d) is above %d, the most a fleet's store keeps of an answer", opts.MaxCallerResultBytes, durable.MaxAnswerBytes)
	}
	if opts.Park && opts.Fleet == nil {
		return nil, ErrParkNeedsFleet
	}
	s := &Service{
		opts:         opts,
		log:          opts.Logger,
		box:          runner.Invoker().Toolbox(),
		policy:       policy,
		runner:       runner,
		engines:      engines,
		queue:        opts.Queue,
		tracer:       opts.Tracer,
		slots:        make(chan struct{}, opts.MaxConcurrentChains),
		runs:         map[string]*run{},
		watches:      map[string]*watch{},
		streams:      map[string]int{},
		charges:      map[string]parkCharged{},
		pendingCalls: map[string]int{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.opts.Clock == nil {
		s.opts.Clock = time.Now
	}
	if opts.Park {
		// The parked states this process charged, and another resumed.
		runner.Invoker().SetTenantQuotaReclaimer(s.reclaimCharges)
	}
	if s.queue == nil {
		s.queue = approval.NewQueue(approval.Options{})
	}
	if s.tracer == nil {
		s.tracer = tracing.New(nil, "")
	}
	reg := opts.Registerer
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	var err error
	if s.metrics, err = metrics.NewChains(reg); err != nil {
		return nil, fmt.Errorf("service: registering metrics: %w", err)
	}
	s.unsub = sync.OnceFunc(s.queue.Subscribe(s.approvalEvent))
	s.baseCtx, s.stopAll = context.WithCancelCause(context.Background())
	return s, nil
}

// Start runs the service's background upkeep until ctx ends or Close is
// called: in a fleet, renewing the leases of the chains running here,
// reaping the store (lapsed leases become interrupted chains; decided,
// woken or expired parks resume), and resuming a parked chain in the
// background when a decision is taken here. Without a fleet there is no
// upkeep. Start returns at once; call it at most once.
func (s *Service) Start(ctx context.Context) {
	if !s.started.CompareAndSwap(false, true) {
		return
	}
	if s.opts.Fleet == nil {
		return
	}
	uctx, stop := context.WithCancel(s.baseCtx)
	s.stopUpkeep = stop
	s.upkeepEnded = make(chan struct{})
	stopWith := context.AfterFunc(ctx, stop)
	go func() {
		defer close(s.upkeepEnded)
		defer stopWith()
		s.maintain(uctx)
	}()
}

// Close stops taking chains (Submit answers ReasonShuttingDown), waits for
// the running ones until ctx ends, then cancels those still running and
// waits for them to end (their sessions closed, pins released); it stops
// the upkeep and releases the service's subscription to the approval
// queue. It returns nil if every chain finished on its own, and an error
// saying how many were cancelled otherwise. Reads (Chain, Follow,
// Approvals) keep working.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	s.draining.Store(true)
	s.mu.Unlock()
	defer s.unsub()
	defer func() {
		if s.stopUpkeep != nil {
			s.stopUpkeep()
			<-s.upkeepEnded
		}
	}()
	done := make(chan struct{})
	go func() { s.running.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	n := 0
	s.live.Range(func(any, any) bool { n++; return true })
	s.log.Warn("grace period over: cancelling running chains", "chains", n)
	s.stopAll(errShuttingDown)
	<-done
	return fmt.Errorf("service: shutdown cancelled %d running chain(s)", n)
}

// Draining reports whether Close was called: the service takes no new
// chains.
func (s *Service) Draining() bool { return s.draining.Load() }

// MaxRequestBytes is Options.MaxRequestBytes with its default.
func (s *Service) MaxRequestBytes() int64 { return s.opts.MaxRequestBytes }

// Fleet returns the fleet's store (Options.Fleet), or nil.
func (s *Service) Fleet() *durable.Store { return s.opts.Fleet }

// Toolbox returns the toolbox the chains call.
func (s *Service) Toolbox() *toolbox.Toolbox { return s.box }

// Queue returns the approval queue of live chains.
func (s *Service) Queue() *approval.Queue { return s.queue }
