package service

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/toolbox"
)

// Caller tools: tools a submission declares and its submitter runs. A call
// to one passes every gate of the invoker, then waits for the submitter's
// answer (AnswerCall): in this process for at most the call's timeout, or,
// in a fleet that parks, in the store until the park expires.

// Bounds of caller tools.
const (
	// MaxCallerTools caps the caller tools of one submission.
	MaxCallerTools = 32
	// DefaultMaxPendingCalls is Options.MaxPendingCallsPerTenant's default.
	DefaultMaxPendingCalls = 256
	// DefaultMaxCallerResultBytes is Options.MaxCallerResultBytes's
	// default, and its ceiling in a fleet (durable.MaxAnswerBytes).
	DefaultMaxCallerResultBytes = durable.MaxAnswerBytes
	// MaxListedArgsBytes bounds the arguments one listing of pending
	// calls or approvals holds (GET /v1/calls, /v1/chains/{id}/calls,
	// /v1/approvals): past it, a call is listed without its args (its
	// args_hash and args_size stay), to be read by its id.
	MaxListedArgsBytes = 4 << 20
	// maxCallerError caps an answer's error text.
	maxCallerError = 8 << 10
)

// CallerTool declares a tool the chain's submitter runs: the descriptor a
// Go tool has (toolbox.Info). The body of SubmitRequest.CallerTools.
type CallerTool struct {
	// Name is the tool's name in tools.<name>: ^[a-z0-9_-]{1,64}$, and
	// not the name of a configured tool.
	Name string `json:"name"`
	// Description says what it does (1 to 200 characters).
	Description string `json:"description"`
	// InputSchema is the JSON Schema of its arguments (an object); none:
	// it takes no arguments.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// OutputSchema, when set, is the JSON Schema every answer's result
	// must match.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Risk is SAFE (the default), LOW, MEDIUM, HIGH or CRITICAL: above the
	// chain's max_risk_unapproved, a call waits for approval first.
	Risk string `json:"risk,omitempty"`
	// Scopes are the scopes a chain's profile must grant to call it.
	Scopes []string `json:"scopes,omitempty"`
}

// guestReserved are the valid tool names the script's tools object
// answers itself, never as a tool call (notTools in
// guest-sdk/js/prelude/10-tools.js): a caller tool so named could not be
// called.
var guestReserved = []string{"then", "catch", "finally", "constructor", "__proto__"}

// callerTool is a CallerTool in its chain: an External tool whose calls
// wait for the submitter's answer.
type callerTool struct {
	svc  *Service
	info toolbox.Info
}

func (t *callerTool) Info() toolbox.Info { return t.info }
func (t *callerTool) External()          {}

// Call hands the call to the chain's submitter and waits for the answer.
// args are canonical (the invoker's External contract).
func (t *callerTool) Call(ctx context.Context, args json.RawMessage) (toolbox.Output, error) {
	return t.svc.await(ctx, t.info.Name, args)
}

// callerTools turns a submission's caller tools into tools, checked the
// way a Go tool is (toolbox rules, the schema bounds of MCP tools), and
// the toolbox that holds them (for their output schemas).
func (s *Service) callerTools(specs []CallerTool) ([]toolbox.Tool, *toolbox.Toolbox, *SubmitError) {
	if len(specs) == 0 {
		return nil, nil, nil
	}
	if len(specs) > MaxCallerTools {
		return nil, nil, refuse(ReasonInvalidCallerTools, "%d caller tools declared; at most %d", len(specs), MaxCallerTools)
	}
	tools := make([]toolbox.Tool, 0, len(specs))
	total := 0
	for i, c := range specs {
		bad := func(format string, a ...any) *SubmitError {
			return refuse(ReasonInvalidCallerTools, "caller_tools[%d] (%q): %s", i, clip(c.Name), fmt.Sprintf(format, a...))
		}
		if !toolbox.ValidName(c.Name) {
			return nil, nil, bad("a name must match ^[a-z0-9_-]{1,64}$")
		}
		if slices.Contains(guestReserved, c.Name) {
			return nil, nil, bad("the script's tools object keeps this name for itself (tools.%s is not a tool); name it otherwise", c.Name)
		}
		if s.box.Has(c.Name) {
			return nil, nil, bad("a configured tool has this name (GET /v1/tools); name it otherwise")
		}
		if slices.ContainsFunc(specs[:i], func(o CallerTool) bool { return o.Name == c.Name }) {
			return nil, nil, bad("declared twice")
		}
		total += len(c.InputSchema) + len(c.OutputSchema) + len(c.Description)
		if int64(total) > s.opts.MaxRequestBytes {
			return nil, nil, bad("the caller tools' schemas and descriptions are above the server's %d bytes (server.max_request_bytes)", s.opts.MaxRequestBytes)
		}
		info := toolbox.Info{Name: c.Name, Description: c.Description, Scopes: c.Scopes}
		var err error
		if info.InputSchema, err = schemaOf(c.InputSchema); err != nil {
			return nil, nil, bad("input_schema: %v", err)
		}
		if info.OutputSchema, err = schemaOf(c.OutputSchema); err != nil {
			return nil, nil, bad("output_schema: %v", err)
		}
		if c.Risk != "" {
			if info.Risk, err = toolbox.ParseRisk(c.Risk); err != nil {
				return nil, nil, bad("risk %q is not SAFE, LOW, MEDIUM, HIGH or CRITICAL", clip(c.Risk))
			}
		}
		tools = append(tools, &callerTool{svc: s, info: info})
	}
	box, err := toolbox.New(tools...)
	if err != nil {
		return nil, nil, refuse(ReasonInvalidCallerTools, "caller_tools: %s", strings.TrimPrefix(err.Error(), "toolbox: "))
	}
	return tools, box, nil
}

// schemaOf decodes a declared schema from untrusted bytes (nil for none).
func schemaOf(b json.RawMessage) (*jsonschema.Schema, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	s, err := toolbox.ParseSchema(b)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "toolbox: "))
	}
	return s, nil
}

// CallView is a call of a caller tool waiting for its answer: the data of
// a call_pending event, and of GET /v1/calls.
type CallView struct {
	// ID names the call in AnswerCall: "<chain>.<seq>" while its chain
	// runs here, a durable.CallID when it parked.
	ID      string `json:"id"`
	ChainID string `json:"chain_id"`
	Tenant  string `json:"tenant"`
	Seq     int    `json:"seq"`
	Tool    string `json:"tool"`
	// Args are the canonical arguments (artifact refs resolved), absent
	// once the call is answered or ended.
	Args     json.RawMessage `json:"args,omitempty"`
	ArgsHash string          `json:"args_hash"`
	ArgsSize int             `json:"args_size"`
	Created  time.Time       `json:"created"`
	// Deadline is when the call ends call_timeout unanswered.
	Deadline time.Time `json:"deadline"`
	// IdempotencyKey is the key the script gave the call
	// ($idempotency_key), for the caller to keep its own outcomes by;
	// absent when it gave none.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// CallAnswer is the submitter's answer to a call: exactly one of Result
// and Error, bound to the call's ArgsHash.
type CallAnswer struct {
	ArgsHash string          `json:"args_hash"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *string         `json:"error,omitempty"`
}

// Errors of AnswerCall besides ErrNotFound, ErrStoreUnavailable and
// approval.ErrArgsMismatch.
var (
	// ErrAlreadyAnswered: the call was answered before; nothing changed.
	ErrAlreadyAnswered = errors.New("service: the call was answered before")
	// ErrCallExpired: the call ended unanswered (its deadline passed, or
	// its chain ended); the script saw call_timeout or cancelled.
	ErrCallExpired = errors.New("service: the call ended before this answer")
	// ErrResultTooLarge: the result is above Options.MaxCallerResultBytes;
	// the call still waits.
	ErrResultTooLarge = errors.New("service: the result is too large")
	// ErrOutputMismatch: the result breaks the tool's output schema; the
	// call still waits.
	ErrOutputMismatch = errors.New("service: the result does not match the tool's output schema")
	// ErrInvalidAnswer: neither or both of result and error.
	ErrInvalidAnswer = errors.New("service: an answer has exactly one of result and error")
)

// pendingCall is a live call waiting in this process.
type pendingCall struct {
	view   CallView
	entry  *toolbox.Entry
	answer chan invoker.Answer // buffered; sent once, under the run's mu
	// ctx is the call's context: once it ended (timeout, the chain's
	// cancellation or end) no answer is taken.
	ctx context.Context
}

// Call states a run keeps of its ended calls, for late answers.
const (
	callAnswered = "answered"
	callEnded    = "ended"
)

// liveCallID names call seq of chain id while it waits in this process.
func liveCallID(chainID string, seq int) string { return chainID + "." + strconv.Itoa(seq) }

// await hands a call to the submitter and waits for the answer or the
// end of ctx (the call's timeout, or the chain's end).
func (s *Service) await(ctx context.Context, tool string, args json.RawMessage) (toolbox.Output, error) {
	c, ok := toolbox.CallerFrom(ctx)
	var rn *run
	if ok {
		rn = s.liveRun(c.ID())
	}
	if rn == nil || rn.callers == nil {
		return toolbox.Output{}, errors.New("the chain's caller tools are not reachable in this process")
	}
	entry, ok := rn.callers.Lookup(tool)
	if !ok {
		return toolbox.Output{}, fmt.Errorf("%q is not a caller tool of this chain", tool)
	}
	if !s.holdCall(rn.tenant) {
		return toolbox.Output{}, &toolbox.UnavailableError{RetryAfter: time.Second,
			Err: fmt.Errorf("this tenant has %d calls waiting for their callers, the server's limit; the call was not handed out", s.opts.MaxPendingCallsPerTenant)}
	}
	defer s.releaseCall(rn.tenant)
	sum := sha256.Sum256(args)
	now := s.now().UTC()
	deadline, _ := ctx.Deadline()
	pc := &pendingCall{entry: entry, answer: make(chan invoker.Answer, 1), ctx: ctx, view: CallView{
		ID: liveCallID(rn.id, c.Seq()), ChainID: rn.id, Tenant: rn.tenant, Seq: c.Seq(), Tool: tool,
		Args: args, ArgsHash: hex.EncodeToString(sum[:]), ArgsSize: len(args), Created: now, Deadline: deadline.UTC(),
		IdempotencyKey: c.IdempotencyKey(),
	}}
	if !rn.addCall(pc) {
		return toolbox.Output{}, errors.New("the chain ended before the call was handed out")
	}
	var a invoker.Answer
	select {
	case a = <-pc.answer:
	case <-ctx.Done():
		var answered bool
		if a, answered = rn.endCall(pc, false); !answered {
			return toolbox.Output{}, ctx.Err()
		}
	}
	rn.endCall(pc, true)
	if a.Error != "" {
		return toolbox.Output{}, errors.New(a.Error)
	}
	return toolbox.Output{JSON: a.Result}, nil
}

// holdCall counts a pending call against its tenant's bound.
func (s *Service) holdCall(tenant string) bool {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if s.pendingCalls[tenant] >= s.opts.MaxPendingCallsPerTenant {
		return false
	}
	s.pendingCalls[tenant]++
	return true
}

func (s *Service) releaseCall(tenant string) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if s.pendingCalls[tenant]--; s.pendingCalls[tenant] <= 0 {
		delete(s.pendingCalls, tenant)
	}
}

// addCall files a pending call and publishes its call_pending event (with
// its arguments while it waits). False once the chain ended.
func (r *run) addCall(pc *pendingCall) bool {
	data, err := json.Marshal(pc.view)
	if err != nil {
		return false
	}
	settled := pc.view
	settled.Args = nil
	sdata, err := json.Marshal(settled)
	if err != nil {
		return false
	}
	r.mu.Lock()
	if r.result != nil {
		r.mu.Unlock()
		return false
	}
	if r.calls == nil {
		r.calls = map[string]*pendingCall{}
	}
	r.calls[pc.view.ID] = pc
	r.mu.Unlock()
	r.append(event{name: EventCallPending, data: data, settled: sdata, approval: pc.view.ID})
	return true
}

// endCall takes a call out of the pending ones: answered (its answer was
// taken) or ended unanswered. When the call ended just as an answer was
// taken, it returns that answer and true.
func (r *run) endCall(pc *pendingCall, answered bool) (invoker.Answer, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := pc.view.ID
	if r.calls[id] == pc {
		delete(r.calls, id)
		if r.ended == nil {
			r.ended = map[string]string{}
		}
		r.ended[id] = map[bool]string{true: callAnswered, false: callEnded}[answered]
	}
	for i := range r.events {
		if e := &r.events[i]; e.approval == id {
			r.settleLocked(e)
		}
	}
	if !answered && r.ended[id] == callAnswered {
		select {
		case a := <-pc.answer:
			return a, true
		default:
		}
	}
	return invoker.Answer{}, false
}

// deliver hands an answer to a pending call of the run, at most once.
func (r *run) deliver(id string, check func(*pendingCall) error, a invoker.Answer) (CallView, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pc := r.calls[id]
	if pc != nil && r.result != nil {
		return CallView{}, ErrCallExpired
	}
	if pc == nil {
		switch r.ended[id] {
		case callAnswered:
			return CallView{}, ErrAlreadyAnswered
		case callEnded:
			return CallView{}, ErrCallExpired
		}
		if r.result != nil && r.knownCall(id) {
			return CallView{}, ErrCallExpired
		}
		return CallView{}, ErrNotFound
	}
	if err := check(pc); err != nil {
		return CallView{}, err
	}
	delete(r.calls, id)
	if r.ended == nil {
		r.ended = map[string]string{}
	}
	r.ended[id] = callAnswered
	pc.answer <- a
	v := pc.view
	v.Args = nil
	return v, nil
}

// knownCall reports whether the run's events name call id (a call that
// waited here before the chain ended).
func (r *run) knownCall(id string) bool {
	prefix := []byte(`{"id":` + strconv.Quote(id) + `,`)
	for _, e := range r.events {
		if e.name == EventCallPending && bytes.HasPrefix(e.data, prefix) {
			return true
		}
	}
	return false
}

// pendingViews lists the run's pending calls, oldest first.
func (r *run) pendingViews() []CallView {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]CallView, 0, len(r.calls))
	for _, pc := range r.calls {
		out = append(out, pc.view)
	}
	slices.SortFunc(out, func(a, b CallView) int { return a.Seq - b.Seq })
	return out
}

// trimArgs drops the arguments of the calls past budget bytes of them,
// in order, and returns what is left of it.
func trimArgs(views []CallView, budget int) int {
	for i := range views {
		if budget -= len(views[i].Args); budget < 0 {
			views[i].Args = nil
		}
	}
	return max(budget, 0)
}

// Calls lists the tenant's calls waiting for their callers: those of the
// chains running here, then, in a fleet, those of its parked chains.
func (s *Service) Calls(ctx context.Context, tenant string) ([]CallView, error) {
	out := []CallView{}
	s.live.Range(func(_, v any) bool {
		if rn := v.(*run); rn.tenant == tenant {
			out = append(out, rn.pendingViews()...)
		}
		return true
	})
	slices.SortFunc(out, func(a, b CallView) int { return a.Created.Compare(b.Created) })
	budget := trimArgs(out, MaxListedArgsBytes)
	if s.opts.Fleet != nil {
		stored, err := s.storedCalls(ctx, tenant, "", budget)
		if err != nil {
			return nil, err
		}
		out = append(out, stored...)
	}
	return out, nil
}

// ChainCalls lists the calls of the tenant's chain id waiting for their
// callers. ErrNotFound for a chain the tenant does not have.
func (s *Service) ChainCalls(ctx context.Context, tenant, id string) ([]CallView, error) {
	if rn := s.lookup(tenant, id); rn != nil && !rn.parked() {
		views := rn.pendingViews()
		trimArgs(views, MaxListedArgsBytes)
		return views, nil
	}
	v, err := s.Chain(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	if v.Status != string(chain.StatusParked) {
		return []CallView{}, nil
	}
	return s.storedCalls(ctx, tenant, id, MaxListedArgsBytes)
}

// Call returns the tenant's pending call id, with its arguments.
func (s *Service) Call(ctx context.Context, tenant, id string) (CallView, error) {
	if s.parkedCall(id) {
		a, d, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
		if err != nil {
			return CallView{}, s.storeErr(err)
		}
		if d != nil || !s.now().Before(a.Expires) {
			return CallView{}, ErrNotFound
		}
		// Its chain must still wait for it (not ended or cancelled).
		c, err := s.opts.Fleet.GetChain(ctx, tenant, a.ChainID)
		if err != nil {
			return CallView{}, s.storeErr(err)
		}
		if !waitsFor(c, id) {
			return CallView{}, ErrNotFound
		}
		return storedCallView(a), nil
	}
	chainID, _, ok := strings.Cut(id, ".")
	if !ok {
		return CallView{}, ErrNotFound
	}
	if rn := s.lookup(tenant, chainID); rn != nil {
		for _, v := range rn.pendingViews() {
			if v.ID == id {
				return v, nil
			}
		}
	}
	return CallView{}, ErrNotFound
}

// AnswerCall answers the tenant's pending call id: its result or error,
// bound to the hash of the arguments the caller was shown. The first
// answer wins. Errors: ErrInvalidAnswer; ErrNotFound;
// approval.ErrArgsMismatch, ErrResultTooLarge and ErrOutputMismatch (the
// call still waits); ErrAlreadyAnswered; ErrCallExpired;
// ErrStoreUnavailable.
func (s *Service) AnswerCall(ctx context.Context, tenant, id string, ans CallAnswer) (CallView, time.Time, error) {
	a, err := s.checkAnswer(ans)
	if err != nil {
		return CallView{}, time.Time{}, err
	}
	if s.parkedCall(id) {
		return s.answerParked(ctx, tenant, id, ans.ArgsHash, a)
	}
	chainID, _, ok := strings.Cut(id, ".")
	rn := s.lookup(tenant, chainID)
	if !ok || rn == nil {
		return CallView{}, time.Time{}, ErrNotFound
	}
	check := func(pc *pendingCall) error {
		if ans.ArgsHash != pc.view.ArgsHash {
			return approval.ErrArgsMismatch
		}
		if !pc.view.Deadline.IsZero() && !s.now().Before(pc.view.Deadline) || pc.ctx != nil && pc.ctx.Err() != nil {
			return ErrCallExpired
		}
		return s.checkOutput(pc.entry, a)
	}
	v, err := rn.deliver(id, check, a)
	return v, s.now().UTC(), err
}

// checkAnswer reads an answer: exactly one of result and error, within
// the size bound.
func (s *Service) checkAnswer(ans CallAnswer) (invoker.Answer, error) {
	hasResult := len(ans.Result) > 0
	switch {
	case ans.ArgsHash == "":
		return invoker.Answer{}, fmt.Errorf("%w: args_hash is required", ErrInvalidAnswer)
	case hasResult == (ans.Error != nil):
		return invoker.Answer{}, fmt.Errorf("%w: send result or error, not %s", ErrInvalidAnswer, map[bool]string{true: "both", false: "neither"}[hasResult])
	case ans.Error != nil && *ans.Error == "":
		return invoker.Answer{}, fmt.Errorf("%w: error must say what went wrong", ErrInvalidAnswer)
	case ans.Error != nil && len(*ans.Error) > maxCallerError:
		return invoker.Answer{}, fmt.Errorf("%w: error is %d bytes, above %d", ErrResultTooLarge, len(*ans.Error), maxCallerError)
	case len(ans.Result) > s.opts.MaxCallerResultBytes:
		return invoker.Answer{}, fmt.Errorf("%w: the result is %d bytes, above the server's %d", ErrResultTooLarge, len(ans.Result), s.opts.MaxCallerResultBytes)
	case hasResult && !json.Valid(ans.Result):
		return invoker.Answer{}, fmt.Errorf("%w: the result is not valid JSON", ErrOutputMismatch)
	}
	if ans.Error != nil {
		return invoker.Answer{Error: toolbox.ClipText(*ans.Error, maxCallerError)}, nil
	}
	return invoker.Answer{Result: bytes.Clone(ans.Result)}, nil
}

// checkOutput checks a result against the tool's output schema.
func (s *Service) checkOutput(entry *toolbox.Entry, a invoker.Answer) error {
	if a.Error != "" || entry == nil {
		return nil
	}
	if err := entry.ValidateOutput(a.Result); err != nil {
		return fmt.Errorf("%w: %s", ErrOutputMismatch, strings.TrimPrefix(err.Error(), "toolbox: "))
	}
	return nil
}

// parkedCall reports whether id names a parked chain's call.
func (s *Service) parkedCall(id string) bool {
	return s.opts.Fleet != nil && strings.HasPrefix(id, durable.CallPrefix)
}

// storedCallView shows a stored call.
func storedCallView(a *durable.Approval) CallView {
	return CallView{ID: a.ID, ChainID: a.ChainID, Tenant: a.Tenant, Seq: a.Seq, Tool: a.Tool, Args: a.Args,
		ArgsHash: a.ArgsHash, ArgsSize: a.ArgsSize, Created: a.Created, Deadline: a.Expires, IdempotencyKey: a.IdempotencyKey}
}

// storedCalls lists the tenant's parked calls still waiting (of chain id
// alone, when set).
func (s *Service) storedCalls(ctx context.Context, tenant, id string, budget int) ([]CallView, error) {
	out := []CallView{}
	now := s.now()
	parked := map[string]bool{}
	err := s.opts.Fleet.ListApprovals(ctx, tenant, func(a *durable.Approval, d *durable.Decision) error {
		if a.Kind != durable.KindCall || d != nil || !now.Before(a.Expires) || id != "" && a.ChainID != id {
			return nil
		}
		p, seen := parked[a.ChainID]
		if !seen {
			c, ok := s.storedChain(ctx, tenant, a.ChainID)
			p = ok && (c.Status == durable.StatusParked || c.Status == durable.StatusRunning)
			parked[a.ChainID] = p
		}
		if p {
			v := storedCallView(a)
			if budget -= len(v.Args); budget < 0 {
				v.Args = nil // past the listing's budget: GET /v1/calls/{id} has them
			}
			out = append(out, v)
		}
		return nil
	})
	if err != nil {
		s.log.Error("fleet: listing parked calls failed", "err", err)
		return nil, fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
	}
	return out, nil
}

// answerParked records the answer to a parked chain's call in the fleet's
// store (the first wins) and resumes the chain here in the background.
func (s *Service) answerParked(ctx context.Context, tenant, id, hash string, a invoker.Answer) (CallView, time.Time, error) {
	stored, prev, err := s.opts.Fleet.GetApproval(ctx, tenant, id)
	if err != nil {
		return CallView{}, time.Time{}, s.storeErr(err)
	}
	v := storedCallView(stored)
	v.Args = nil
	if prev != nil {
		return v, prev.At, ErrAlreadyAnswered
	}
	// An ended call is expired whatever the answer says, as a live one.
	c, err := s.opts.Fleet.GetChain(ctx, tenant, stored.ChainID)
	if err != nil {
		return v, time.Time{}, s.storeErr(err)
	}
	if !waitsFor(c, id) {
		return v, time.Time{}, ErrCallExpired
	}
	if hash != stored.ArgsHash {
		return v, time.Time{}, approval.ErrArgsMismatch
	}
	// The output schema travels in the call's authenticated request.
	if a.Error == "" && len(stored.OutputSchema) > 0 {
		if err := checkStoredOutput(stored, a.Result); err != nil {
			return v, time.Time{}, err
		}
	}
	first, err := s.opts.Fleet.Decide(ctx, tenant, id, durable.Decision{ArgsHash: hash, By: "api", At: s.now().UTC(), Answer: &a})
	switch {
	case err == nil:
		if s.started.Load() {
			go s.tryResume(tenant, stored.ChainID)
		}
		return v, first.At, nil
	case errors.Is(err, durable.ErrHashMismatch):
		return v, time.Time{}, approval.ErrArgsMismatch
	case errors.Is(err, durable.ErrAlreadyDecided):
		return v, first.At, ErrAlreadyAnswered
	case errors.Is(err, durable.ErrExpired):
		return v, time.Time{}, ErrCallExpired
	}
	s.log.Error("fleet: recording an answer failed", "call", id, "err", err)
	return v, time.Time{}, fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
}

// waitsFor reports whether stored chain c may still wait for parked call
// id: it runs (a timer woke it; it parks again on the call), or it is
// parked on it.
func waitsFor(c *durable.Chain, id string) bool {
	return c.Status == durable.StatusRunning ||
		c.Status == durable.StatusParked && slices.ContainsFunc(c.Pending, func(p durable.Approval) bool { return p.ID == id })
}

// checkStoredOutput checks a result against the output schema a parked
// call's request holds.
func checkStoredOutput(a *durable.Approval, result json.RawMessage) error {
	schema, err := toolbox.ParseSchema(a.OutputSchema)
	if err != nil {
		return fmt.Errorf("%w: the call's output schema: %s", ErrOutputMismatch, strings.TrimPrefix(err.Error(), "toolbox: "))
	}
	box, err := toolbox.New(&callerTool{info: toolbox.Info{Name: "output", Description: a.Tool, OutputSchema: schema}})
	if err != nil {
		return fmt.Errorf("%w: the call's output schema: %s", ErrOutputMismatch, strings.TrimPrefix(err.Error(), "toolbox: "))
	}
	e, _ := box.Lookup("output")
	if err := e.ValidateOutput(result); err != nil {
		return fmt.Errorf("%w: %s", ErrOutputMismatch, strings.TrimPrefix(err.Error(), "toolbox: "))
	}
	return nil
}

// outputSchema is the output schema caller tool name was declared with,
// nil for none.
func (r *run) outputSchema(name string) json.RawMessage {
	for _, c := range r.callerSpecs {
		if c.Name == name && len(c.OutputSchema) > 0 && string(c.OutputSchema) != "null" {
			return c.OutputSchema
		}
	}
	return nil
}

// chainTools rebuilds a parked chain's caller tools.
func (s *Service) chainTools(specs []CallerTool) ([]toolbox.Tool, error) {
	tools, _, rerr := s.callerTools(specs)
	if rerr != nil {
		return nil, fmt.Errorf("its caller tools: %s", rerr.Message)
	}
	return tools, nil
}
