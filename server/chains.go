package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/tracing"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/session"
)

// Languages of SubmitRequest.Language, as ChainView reports them.
const (
	LangJavaScript = "javascript"
	LangTypeScript = "typescript"
	LangWasm       = "wasm"
)

// job is a validated submission, ready to run.
type job struct {
	lang   string
	script sandbox.Script
	wasm   []byte // the module's bytes until build compiles them
	module *sandbox.Module
	input  []byte
	tools  []string // the allow-list, nil for every tool
	policy invoker.Policy
	gov    *govern.Profile
	limits sandbox.Limits
}

// prepare validates req for tenant. It does no expensive work: build
// compiles the guest once the submission holds a slot.
func (s *Server) prepare(tenant string, req *SubmitRequest, prof *Profile) (*job, *requestError) {
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
			return nil, badRequest(ReasonInvalidLanguage, "this server does not run wasm modules; submit javascript or typescript")
		}
		j.lang = LangWasm
	default:
		return nil, badRequest(ReasonInvalidLanguage, "language %q is not javascript, typescript or wasm", req.Language)
	}
	if strings.TrimSpace(req.Script) == "" {
		return nil, badRequest(ReasonInvalidRequest, "script is required: the chain's source (or, for wasm, the module in base64)")
	}
	if req.Tenant != "" && req.Tenant != tenant {
		return nil, &requestError{code: http.StatusForbidden, body: errorBody{Reason: ReasonTenantMismatch,
			Message: fmt.Sprintf("tenant %q is not the tenant of this API key; leave tenant out or send the key's own", req.Tenant)}}
	}
	if len(req.Input) > 0 && j.lang != LangWasm {
		return nil, badRequest(ReasonInvalidRequest, "input is only for wasm modules; a script receives no input document (put the data in the script)")
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
			return nil, badRequest(ReasonInvalidModule, "for language wasm, script must be the module in standard base64: %v", err)
		}
		j.wasm = wasm
		return j, nil
	}
	var reqGuest sandbox.Guest
	if rerr := settings("guest", req.Guest, reqGuest.Set); rerr != nil {
		return nil, rerr
	}
	j.script = sandbox.Script{Source: req.Script, Lang: sandbox.LangJS, Filename: "chain.js", Guest: reqGuest.Or(s.opts.Guest)}
	if j.lang == LangTypeScript {
		j.script.Lang, j.script.Filename = sandbox.LangTS, "chain.ts"
	}
	return j, nil
}

// build compiles j's module or checks j's script. It runs while the
// submission holds a concurrency slot, so compilations are bounded like
// chains. ctx bounds the compilation.
func (s *Server) build(ctx context.Context, j *job) *requestError {
	if j.lang == LangWasm {
		var err error
		if j.module, err = s.engines.Modules.Compile(ctx, j.wasm); err != nil {
			if errors.Is(err, sandbox.ErrInvalidModule) {
				return badRequest(ReasonInvalidModule, "%s", strings.TrimPrefix(err.Error(), "sandbox: "))
			}
			s.log.Error("compiling a module failed", "err", err)
			return &requestError{code: http.StatusInternalServerError, body: errorBody{Reason: ReasonInternal, Message: "compiling the module failed"}}
		}
		j.wasm = nil
		return nil
	}
	if err := s.runner.Check(j.script); err != nil {
		var exit *sandbox.ExitError
		if errors.As(err, &exit) {
			return &requestError{code: http.StatusBadRequest, body: errorBody{Reason: ReasonInvalidScript,
				Message: exit.Message, Line: exit.Line, Column: exit.Column}}
		}
		return badRequest(ReasonInvalidScript, "%s", strings.TrimPrefix(err.Error(), "sandbox: "))
	}
	return nil
}

// settingError maps a refused policy or limit to its answer: above the
// ceiling, or invalid.
func (s *Server) settingError(err error) *requestError {
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "chain policy: "), "sandbox: invalid limits: ")
	if strings.Contains(msg, " is above ") {
		hint := "; ask for less"
		if strings.Contains(msg, "operator's limit") {
			hint = "; ask the operator to raise server.max, or ask for less"
		}
		return badRequest(ReasonAboveLimit, "%s%s", msg, hint)
	}
	return badRequest(ReasonInvalidPolicy, "%s", msg)
}

// subset returns the names of the tools and tool sets named, which must
// all exist.
func (s *Server) subset(names []string) ([]string, *requestError) {
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
		return nil, badRequest(ReasonUnknownTools, "no tool or tool set named %s (tool sets: %v; tools: GET /v1/tools)",
			strings.Join(unknown, ", "), sets)
	}
	slices.Sort(picked)
	return slices.Compact(picked), nil
}

// profileOf returns the profile of the request's API key.
func (s *Server) profileOf(r *http.Request) *Profile {
	if s.opts.Profile == nil {
		return nil
	}
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if s.opts.Authenticate == nil {
		key = ""
	}
	return s.opts.Profile(strings.TrimSpace(key))
}

// submit handles POST /v1/chains.
func (s *Server) submit(w http.ResponseWriter, r *http.Request, tenant string) {
	var req SubmitRequest
	if rerr := decodeBody(w, r, s.opts.MaxRequestBytes, &req); rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	async := false
	switch v := r.URL.Query().Get("async"); v {
	case "", "0":
	case "1":
		async = true
	default:
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, fmt.Sprintf("async=%q: use async=1 or leave it out", v))
		return
	}
	parent := s.baseCtx
	if s.tracer.Enabled() {
		parent = propagation.TraceContext{}.Extract(parent, propagation.HeaderCarrier(r.Header))
	}
	var client context.Context // a synchronous chain ends with its client
	if !async {
		client = r.Context()
	}
	rn, rerr := s.start(parent, client, tenant, &req, s.profileOf(r), nil)
	if rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	if async {
		w.Header().Set("Location", "/v1/chains/"+rn.id)
		writeJSON(w, http.StatusAccepted, rn.view())
		return
	}
	<-rn.done
	writeJSON(w, http.StatusOK, s.endView(r.Context(), rn))
}

// start validates req, takes a slot, builds the guest and starts the
// chain under parent (with the server's cancellation). When client is
// set, the chain is cancelled when it ends. watch, when set, receives the
// chain's stream events as they happen.
func (s *Server) start(parent, client context.Context, tenant string, req *SubmitRequest, prof *Profile, watch func(Event)) (*run, *requestError) {
	if s.draining.Load() {
		return nil, &requestError{code: http.StatusServiceUnavailable, body: errorBody{Reason: ReasonShuttingDown, Message: "the server is shutting down and takes no new chains"}}
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
		return nil, &requestError{code: http.StatusServiceUnavailable, body: errorBody{Reason: ReasonShuttingDown, Message: "the server is shutting down and takes no new chains"}}
	}
	select {
	case s.slots <- struct{}{}:
	default:
		s.mu.Unlock()
		return nil, &requestError{code: http.StatusTooManyRequests, body: errorBody{Reason: ReasonTooManyChains,
			Message: fmt.Sprintf("%d chains are running, the server's limit; retry when one has finished", cap(s.slots))}}
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
	buildCtx := parent
	if client != nil {
		buildCtx = client
	}
	if rerr := s.build(buildCtx, j); rerr != nil {
		return nil, rerr
	}

	ctx, cancel := context.WithCancelCause(parent)
	if client != nil {
		stop := context.AfterFunc(client, func() { cancel(errClientGone) })
		go func() { <-ctx.Done(); stop() }()
	}
	rn := newRun(newID(), tenant, j.lang, cancel)
	rn.watch = watch
	if s.opts.Fleet != nil {
		name := ""
		if prof != nil {
			name = prof.Name
		}
		rn.fleet = newFleetRun(name, 0)
		s.announce(ctx, rn)
	}

	s.mu.Lock()
	s.evictLocked(time.Now())
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
func (s *Server) execute(ctx context.Context, rn *run, body func(context.Context) (*chain.RunResult, error)) {
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
	if res.Reason == reasonHostError {
		s.metrics.BridgeError(reasonHostError)
	}
	res = s.settle(ctx, rn, res)
	endMetrics(string(res.Status), res.Stats.MemoryBytes)
	s.live.Delete(rn.id)
	<-s.slots
	rn.finish(res)
	s.log.Info("chain finished", "chain", rn.id, "status", res.Status, "reason", res.Reason,
		"calls", res.Stats.Calls, "wall", res.Stats.Wall.Round(time.Millisecond).String())

	s.mu.Lock()
	s.finished = append(s.finished, rn)
	s.retained += rn.size
	s.evictLocked(time.Now())
	s.mu.Unlock()
	close(rn.done)
}

// reasonHostError is the chain reason of a run the host failed.
const reasonHostError = "host_error"

// runGuarded runs body under the chain's span and returns its result,
// never nil: a run that fails to start or panics gives status error, reason
// host_error. Only the panic value's type is logged: the value may hold
// guest data.
func (s *Server) runGuarded(ctx context.Context, rn *run, body func(context.Context) (*chain.RunResult, error)) (res *chain.RunResult) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("chain run panicked; the chain ends with host_error", "chain", rn.id, "panic_type", fmt.Sprintf("%T", v))
			res = &chain.RunResult{ID: rn.id, Status: chain.StatusError, Reason: reasonHostError,
				Error: "the server failed while running the chain; see its log"}
		}
	}()
	ctx, endSpan := s.tracer.StartChain(ctx, tracing.Chain{ID: rn.id, Tenant: rn.tenant, Language: rn.lang})
	res, err := body(ctx)
	if err != nil {
		s.log.Error("chain could not run", "chain", rn.id, "err", err)
		res = &chain.RunResult{ID: rn.id, Status: chain.StatusError, Reason: reasonHostError, Error: err.Error()}
	}
	endSpan(res)
	return res
}

// runJob runs a submitted chain.
func (s *Server) runJob(ctx context.Context, rn *run, j *job) (*chain.RunResult, error) {
	if j.module != nil {
		defer func() { _ = j.module.Close(context.WithoutCancel(ctx)) }()
	}
	opts := chain.Options{SessionID: rn.id, Tenant: rn.tenant, Tools: j.tools, Policy: &j.policy, Limits: j.limits,
		Logger: s.log, Observer: s.observer(), Profile: j.gov, Park: s.opts.Park && j.module == nil}
	if j.module != nil {
		return s.runner.RunModule(ctx, j.module, j.input, opts)
	}
	return s.runner.Run(ctx, j.script, opts)
}

// evictLocked forgets finished chains past the retention time, count or
// bytes, oldest first.
func (s *Server) evictLocked(now time.Time) {
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
func (s *Server) lookup(tenant, id string) *run {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evictLocked(time.Now())
	rn := s.runs[id]
	if rn == nil || rn.tenant != tenant {
		return nil
	}
	return rn
}

func chainNotFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, ReasonChainNotFound,
		fmt.Sprintf("no chain %q for this API key (finished chains are kept for a limited time)", clip(id)))
}

// getChain handles GET /v1/chains/{id}: the chain from this process, or,
// in a fleet, from the shared store (a chain another process runs, or one
// that parked).
func (s *Server) getChain(w http.ResponseWriter, r *http.Request, tenant string) {
	v, err := s.Chain(r.Context(), tenant, r.PathValue("id"))
	if err != nil {
		chainNotFound(w, r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// cancelWait is how long DELETE waits for a cancelled chain to end before
// answering 202.
const cancelWait = 5 * time.Second

// cancelChain handles DELETE /v1/chains/{id}.
func (s *Server) cancelChain(w http.ResponseWriter, r *http.Request, tenant string) {
	rn := s.lookup(tenant, r.PathValue("id"))
	if rn == nil || rn.parked() {
		if c, ok := s.storedChain(r.Context(), tenant, r.PathValue("id")); ok {
			s.cancelStored(w, r, c)
			return
		}
	}
	if rn == nil {
		chainNotFound(w, r.PathValue("id"))
		return
	}
	select {
	case <-rn.done:
		writeError(w, http.StatusConflict, ReasonChainFinished,
			fmt.Sprintf("chain %s already finished with status %s; nothing to cancel", rn.id, rn.view().Status))
		return
	default:
	}
	rn.cancel(errCancelledByClient)
	t := time.NewTimer(cancelWait)
	defer t.Stop()
	select {
	case <-rn.done:
		writeJSON(w, http.StatusOK, rn.view())
	case <-t.C:
		writeJSON(w, http.StatusAccepted, rn.view())
	case <-r.Context().Done():
	}
}

func newID() string { return "ch_" + strings.ToLower(rand.Text()) }

// clip bounds client-supplied text echoed in messages.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
