package service

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/setting"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// Languages of SubmitRequest.Language, as ChainView reports them.
const (
	LangJavaScript = "javascript"
	LangTypeScript = "typescript"
	LangWasm       = "wasm"
)

// SubmitRequest is a chain to run: the body of POST /v1/chains and the
// arguments of MCP's run_chain.
type SubmitRequest struct {
	// Script is the chain: JavaScript or TypeScript source, or for language
	// wasm the module's bytes in standard base64. Required.
	Script string `json:"script"`
	// Language is javascript (js, the default), typescript (ts) or wasm.
	Language string `json:"language,omitempty"`
	// Tenant, when set, must be the API key's tenant.
	Tenant string `json:"tenant,omitempty"`
	// Tools restricts the chain to these tools; each entry is a tool name or
	// a tool set ("demo", "http"). Default: every configured tool.
	Tools []string `json:"tools,omitempty"`
	// Policy sets the chain's own policy, by the keys of
	// invoker.PolicySettings (e.g. "max_tool_calls": 10, "call_timeout":
	// "5s"), within the operator's ceiling.
	Policy map[string]json.RawMessage `json:"policy,omitempty"`
	// Limits sets the chain's own sandbox limits, by the keys of
	// sandbox.LimitSettings (e.g. "memory": "32MiB"), within the operator's
	// ceiling.
	Limits map[string]json.RawMessage `json:"limits,omitempty"`
	// Guest chooses the script's clock and randomness, by the keys of
	// sandbox.GuestKeys: "clock" ("real" or "virtual") and "seed" (a whole
	// number that fixes Math.random and crypto). Default: the server's.
	Guest map[string]json.RawMessage `json:"guest,omitempty"`
	// Input is the input document of a wasm module; refused for scripts.
	Input json.RawMessage `json:"input,omitempty"`
	// CallerTools are tools the submitter runs: the chain calls them like
	// any tool, and each call waits for the submitter's answer
	// (AnswerCall). At most MaxCallerTools.
	CallerTools []CallerTool `json:"caller_tools,omitempty"`
	// Identity is the delegated identity the chain acts for: tools that
	// declare an audience exchange its subject token for one of their
	// own. Nil: the chain acts for its tenant alone, and such tools refuse
	// its calls with credential_unavailable.
	Identity *SubmitIdentity `json:"identity,omitempty"`
}

// settings reads a request's "policy" or "limits" object into an owner: each
// value is a JSON number or string, written as the setting's kind, and must
// be positive (leave a key out to keep the server's value).
func settings(section string, raw map[string]json.RawMessage, set func(key, text string) error) *SubmitError {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var text string
		var n json.Number
		if err := json.Unmarshal(raw[k], &text); err != nil {
			if err := json.Unmarshal(raw[k], &n); err != nil {
				return refuse(ReasonInvalidRequest, "%s.%s must be a number or a string such as \"30s\" or \"64MiB\"", section, clip(k))
			}
			text = n.String()
		}
		if strings.TrimSpace(text) == "0" {
			return refuse(ReasonInvalidRequest, "%s.%s must be greater than zero; leave it out to keep the server's value", section, clip(k))
		}
		if err := set(k, text); err != nil {
			if errors.Is(err, setting.ErrUnknownKey) {
				return refuse(ReasonUnknownField, "%s.%s is not a setting: %v", section, clip(k), err)
			}
			return refuse(ReasonInvalidRequest, "%s.%s: %v", section, clip(k), err)
		}
	}
	return nil
}

// job is a validated submission, ready to run.
type job struct {
	lang   string
	script sandbox.Script
	// program is the script compiled by build, run by runJob: it is
	// parsed (and transpiled) once.
	program *sandbox.Program
	wasm    []byte // the module's bytes until build compiles them
	module  *sandbox.Module
	input   []byte
	tools   []string // the allow-list, nil for every tool
	// callers are the caller tools, callerBox them in a toolbox of their
	// own (for their output schemas).
	callers   []toolbox.Tool
	callerBox *toolbox.Toolbox
	policy    invoker.Policy
	gov       *govern.Profile
	limits    sandbox.Limits
	// identity is the chain's delegated identity, in memory only.
	identity *toolbox.Identity
}

// prepare validates req for tenant. It does no expensive work: build
// compiles the guest once the submission holds a slot.
func (s *Service) prepare(tenant string, req *SubmitRequest, prof *Profile) (*job, *SubmitError) {
	j := &job{}
	if prof != nil {
		j.gov = prof.Governance
	}
	switch strings.ToLower(req.Language) {
	case "", "javascript", "js":
		j.lang = LangJavaScript
	case "typescript", "ts":
		j.lang = LangTypeScript
	case "wasm":
		if s.engines.Modules == nil {
			return nil, refuse(ReasonInvalidLanguage, "this server does not run wasm modules; submit javascript or typescript")
		}
		j.lang = LangWasm
	default:
		return nil, refuse(ReasonInvalidLanguage, "language %q is not javascript, typescript or wasm", req.Language)
	}
	if strings.TrimSpace(req.Script) == "" {
		return nil, refuse(ReasonInvalidRequest, "script is required: the chain's source (or, for wasm, the module in base64)")
	}
	if req.Tenant != "" && req.Tenant != tenant {
		return nil, refuse(ReasonTenantMismatch, "tenant %q is not the tenant of this API key; leave tenant out or send the key's own", clip(req.Tenant))
	}
	if len(req.Input) > 0 && j.lang != LangWasm {
		return nil, refuse(ReasonInvalidRequest, "input is only for wasm modules; a script receives no input document (put the data in the script)")
	}
	j.input = req.Input

	// Tools: an allow-list on the chain's session, served by the shared
	// invoker.
	if req.Tools != nil {
		tools, rerr := s.subset(req.Tools)
		if rerr != nil {
			return nil, rerr
		}
		j.tools = tools
	}
	if prof != nil && prof.Tools != nil {
		if j.tools == nil {
			j.tools = slices.Clone(prof.Tools)
		} else {
			j.tools = slices.DeleteFunc(j.tools, func(t string) bool { return !slices.Contains(prof.Tools, t) })
		}
	}

	var rerr *SubmitError
	if j.callers, j.callerBox, rerr = s.callerTools(req.CallerTools); rerr != nil {
		return nil, rerr
	}
	if j.identity, rerr = identity(req.Identity); rerr != nil {
		return nil, rerr
	}

	// Policy and limits: the request's own, through their owners.
	var reqPolicy invoker.Policy
	if rerr := settings("policy", req.Policy, reqPolicy.Set); rerr != nil {
		return nil, rerr
	}
	var reqLimits sandbox.Limits
	if rerr := settings("limits", req.Limits, reqLimits.Set); rerr != nil {
		return nil, rerr
	}
	var err error
	// Under a profile a request may only lower the policy: the server's
	// ceiling (server.max) would let it lift what the profile relies on,
	// such as max_risk_unapproved.
	base, ceiling := s.policy, s.opts.MaxPolicy
	if prof != nil {
		ceiling = invoker.Policy{}
		if prof.Policy != nil {
			base = *prof.Policy
		}
	}
	if j.policy, err = base.Tighten(reqPolicy, ceiling); err != nil {
		return nil, s.settingError(err)
	}
	if j.limits, err = s.opts.Limits.Tighten(reqLimits, s.opts.MaxLimits); err != nil {
		return nil, s.settingError(err)
	}

	// The guest, decoded here, compiled or checked by build.
	if j.lang == LangWasm {
		wasm, err := base64.StdEncoding.DecodeString(strings.TrimSpace(req.Script))
		if err != nil {
			return nil, refuse(ReasonInvalidModule, "for language wasm, script must be the module in standard base64: %v", err)
		}
		j.wasm = wasm
		return j, nil
	}
	var reqGuest sandbox.Guest
	if rerr := settings("guest", req.Guest, reqGuest.Set); rerr != nil {
		return nil, rerr
	}
	j.script = sandbox.Script{Source: req.Script, Lang: sandbox.LangJS, Filename: "chain.js", Guest: reqGuest.Or(s.opts.Guest), Tenant: tenant}
	if j.lang == LangTypeScript {
		j.script.Lang, j.script.Filename = sandbox.LangTS, "chain.ts"
	}
	return j, nil
}

// build compiles j's module or checks j's script. It runs while the
// submission holds a concurrency slot, so compilations are bounded like
// chains. ctx bounds the compilation.
func (s *Service) build(ctx context.Context, j *job) *SubmitError {
	if j.lang == LangWasm {
		var err error
		if j.module, err = s.engines.Modules.Compile(ctx, j.wasm); err != nil {
			if errors.Is(err, sandbox.ErrInvalidModule) {
				return refuse(ReasonInvalidModule, "%s", strings.TrimPrefix(err.Error(), "sandbox: "))
			}
			s.log.Error("compiling a module failed", "err", err)
			return refuse(ReasonInternal, "compiling the module failed")
		}
		j.wasm = nil
		return nil
	}
	var err error
	if j.program, err = s.runner.Compile(ctx, j.script); err != nil {
		var exit *sandbox.ExitError
		if errors.As(err, &exit) {
			return &SubmitError{Reason: ReasonInvalidScript, Message: exit.Message, Line: exit.Line, Column: exit.Column}
		}
		return refuse(ReasonInvalidScript, "%s", strings.TrimPrefix(err.Error(), "sandbox: "))
	}
	return nil
}

// settingError maps a refused policy or limit to its answer: above the
// ceiling, or invalid.
func (s *Service) settingError(err error) *SubmitError {
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "chain policy: "), "sandbox: invalid limits: ")
	if strings.Contains(msg, " is above ") {
		hint := "; ask for less"
		if strings.Contains(msg, "operator's limit") {
			hint = "; ask the operator to raise server.max, or ask for less"
		}
		return refuse(ReasonAboveLimit, "%s%s", msg, hint)
	}
	return refuse(ReasonInvalidPolicy, "%s", msg)
}

// subset returns the names of the tools and tool sets named, which must
// all exist.
func (s *Service) subset(names []string) ([]string, *SubmitError) {
	picked := []string{}
	var unknown []string
	for _, n := range names {
		switch set, isSet := s.opts.ToolSets[n]; {
		case isSet:
			picked = append(picked, set...)
		case s.box.Has(n):
			picked = append(picked, n)
		default:
			unknown = append(unknown, strconv.Quote(n))
		}
	}
	if len(unknown) > 0 {
		sets := make([]string, 0, len(s.opts.ToolSets))
		for k := range s.opts.ToolSets {
			sets = append(sets, k)
		}
		slices.Sort(sets)
		return nil, refuse(ReasonUnknownTools, "no tool or tool set named %s (tool sets: %v; tools: GET /v1/tools)",
			strings.Join(unknown, ", "), sets)
	}
	slices.Sort(picked)
	return slices.Compact(picked), nil
}

// SubmitOptions are how Submit runs a chain.
type SubmitOptions struct {
	// Detach returns as soon as the chain started, with its running view;
	// the chain runs on past Submit's context (which then bounds only the
	// validation and compilation). Default: Submit waits for the chain's
	// end, and its context ending cancels the chain.
	Detach bool
	// Watch, when set, receives the chain's events as they happen, one at
	// a time and in order; it must not block for long (the chain's calls
	// wait for it).
	Watch func(Event)
}

// Submit validates req for c (the same validation, ceilings, profile,
// concurrency limit, retention and events for every face), starts it, and
// returns its view: at its end, or at once with o.Detach. A span context
// in ctx (a submission's traceparent) becomes the chain span's parent. A
// refused submission is a *SubmitError with a Reason.
func (s *Service) Submit(ctx context.Context, c Caller, req *SubmitRequest, o SubmitOptions) (ChainView, error) {
	if !c.MaySubmit() {
		return ChainView{}, refuse(ReasonForbiddenRole, "this API key has role %q; submitting a chain needs a key with role submit or all", c.Role)
	}
	if size := int64(len(req.Script) + len(req.Input)); size > s.opts.MaxRequestBytes {
		return ChainView{}, refuse(ReasonBodyTooLarge, "the script is %d bytes, above the server's %d (server.max_request_bytes)", size, s.opts.MaxRequestBytes)
	}
	parent := s.baseCtx
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		parent = trace.ContextWithSpanContext(parent, sc)
	}
	client := ctx // a synchronous chain ends with its submitter
	if o.Detach {
		client = nil
	}
	rn, rerr := s.start(parent, client, ctx, c.Tenant, req, c.Profile, o.Watch)
	if rerr != nil {
		return ChainView{}, rerr
	}
	if o.Detach {
		return rn.view(), nil
	}
	<-rn.done
	return s.endView(ctx, rn), nil
}

// start validates req, takes a slot, builds the guest and starts the
// chain under parent (with the service's cancellation). buildCtx bounds the
// compilation. When client is set, the chain is cancelled when it ends. watch, when set, receives the
// chain's stream events as they happen.
func (s *Service) start(parent, client, buildCtx context.Context, tenant string, req *SubmitRequest, prof *Profile, watch func(Event)) (*run, *SubmitError) {
	if s.draining.Load() {
		return nil, refuse(ReasonShuttingDown, "the server is shutting down and takes no new chains")
	}
	j, rerr := s.prepare(tenant, req, prof)
	if rerr != nil {
		return nil, rerr
	}

	// Take a slot before building: compiling a module or checking a script
	// is work, bounded like the chains themselves.
	s.mu.Lock()
	if s.draining.Load() {
		s.mu.Unlock()
		return nil, refuse(ReasonShuttingDown, "the server is shutting down and takes no new chains")
	}
	select {
	case s.slots <- struct{}{}:
	default:
		s.mu.Unlock()
		return nil, refuse(ReasonTooManyChains, "%d chains are running, the server's limit; retry when one has finished", cap(s.slots))
	}
	s.running.Add(1)
	s.mu.Unlock()
	slotHeld := true // until execute takes it over; released even on a panic
	defer func() {
		if slotHeld {
			<-s.slots
			s.running.Done()
		}
	}()
	if rerr := s.build(buildCtx, j); rerr != nil {
		return nil, rerr
	}

	ctx, cancel := context.WithCancelCause(parent)
	if client != nil {
		stop := context.AfterFunc(client, func() { cancel(errClientGone) })
		go func() { <-ctx.Done(); stop() }()
	}
	rn := newRun(chain.NewID(), tenant, j.lang, cancel)
	rn.watch = watch
	rn.callers, rn.callerSpecs = j.callerBox, req.CallerTools
	rn.identity.Store(j.identity)
	if j.module == nil {
		rn.script = req.Script
	}
	if s.opts.Fleet != nil {
		name := ""
		if prof != nil {
			name = prof.Name
		}
		rn.fleet = newFleetRun(name, 0)
		// A chain the fleet has no record of would be lost with this
		// process: without its first record it does not start.
		if err := s.putRunning(ctx, rn); err != nil {
			s.log.Error("fleet: recording a new chain failed; it was not started", "chain", rn.id, "err", err)
			// Its index entry may be written (it goes first), its record
			// too: the reaper interrupts such a chain, or forgets the
			// entry, once the lease lapsed.
			cancel(err)
			if j.module != nil {
				_ = j.module.Close(context.WithoutCancel(ctx))
			}
			return nil, refuse(ReasonStoreUnavailable, "the fleet's store could not record the chain, so it was not started; retry")
		}
	}

	s.mu.Lock()
	s.evictLocked(s.now())
	s.runs[rn.id] = rn
	s.live.Store(rn.id, rn)
	s.mu.Unlock()

	slotHeld = false
	go s.execute(ctx, rn, func(ctx context.Context) (*chain.RunResult, error) { return s.runJob(ctx, rn, j) })
	return rn, nil
}

// execute runs one chain (or a stretch of a resumed one) and records its
// result. The caller holds a slot, which execute releases. A panic in the
// run is contained: the chain ends with status error and reason host_error,
// and its slot is released like any other's.
func (s *Service) execute(ctx context.Context, rn *run, body func(context.Context) (*chain.RunResult, error)) {
	defer s.running.Done()
	defer rn.cancel(context.Canceled)
	if rn.fleet != nil {
		fctx, stop := context.WithCancel(ctx)
		defer stop()
		go s.flushOpen(fctx, rn)
	}
	endMetrics := s.metrics.StartChain()
	res := s.runGuarded(ctx, rn, body)
	if res.Trace == nil {
		res.Trace = []session.Record{}
	}
	if res.Reason == ReasonHostError {
		s.metrics.BridgeError(ReasonHostError)
	}
	res = s.settle(ctx, rn, res)
	endMetrics(string(res.Status), res.Stats.MemoryBytes)
	// Only this stretch's entry: a chain that parked may already run
	// again here (resumed as it parked: a decision that came first, an
	// identity handed meanwhile), and its new stretch's events must reach
	// it.
	s.live.CompareAndDelete(rn.id, rn)
	<-s.slots
	rn.finish(res)
	s.log.Info("chain finished", "chain", rn.id, "status", res.Status, "reason", res.Reason,
		"calls", res.Stats.Calls, "wall", res.Stats.Wall.Round(time.Millisecond).String())

	s.mu.Lock()
	s.finished = append(s.finished, rn)
	s.retained += rn.size
	s.evictLocked(s.now())
	s.mu.Unlock()
	close(rn.done)
}

// runGuarded runs body under the chain's span and returns its result,
// never nil: a run that fails to start or panics gives status error, reason
// host_error. Only the panic value's type is logged: the value may hold
// guest data.
func (s *Service) runGuarded(ctx context.Context, rn *run, body func(context.Context) (*chain.RunResult, error)) (res *chain.RunResult) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("chain run panicked; the chain ends with host_error", "chain", rn.id, "panic_type", fmt.Sprintf("%T", v))
			res = &chain.RunResult{ID: rn.id, Status: chain.StatusError, Reason: ReasonHostError,
				Error: "the server failed while running the chain; see its log"}
		}
	}()
	ctx, endSpan := s.tracer.StartChain(ctx, tracing.Chain{ID: rn.id, Tenant: rn.tenant, Language: rn.lang})
	if rn.fleet != nil {
		rn.fleet.span = tracing.Traceparent(ctx)
	}
	res, err := body(ctx)
	if err != nil {
		s.log.Error("chain could not run", "chain", rn.id, "err", err)
		res = &chain.RunResult{ID: rn.id, Status: chain.StatusError, Reason: ReasonHostError, Error: err.Error()}
	}
	endSpan(res)
	return res
}

// runJob runs a submitted chain.
func (s *Service) runJob(ctx context.Context, rn *run, j *job) (*chain.RunResult, error) {
	if j.module != nil {
		defer func() { _ = j.module.Close(context.WithoutCancel(ctx)) }()
	}
	// The identity is read at each call: SetIdentity may replace it.
	ctx = toolbox.WithIdentitySource(ctx, rn.identity.Load)
	opts := chain.Options{SessionID: rn.id, Tenant: rn.tenant, Tools: j.tools, ChainTools: j.callers, Policy: &j.policy, Limits: j.limits,
		Logger: s.log, Observer: s.observer(), Profile: j.gov, Park: s.opts.Park && j.module == nil}
	if j.module != nil {
		return s.runner.RunModule(ctx, j.module, j.input, opts)
	}
	return s.runner.RunProgram(ctx, j.program, opts)
}

// evictLocked forgets finished chains past the retention time, count or
// bytes, oldest first.
func (s *Service) evictLocked(now time.Time) {
	cutoff := now.Add(-s.opts.ResultTTL)
	n := 0
	for n < len(s.finished) && (len(s.finished)-n > s.opts.MaxResults || s.retained > s.opts.MaxResultsBytes ||
		s.finished[n].finished.Before(cutoff)) {
		s.retained -= s.finished[n].size
		delete(s.runs, s.finished[n].id)
		s.finished[n] = nil
		n++
	}
	s.finished = s.finished[n:]
}

// lookup returns tenant's chain id, or nil.
func (s *Service) lookup(tenant, id string) *run {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evictLocked(s.now())
	rn := s.runs[id]
	if rn == nil || rn.tenant != tenant {
		return nil
	}
	return rn
}

// clip bounds client-supplied text echoed in messages.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
