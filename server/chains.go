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

// job is a validated submission, ready to run.
type job struct {
	lang   string
	script sandbox.Script
	module *sandbox.Module
	input  []byte
	runner *chain.Runner
	policy invoker.Policy
	limits sandbox.Limits
}

// prepare validates req for tenant and compiles what it needs.
func (s *Server) prepare(ctx context.Context, tenant string, req *SubmitRequest) (*job, *requestError) {
	j := &job{runner: s.runner}
	switch strings.ToLower(req.Language) {
	case "", "javascript", "js":
		j.lang = LangJavaScript
	case "typescript", "ts":
		j.lang = LangTypeScript
	case "wasm":
		if s.opts.Engines.Modules == nil {
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

	// Tools.
	if req.Tools != nil {
		box, rerr := s.subset(req.Tools)
		if rerr != nil {
			return nil, rerr
		}
		inv, err := invoker.New(box, s.invOpts)
		if err != nil {
			return nil, &requestError{code: http.StatusInternalServerError, body: errorBody{Reason: ReasonInternal, Message: err.Error()}}
		}
		if j.runner, err = chain.New(inv, s.opts.Engines); err != nil {
			return nil, &requestError{code: http.StatusInternalServerError, body: errorBody{Reason: ReasonInternal, Message: err.Error()}}
		}
	}

	// Policy and limits.
	if o := req.Policy; o != nil && o.MaxToolCalls != nil && *o.MaxToolCalls < 1 {
		return nil, badRequest(ReasonInvalidRequest, "policy.max_tool_calls must be at least 1")
	}
	j.policy = req.Policy.apply(s.opts.Policy)
	if err := j.policy.Validate(); err != nil {
		return nil, badRequest(ReasonInvalidPolicy, "%s", strings.TrimPrefix(err.Error(), "invoker: "))
	}
	j.limits = req.Limits.apply(s.opts.Limits)
	if o := req.Limits; o != nil && o.Memory != nil && *o.Memory < 1<<20 {
		return nil, badRequest(ReasonInvalidRequest, "limits.memory must be at least 1MiB")
	}
	if s.opts.Ceiling != nil {
		if err := s.opts.Ceiling(j.policy, j.limits); err != nil {
			return nil, badRequest(ReasonAboveLimit, "%v; ask the operator to raise server.max, or ask for less", err)
		}
	}

	// The guest.
	if j.lang == LangWasm {
		wasm, err := base64.StdEncoding.DecodeString(strings.TrimSpace(req.Script))
		if err != nil {
			return nil, badRequest(ReasonInvalidModule, "for language wasm, script must be the module in standard base64: %v", err)
		}
		if j.module, err = s.opts.Engines.Modules.Compile(ctx, wasm); err != nil {
			if errors.Is(err, sandbox.ErrInvalidModule) {
				return nil, badRequest(ReasonInvalidModule, "%s", strings.TrimPrefix(err.Error(), "sandbox: "))
			}
			return nil, &requestError{code: http.StatusInternalServerError, body: errorBody{Reason: ReasonInternal, Message: "compiling the module failed"}}
		}
		return j, nil
	}
	j.script = sandbox.Script{Source: req.Script, Lang: sandbox.LangJS, Filename: "chain.js"}
	if j.lang == LangTypeScript {
		j.script.Lang, j.script.Filename = sandbox.LangTS, "chain.ts"
	}
	if err := j.runner.Check(j.script); err != nil {
		var exit *sandbox.ExitError
		if errors.As(err, &exit) {
			return nil, &requestError{code: http.StatusBadRequest, body: errorBody{Reason: ReasonInvalidScript,
				Message: exit.Message, Line: exit.Line, Column: exit.Column}}
		}
		return nil, badRequest(ReasonInvalidScript, "%s", strings.TrimPrefix(err.Error(), "sandbox: "))
	}
	return j, nil
}

// subset returns a toolbox of the tools and tool sets named.
func (s *Server) subset(names []string) (*toolbox.Toolbox, *requestError) {
	var picked []string
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
	picked = slices.Compact(picked)
	tools := make([]toolbox.Tool, 0, len(picked))
	for _, n := range picked {
		if t, ok := s.box.Get(n); ok {
			tools = append(tools, t)
		}
	}
	box, err := toolbox.New(tools...)
	if err != nil {
		return nil, &requestError{code: http.StatusInternalServerError, body: errorBody{Reason: ReasonInternal, Message: err.Error()}}
	}
	return box, nil
}

// submit handles POST /v1/chains.
func (s *Server) submit(w http.ResponseWriter, r *http.Request, tenant string) {
	if s.draining.Load() {
		writeError(w, http.StatusServiceUnavailable, ReasonShuttingDown, "the server is shutting down and takes no new chains")
		return
	}
	var req SubmitRequest
	if rerr := decodeBody(w, r, s.opts.MaxRequestBytes, &req); rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	async := false
	switch v := r.URL.Query().Get("async"); v {
	case "", "0", "false":
	case "1", "true":
		async = true
	default:
		writeError(w, http.StatusBadRequest, ReasonInvalidRequest, fmt.Sprintf("async=%q: use async=1 or leave it out", v))
		return
	}
	j, rerr := s.prepare(r.Context(), tenant, &req)
	if rerr != nil {
		writeErrorBody(w, rerr.code, rerr.body)
		return
	}
	closeModule := func() {
		if j.module != nil {
			_ = j.module.Close(context.Background())
		}
	}

	// The chain's context: the server's for an asynchronous chain; for a
	// synchronous one also the request's, so a client that goes away
	// cancels it.
	parent := s.baseCtx
	if s.tracer.Enabled() {
		parent = propagation.TraceContext{}.Extract(parent, propagation.HeaderCarrier(r.Header))
	}
	ctx, cancel := context.WithCancelCause(parent)
	if !async {
		stop := context.AfterFunc(r.Context(), func() { cancel(errClientGone) })
		defer stop()
	}
	rn := newRun(newID(), tenant, j.lang, cancel)

	s.mu.Lock()
	if s.draining.Load() {
		s.mu.Unlock()
		cancel(nil)
		closeModule()
		writeError(w, http.StatusServiceUnavailable, ReasonShuttingDown, "the server is shutting down and takes no new chains")
		return
	}
	select {
	case s.slots <- struct{}{}:
	default:
		s.mu.Unlock()
		cancel(nil)
		closeModule()
		writeError(w, http.StatusTooManyRequests, ReasonTooManyChains,
			fmt.Sprintf("%d chains are running, the server's limit; retry when one has finished", cap(s.slots)))
		return
	}
	s.running.Add(1)
	s.evictLocked(time.Now())
	s.runs[rn.id] = rn
	s.live.Store(rn.id, rn)
	s.mu.Unlock()

	go s.execute(ctx, rn, j)

	if async {
		w.Header().Set("Location", "/v1/chains/"+rn.id)
		writeJSON(w, http.StatusAccepted, rn.view())
		return
	}
	<-rn.done
	writeJSON(w, http.StatusOK, rn.view())
}

// execute runs one chain and records its result.
func (s *Server) execute(ctx context.Context, rn *run, j *job) {
	defer s.running.Done()
	defer rn.cancel(context.Canceled)
	ctx, endSpan := s.tracer.StartChain(ctx, tracing.Chain{
		ID: rn.id, Tenant: rn.tenant, Language: rn.lang, MaxRiskUnapproved: j.policy.MaxRiskUnapproved,
	})
	endMetrics := s.metrics.StartChain()
	opts := chain.Options{SessionID: rn.id, Tenant: rn.tenant, Policy: &j.policy, Limits: j.limits, Logger: s.log}
	var (
		res *chain.RunResult
		err error
	)
	if j.module != nil {
		res, err = j.runner.RunModule(ctx, j.module, j.input, opts)
		_ = j.module.Close(context.WithoutCancel(ctx))
	} else {
		res, err = j.runner.Run(ctx, j.script, opts)
	}
	if err != nil {
		s.log.Error("chain could not run", "chain", rn.id, "err", err)
		res = &chain.RunResult{ID: rn.id, Status: chain.StatusError, Reason: "host_error", Error: err.Error()}
	}
	if res.Trace == nil {
		res.Trace = []session.Record{}
	}
	if res.Reason == "host_error" {
		s.metrics.BridgeError("host_error")
	}
	endMetrics(string(res.Status), res.Stats.MemoryBytes)
	endSpan(res)
	s.live.Delete(rn.id)
	<-s.slots
	rn.finish(res)
	s.log.Info("chain finished", "chain", rn.id, "status", res.Status, "reason", res.Reason,
		"calls", res.Stats.Calls, "wall", res.Stats.Wall.Round(time.Millisecond).String())

	s.mu.Lock()
	s.finished = append(s.finished, rn)
	s.evictLocked(time.Now())
	s.mu.Unlock()
	close(rn.done)
}

// evictLocked forgets finished chains past the retention time or count.
func (s *Server) evictLocked(now time.Time) {
	cutoff := now.Add(-s.opts.ResultTTL)
	n := 0
	for n < len(s.finished) && (len(s.finished)-n > s.opts.MaxResults || s.finished[n].finished.Before(cutoff)) {
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

// getChain handles GET /v1/chains/{id}.
func (s *Server) getChain(w http.ResponseWriter, r *http.Request, tenant string) {
	rn := s.lookup(tenant, r.PathValue("id"))
	if rn == nil {
		chainNotFound(w, r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, rn.view())
}

// cancelWait is how long DELETE waits for a cancelled chain to end before
// answering 202.
const cancelWait = 5 * time.Second

// cancelChain handles DELETE /v1/chains/{id}.
func (s *Server) cancelChain(w http.ResponseWriter, r *http.Request, tenant string) {
	rn := s.lookup(tenant, r.PathValue("id"))
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
