package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
)

// MCP tasks for run_chain (docs/mcp.md, "Tasks"). A client that declared
// tasks gets, for a run_chain whose chain waits for an approval or runs
// past ServerOptions.TaskAfter, a task handle instead of the result, and
// follows the chain with tasks/get, tasks/result, tasks/update (approve
// or deny its calls) and tasks/cancel. Two generations of the protocol
// are served by the same handlers: MCP 2025-11-25's tasks (the client's
// `tasks` capability and a `task` param on tools/call; CreateTaskResult
// {task}; tasks/get, tasks/result, tasks/cancel) and the
// io.modelcontextprotocol/tasks extension (SEP-2663: the extension in the
// client's capabilities, server-directed; resultType "task"; tasks/get,
// tasks/update, tasks/cancel).
//
// A task holds no state of its own: its id is the chain's id and the TTL
// it was granted, and everything it answers is the chain as the service
// shows it to the caller's tenant, from this process or, in a fleet, from
// the shared store. So a task resolves on any process of a fleet, and a
// task id of another tenant's chain names a chain that tenant-scoped reads
// do not find: the answer is the one for an id that never existed.

// TasksExtension is the extension's identifier, in the client's
// capabilities (extensions or experimental) and the server's.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Defaults and bounds of tasks.
const (
	// DefaultTaskAfter is ServerOptions.TaskAfter's default.
	DefaultTaskAfter = 2 * time.Second
	// DefaultTaskTTL is a task's TTL when the client asks for none;
	// MaxTaskTTL is the most it gets (a larger ttl is clamped).
	DefaultTaskTTL = time.Hour
	MaxTaskTTL     = 24 * time.Hour
	// MaxTenantTasks bounds the task chains of one tenant this process
	// runs at once; a run_chain past it is refused (too_many_tasks).
	MaxTenantTasks = 16
	// MaxTenantResultWaits bounds the tasks/result requests of one tenant
	// waiting on this process at once; one more is refused
	// (too_many_waits).
	MaxTenantResultWaits = 16
	// taskPollInterval is the polling interval a task suggests.
	taskPollInterval = time.Second
	// resultPoll is how often a waiting tasks/result reads a chain another
	// process runs, or a parked one (from the fleet's store).
	resultPoll = taskPollInterval
	// maxTaskDecisions bounds the decisions and input responses of one
	// tasks/update.
	maxTaskDecisions = 64
)

// Reasons of task refusals: a JSON-RPC error's data.reason, or a tool
// result's reason (too_many_tasks) or a decision's (tasks/update).
const (
	ReasonTaskNotFound     = "task_not_found"
	ReasonTaskExpired      = "task_expired"
	ReasonTaskFinished     = "task_finished"
	ReasonTooManyTasks     = "too_many_tasks"
	ReasonTooManyWaits     = "too_many_waits"
	ReasonForbiddenRole    = service.ReasonForbiddenRole
	ReasonInvalidRequest   = service.ReasonInvalidRequest
	ReasonStoreUnavailable = service.ReasonStoreUnavailable
	ReasonRunningElsewhere = "running_elsewhere"
	// Decision outcomes, as the HTTP API names them.
	ReasonArgsMismatch     = "args_mismatch"
	ReasonAlreadyDecided   = "already_decided"
	ReasonApprovalExpired  = "approval_expired"
	ReasonApprovalNotFound = "approval_not_found"
)

// Task statuses.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// JSON-RPC error codes of the task methods.
const (
	codeInvalidParams     = -32602
	codeInternal          = -32603
	codeMissingCapability = -32021
)

// Keys of the lifted fields (lift.go) and of _meta.
const (
	// coreTasksKey is where the 2025-11-25 `tasks` client capability,
	// which the SDK drops, is kept: in the capabilities' experimental map.
	coreTasksKey = "airlock/tasks"
	// taskParamKey is where tools/call's `task` param, which the SDK
	// drops, is kept: in the params' _meta.
	taskParamKey = "airlock/task"
	// createdKey marks run_chain's result as a task handle for the
	// tools/call middleware; it never reaches the wire.
	createdKey     = "airlock/task-created"
	relatedTaskKey = "io.modelcontextprotocol/related-task"
	immediateKey   = "io.modelcontextprotocol/model-immediate-response"
)

// Task is a task's state as both generations of the protocol read it:
// ttl and pollInterval (2025-11-25) and ttlMs and pollIntervalMs (the
// extension) carry the same values, in milliseconds.
type Task struct {
	TaskID         string    `json:"taskId"`
	Status         string    `json:"status"`
	StatusMessage  string    `json:"statusMessage,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	LastUpdatedAt  time.Time `json:"lastUpdatedAt"`
	TTL            int64     `json:"ttl"`
	TTLMs          int64     `json:"ttlMs"`
	PollInterval   int64     `json:"pollInterval"`
	PollIntervalMs int64     `json:"pollIntervalMs"`
}

// CreateTaskResult is run_chain's answer when it became a task: the task
// flat with resultType "task" (the extension) and as `task` (2025-11-25).
type CreateTaskResult struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
	Task
	Seed Task `json:"task"`
}

// TaskResult answers tasks/get and tasks/cancel: the task, the chain it
// follows, and by status the approvals it waits for (input_required, as
// elicitation input requests and in the HTTP API's shape) or run_chain's
// result (completed).
type TaskResult struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
	Task
	ChainID       string                  `json:"chainId"`
	InputRequests map[string]inputRequest `json:"inputRequests,omitempty"`
	Approvals     []approval.Request      `json:"approvals,omitempty"`
	Result        *sdk.CallToolResult     `json:"result,omitempty"`
}

type inputRequest struct {
	Method string            `json:"method"`
	Params *sdk.ElicitParams `json:"params"`
}

// TaskParams are the params of tasks/get, tasks/result and tasks/cancel.
type TaskParams struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
}

// UpdateTaskParams are the params of tasks/update: decisions by approval
// id bound to the arguments' hash, and/or the extension's inputResponses
// (elicitation results keyed by the inputRequests keys of tasks/get).
type UpdateTaskParams struct {
	sdk.ParamsBase
	TaskID         string                     `json:"taskId"`
	Decisions      []TaskDecision             `json:"decisions,omitempty"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// TaskDecision is one decision of tasks/update.
type TaskDecision struct {
	ApprovalID string `json:"approvalId"`
	// Decision is approve or deny.
	Decision string `json:"decision"`
	// ArgsHash is the args_hash of the request as it was shown.
	ArgsHash string `json:"argsHash"`
}

// UpdateTaskResult acknowledges tasks/update with the outcome of each
// decision: the decision in force, or why it was refused.
type UpdateTaskResult struct {
	sdk.ResultBase
	ResultType string            `json:"resultType"`
	Decisions  []DecisionOutcome `json:"decisions"`
}

// DecisionOutcome is the outcome of one decision of tasks/update.
type DecisionOutcome struct {
	ApprovalID string `json:"approvalId"`
	// Decision is approved or denied: what was decided, by this decision
	// or (already_decided) by the first one.
	Decision string `json:"decision,omitempty"`
	// Reason, when set, says why this decision changed nothing.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// taskErr is a JSON-RPC error of the task methods with a stable reason.
func taskErr(code int64, reason, format string, args ...any) error {
	data, _ := json.Marshal(map[string]string{"reason": reason})
	return &jsonrpc.Error{Code: code, Message: reason + ": " + fmt.Sprintf(format, args...), Data: data}
}

func unknownTask(id string) error {
	return taskErr(codeInvalidParams, ReasonTaskNotFound, "no task %q for this API key", clip(id, 128))
}

func missingCapability() error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})
	return &jsonrpc.Error{Code: codeMissingCapability, Message: "Missing required client capability: declare the " + TasksExtension +
		" extension (or the tasks capability) in initialize", Data: data}
}

// taskID is the id of the task following chain id for ttl.
func taskID(chainID string, ttl time.Duration) string {
	return chainID + "." + strconv.FormatInt(ttl.Milliseconds(), 10)
}

var chainIDPattern = regexp.MustCompile(`^ch_[a-z0-9]{1,64}$`)

// parseTaskID returns the chain and TTL a task id names. A TTL edited by
// the client is clamped like a requested one: the most it gains is
// MaxTaskTTL, which it could have asked for.
func parseTaskID(id string) (string, time.Duration, bool) {
	chainID, ms, ok := strings.Cut(id, ".")
	if !ok || !chainIDPattern.MatchString(chainID) {
		return "", 0, false
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return chainID, clampTTL(time.Duration(min(n, MaxTaskTTL.Milliseconds())) * time.Millisecond), true
}

func clampTTL(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTaskTTL
	}
	return min(d, MaxTaskTTL)
}

// tasksDeclared reports whether caps declare tasks: the extension (in
// extensions or experimental), or 2025-11-25's tasks capability (lifted
// into experimental).
func tasksDeclared(caps *sdk.ClientCapabilities) (extension, core bool) {
	if caps == nil {
		return false, false
	}
	_, inExt := caps.Extensions[TasksExtension]
	_, inExp := caps.Experimental[TasksExtension]
	_, coreCap := caps.Experimental[coreTasksKey]
	return inExt || inExp, coreCap
}

// taskMode reports whether run_chain of req may become a task, and with
// which TTL: when the client declared the extension (the server decides),
// or declared 2025-11-25's capability and sent the task param.
func taskMode(req *sdk.CallToolRequest) (time.Duration, bool) {
	ext, core := tasksDeclared(req.ClientCapabilities())
	param, asked := req.Params.Meta[taskParamKey]
	if !ext && !(core && asked) {
		return 0, false
	}
	ttl := DefaultTaskTTL
	if p, ok := param.(map[string]any); ok {
		if ms, ok := p["ttl"].(float64); ok && ms > 0 {
			ttl = clampTTL(time.Duration(min(ms, float64(MaxTaskTTL.Milliseconds()))) * time.Millisecond)
		}
	}
	return ttl, true
}

// taskCounts counts what each tenant holds in this process: its task
// chains, or its waiting tasks/result requests.
type taskCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// acquire counts one more for tenant, false when it holds max already.
func (t *taskCounts) acquire(tenant string, max int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == nil {
		t.n = map[string]int{}
	}
	if t.n[tenant] >= max {
		return false
	}
	t.n[tenant]++
	return true
}

func (t *taskCounts) release(tenant string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n[tenant]--; t.n[tenant] <= 0 {
		delete(t.n, tenant)
	}
}

// runTask is run_chain for a client that declared tasks: the chain starts
// detached; run_chain answers with its result when it ends within
// TaskAfter without waiting for a person, and otherwise with a task.
func (s *Server) runTask(ctx context.Context, req *sdk.CallToolRequest, c service.Caller, args RunChainArgs, ttl time.Duration) (*sdk.CallToolResult, ChainOutput, error) {
	if !s.tasks.acquire(c.Tenant, MaxTenantTasks) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(
			"%s: this tenant runs %d chains as tasks on this server already; wait for one to end or park, or cancel one with tasks/cancel", ReasonTooManyTasks, MaxTenantTasks)}}}, ChainOutput{}, nil
	}
	held := true
	defer func() {
		if held {
			s.tasks.release(c.Tenant)
		}
	}()
	progress, stopProgress := s.progress(ctx, req.Session, req.Params.GetProgressToken())
	defer stopProgress()
	asking := make(chan struct{}, 1)
	view, err := s.svc.Submit(ctx, c, &service.SubmitRequest{Script: args.Script, Language: args.Language, Identity: s.identity(req.Extra)}, service.SubmitOptions{Detach: true, Watch: func(ev service.Event) {
		progress(ev)
		if ev.Name == service.EventApprovalRequired {
			select {
			case asking <- struct{}{}:
			default:
			}
		}
	}})
	if err != nil {
		return s.answer(view, err)
	}
	id := view.ID
	wctx, stopWait := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWait()
	ended := make(chan service.ChainView, 1)
	go func() {
		if v, err := s.svc.Wait(wctx, c.Tenant, id); err == nil {
			ended <- v
		}
	}()
	timer := time.NewTimer(s.opts.TaskAfter)
	defer timer.Stop()
	select {
	case v := <-ended:
		if v.Status != string(chain.StatusParked) {
			return s.answer(v, nil) // ended within TaskAfter: the result, as without tasks
		}
	case <-asking:
	case <-timer.C:
	case <-ctx.Done():
		// The client left before it had a task: the chain ends with the
		// call, as a synchronous run_chain's does.
		_, _ = s.svc.Cancel(context.WithoutCancel(ctx), c.Tenant, id)
		return nil, ChainOutput{}, ctx.Err()
	}
	// A task: the chain runs on, and counts against its tenant here until
	// its stretch in this process ends (it finishes, or parks).
	held = false
	go func() {
		defer s.tasks.release(c.Tenant)
		_, _ = s.svc.Wait(context.Background(), c.Tenant, id)
	}()
	tid := taskID(id, ttl)
	seed := Task{TaskID: tid, Status: TaskWorking, CreatedAt: view.Created, LastUpdatedAt: time.Now().UTC()}
	if st, err := s.taskState(ctx, c, tid); err == nil {
		seed = st.Task
	}
	seed.TTL, seed.TTLMs = ttl.Milliseconds(), ttl.Milliseconds()
	seed.PollInterval, seed.PollIntervalMs = taskPollInterval.Milliseconds(), taskPollInterval.Milliseconds()
	return &sdk.CallToolResult{Meta: sdk.Meta{createdKey: &seed}}, ChainOutput{}, nil
}

// created is the wire answer of a run_chain that became a task.
func created(t *Task) *CreateTaskResult {
	r := &CreateTaskResult{ResultType: "task", Task: *t, Seed: *t}
	r.Meta = sdk.Meta{immediateKey: fmt.Sprintf("The chain runs on as task %s (status %s). Poll tasks/get for its approvals and result; tasks/update approves or denies its calls.", t.TaskID, t.Status)}
	return r
}

// taskState is the task id as the caller's tenant sees it now.
func (s *Server) taskState(ctx context.Context, c service.Caller, id string) (*TaskResult, error) {
	chainID, ttl, ok := parseTaskID(id)
	if !ok {
		return nil, unknownTask(id)
	}
	view, err := s.svc.Chain(ctx, c.Tenant, chainID)
	if err != nil {
		if errors.Is(err, service.ErrNotFound) {
			return nil, unknownTask(id)
		}
		return nil, taskErr(codeInternal, ReasonStoreUnavailable, "the chain could not be read; retry")
	}
	expires := view.Created.Add(ttl)
	if !time.Now().Before(expires) {
		return nil, taskErr(codeInvalidParams, ReasonTaskExpired, "task %q expired at %s (its ttl was %s); the chain %s may still be read with GET /v1/chains/%s",
			clip(id, 128), expires.UTC().Format(time.RFC3339), ttl, chainID, chainID)
	}
	t := &TaskResult{ResultType: "complete", ChainID: chainID, Task: Task{TaskID: id, CreatedAt: view.Created.UTC(), LastUpdatedAt: time.Now().UTC(),
		TTL: ttl.Milliseconds(), TTLMs: ttl.Milliseconds(), PollInterval: taskPollInterval.Milliseconds(), PollIntervalMs: taskPollInterval.Milliseconds()}}
	switch chain.Status(view.Status) {
	case chain.StatusRunning:
		t.Status, t.StatusMessage = TaskWorking, "the chain is running"
	case chain.StatusWaitingApproval, chain.StatusParked:
		var pending []approval.Request
		if view.Status == string(chain.StatusParked) {
			// Decided or expired calls of a chain not yet resumed wait for
			// nobody: they are not asked again.
			for _, p := range view.Pending {
				if req, err := s.svc.Undecided(ctx, c.Tenant, p.ID); err == nil && req.SessionID == chainID {
					pending = append(pending, req)
				}
			}
		} else {
			for _, q := range s.svc.Queue().List(c.Tenant) {
				if q.SessionID != chainID {
					continue
				}
				if req, err := s.svc.Approval(ctx, c.Tenant, q.ID); err == nil {
					pending = append(pending, req)
				}
			}
		}
		t.Status = TaskInputRequired
		creds := credentialWaits(view)
		if len(pending) == 0 && len(creds) == 0 {
			// Decided a moment ago, and not yet running on: it resumes.
			t.Status = TaskWorking
		}
		t.StatusMessage = waitingMessage(view.Status, pending, creds)
		t.Approvals = pending
		for _, req := range pending {
			if q, ok := s.question(req); ok {
				if t.InputRequests == nil {
					t.InputRequests = map[string]inputRequest{}
				}
				t.InputRequests[inputKey(req)] = inputRequest{Method: "elicitation/create", Params: q}
			}
			if req.Created.After(t.CreatedAt) {
				t.LastUpdatedAt = req.Created.UTC()
			}
		}
	default:
		res, out, _ := s.answer(view, nil)
		res.StructuredContent = out
		t.Status, t.Result = TaskCompleted, res
		if view.Status == string(chain.StatusCancelled) {
			t.Status = TaskCancelled
		}
		t.StatusMessage = "the chain ended with status " + view.Status
		if out.Reason != "" {
			t.StatusMessage += " (" + out.Reason + ")"
		}
		if !view.Finished.IsZero() {
			t.LastUpdatedAt = view.Finished.UTC()
		}
	}
	return t, nil
}

func waitingMessage(status string, pending []approval.Request, creds []durable.Approval) string {
	var b strings.Builder
	if status == string(chain.StatusParked) {
		b.WriteString("the chain is parked, ")
	}
	if len(pending) > 0 || len(creds) == 0 {
		fmt.Fprintf(&b, "waiting for %d approval(s)", len(pending))
		for i, p := range pending {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (%s)", approval.Escape(p.Tool), p.Risk)
		}
	}
	if len(creds) > 0 {
		if len(pending) > 0 {
			b.WriteString("; ")
		}
		b.WriteString("waiting for a fresh delegated credential for ")
		for i, c := range creds {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (%s)", approval.Escape(c.Tool), approval.Escape(c.Rule))
		}
		b.WriteString(": the submitter sends the user's token with POST /v1/chains/{id}/identity (docs/identity.md)")
	}
	return b.String()
}

// credentialWaits are the calls of a parked chain that wait for a fresh
// delegated credential.
func credentialWaits(view service.ChainView) []durable.Approval {
	if view.Status != string(chain.StatusParked) {
		return nil
	}
	var out []durable.Approval
	for _, p := range view.Pending {
		if p.Kind == durable.KindCredential {
			out = append(out, p)
		}
	}
	return out
}

// inputKey is the inputRequests key of req: its id and the start of its
// arguments' hash, unique over the task's lifetime.
func inputKey(req approval.Request) string {
	return req.ID + "." + req.ArgsHash[:min(len(req.ArgsHash), 16)]
}

func terminal(status string) bool {
	return status == TaskCompleted || status == TaskFailed || status == TaskCancelled
}

// callerKey of a task method's context: the caller the middleware
// authenticated.
type taskCallerKey struct{}

func taskCaller(ctx context.Context) service.Caller {
	c, _ := ctx.Value(taskCallerKey{}).(service.Caller)
	return c
}

// addTaskMethods registers tasks/get, tasks/result, tasks/update and
// tasks/cancel.
func (s *Server) addTaskMethods() {
	must := func(err error) {
		if err != nil {
			panic(err) // a name the SDK reserves: a bug here, caught by every test
		}
	}
	must(sdk.AddReceivingCustomMethod(s.srv, "tasks/get", func(ctx context.Context, _ *sdk.ServerSession, p *TaskParams) (*TaskResult, error) {
		return s.taskState(ctx, taskCaller(ctx), p.TaskID)
	}))
	must(sdk.AddReceivingCustomMethod(s.srv, "tasks/result", s.taskResult))
	must(sdk.AddReceivingCustomMethod(s.srv, "tasks/update", s.updateTask))
	must(sdk.AddReceivingCustomMethod(s.srv, "tasks/cancel", s.cancelTask))
}

// taskResult waits until the task ends (or the request's context does)
// and returns run_chain's result.
func (s *Server) taskResult(ctx context.Context, _ *sdk.ServerSession, p *TaskParams) (*sdk.CallToolResult, error) {
	c := taskCaller(ctx)
	if !s.waits.acquire(c.Tenant, MaxTenantResultWaits) {
		return nil, taskErr(codeInvalidParams, ReasonTooManyWaits, "this tenant has %d tasks/result requests waiting on this server already; poll with tasks/get instead", MaxTenantResultWaits)
	}
	defer s.waits.release(c.Tenant)
	for {
		t, err := s.taskState(ctx, c, p.TaskID)
		if err != nil {
			return nil, err
		}
		if terminal(t.Status) {
			res := t.Result
			res.Meta = sdk.Meta{relatedTaskKey: map[string]string{"taskId": t.TaskID}}
			return res, nil
		}
		// A chain running here: until its stretch ends; elsewhere or
		// parked: a while.
		start := time.Now()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, _ = s.svc.Wait(wctx, c.Tenant, t.ChainID)
		cancel()
		if time.Since(start) < resultPoll {
			select {
			case <-time.After(resultPoll):
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// updateTask decides approvals of the task's chain: the caller must be
// allowed to decide them (as on the HTTP API), and each decision is bound
// to the arguments' hash.
func (s *Server) updateTask(ctx context.Context, _ *sdk.ServerSession, p *UpdateTaskParams) (*UpdateTaskResult, error) {
	c := taskCaller(ctx)
	if !c.MayApprove() {
		return nil, taskErr(codeInvalidParams, ReasonForbiddenRole, "this API key has role %q; deciding approvals needs a key with role approver or all", c.Role)
	}
	if len(p.Decisions)+len(p.InputResponses) > maxTaskDecisions {
		return nil, taskErr(codeInvalidParams, ReasonInvalidRequest, "at most %d decisions and input responses in one tasks/update", maxTaskDecisions)
	}
	t, err := s.taskState(ctx, c, p.TaskID)
	if err != nil {
		return nil, err
	}
	out := &UpdateTaskResult{ResultType: "complete", Decisions: []DecisionOutcome{}}
	for _, d := range p.Decisions {
		var approve bool
		switch strings.ToLower(d.Decision) {
		case "approve", "approved":
			approve = true
		case "deny", "denied":
		default:
			out.Decisions = append(out.Decisions, DecisionOutcome{ApprovalID: d.ApprovalID, Reason: ReasonInvalidRequest,
				Message: fmt.Sprintf("decision %q must be approve or deny", clip(d.Decision, 32))})
			continue
		}
		if d.ArgsHash == "" {
			out.Decisions = append(out.Decisions, DecisionOutcome{ApprovalID: d.ApprovalID, Reason: ReasonInvalidRequest,
				Message: "argsHash is required: send the args_hash of the request you were shown"})
			continue
		}
		out.Decisions = append(out.Decisions, s.decideFor(ctx, c, t.ChainID, d.ApprovalID, approve, d.ArgsHash))
	}
	// The extension's input responses: each key names an approval and the
	// start of its arguments' hash (inputKey); a key that names no
	// approval of this chain waiting now (answered included) is ignored.
	for key, raw := range p.InputResponses {
		id, _, _ := strings.Cut(key, ".")
		req, err := s.svc.Undecided(ctx, c.Tenant, id)
		if err != nil || req.SessionID != t.ChainID || inputKey(req) != key {
			continue
		}
		var res sdk.ElicitResult
		if json.Unmarshal(raw, &res) != nil {
			continue
		}
		out.Decisions = append(out.Decisions, s.decideFor(ctx, c, t.ChainID, id, verdict(&res) == invoker.Approved, req.ArgsHash))
	}
	return out, nil
}

// decideFor decides approval id of chainID for c, with the HTTP API's
// outcomes.
func (s *Server) decideFor(ctx context.Context, c service.Caller, chainID, id string, approve bool, hash string) DecisionOutcome {
	o := DecisionOutcome{ApprovalID: id}
	req, err := s.svc.Approval(ctx, c.Tenant, id)
	switch {
	case err == nil && req.SessionID != chainID:
		err = service.ErrNotFound // another chain's: not this task's to decide
	case err == nil:
		var res approval.Outcome
		res, err = s.svc.Decide(ctx, c.Tenant, id, service.Decision{Approve: approve, ArgsHash: hash})
		o.Decision = res.Decision.String()
	case errors.Is(err, service.ErrNotFound) && !strings.HasPrefix(id, durable.ApprovalPrefix):
		// No longer pending in the queue (settled), or none of the
		// tenant's: the queue remembers what a settled request's decision
		// was, and a Decide of it changes nothing (already_decided), for
		// a request of this chain only. (A parked call's request is read
		// decided or not, above; one not read, maybe for a store error,
		// is not decided blind.)
		res, derr := s.svc.Decide(ctx, c.Tenant, id, service.Decision{Approve: approve, ArgsHash: hash})
		if res.Request.SessionID == chainID && (errors.Is(derr, approval.ErrAlreadyDecided) || errors.As(derr, new(*service.ExpiredError))) {
			err, o.Decision = derr, res.Decision.String()
		}
	}
	var expired *service.ExpiredError
	switch {
	case err == nil:
	case errors.Is(err, approval.ErrArgsMismatch):
		o.Decision, o.Reason, o.Message = "", ReasonArgsMismatch, "argsHash is not the hash of this request's arguments: the decision was made on other arguments and was refused; the request is still pending"
	case errors.Is(err, approval.ErrAlreadyDecided):
		o.Reason, o.Message = ReasonAlreadyDecided, "the request was already "+o.Decision+"; this decision changed nothing"
	case errors.As(err, &expired):
		o.Decision, o.Reason, o.Message = "", ReasonApprovalExpired, "the request expired before this decision ("+expired.Why+")"
	case errors.Is(err, service.ErrStoreUnavailable):
		o.Decision, o.Reason, o.Message = "", ReasonStoreUnavailable, "the decision could not be recorded in the fleet's store; retry"
	default:
		o.Decision, o.Reason, o.Message = "", ReasonApprovalNotFound, fmt.Sprintf("no approval request %q of this task's chain waits", clip(id, 128))
	}
	return o
}

// cancelTask cancels the task's chain and answers the task as it is then.
func (s *Server) cancelTask(ctx context.Context, _ *sdk.ServerSession, p *TaskParams) (*TaskResult, error) {
	c := taskCaller(ctx)
	if !c.MaySubmit() {
		return nil, taskErr(codeInvalidParams, ReasonForbiddenRole, "this API key has role %q; cancelling a chain needs a key with role submit or all", c.Role)
	}
	t, err := s.taskState(ctx, c, p.TaskID)
	if err != nil {
		return nil, err
	}
	if terminal(t.Status) {
		return nil, taskErr(codeInvalidParams, ReasonTaskFinished, "task %q is already %s", clip(p.TaskID, 128), t.Status)
	}
	if _, err := s.svc.Cancel(ctx, c.Tenant, t.ChainID); err != nil {
		switch {
		case errors.Is(err, service.ErrRunningElsewhere):
			return nil, taskErr(codeInvalidParams, ReasonRunningElsewhere, "the chain runs on another process of the fleet; send tasks/cancel to that process")
		case errors.Is(err, service.ErrFinished):
			// It ended meanwhile: answered below as it is.
		case errors.Is(err, service.ErrNotFound):
			return nil, unknownTask(p.TaskID)
		default:
			return nil, taskErr(codeInternal, ReasonStoreUnavailable, "the chain could not be cancelled; retry")
		}
	}
	return s.taskState(ctx, c, p.TaskID)
}

// taskMiddleware authenticates the task methods and checks that the
// client declared tasks; turns run_chain's task handle into
// CreateTaskResult; and advertises tasks in initialize and
// server/discover.
func (s *Server) taskMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch {
		case strings.HasPrefix(method, "tasks/"):
			c, err := s.caller(req.GetExtra())
			if err != nil {
				return nil, err
			}
			var caps *sdk.ClientCapabilities
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok && ss.InitializeParams() != nil {
				caps = ss.InitializeParams().Capabilities
			}
			if ext, core := tasksDeclared(caps); !ext && !core {
				return nil, missingCapability()
			}
			return next(context.WithValue(ctx, taskCallerKey{}, c), method, req)
		case method == "tools/call":
			res, err := next(ctx, method, req)
			if r, ok := res.(*sdk.CallToolResult); ok && err == nil {
				if t, ok := r.Meta[createdKey].(*Task); ok {
					return created(t), nil
				}
			}
			return res, err
		case method == "initialize":
			res, err := next(ctx, method, req)
			if r, ok := res.(*sdk.InitializeResult); ok && err == nil {
				own := *r
				own.Capabilities = withTasks(r.Capabilities)
				return &advertised{&own}, nil
			}
			return res, err
		case method == "server/discover":
			res, err := next(ctx, method, req)
			if r, ok := res.(*sdk.DiscoverResult); ok && err == nil {
				r.Capabilities = withTasks(r.Capabilities)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// withTasks is caps with the extension declared.
func withTasks(caps *sdk.ServerCapabilities) *sdk.ServerCapabilities {
	var own sdk.ServerCapabilities
	if caps != nil {
		own = *caps
	}
	own.Extensions = maps.Clone(own.Extensions)
	if own.Extensions == nil {
		own.Extensions = map[string]any{}
	}
	own.Extensions[TasksExtension] = map[string]any{}
	return &own
}

// advertised is an initialize result with 2025-11-25's tasks capability,
// which the SDK's ServerCapabilities does not have.
type advertised struct{ sdk.Result }

// serverTasksCapability is what the server supports of 2025-11-25's
// tasks: cancel and task-augmented tools/call (no tasks/list).
var serverTasksCapability = map[string]any{"cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}

func (a *advertised) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(a.Result)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return b, nil
	}
	var caps map[string]any
	if json.Unmarshal(m["capabilities"], &caps) != nil || caps == nil {
		caps = map[string]any{}
	}
	caps["tasks"] = serverTasksCapability
	if m["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// declaresTasks reports whether the session of req, on a protocol before
// 2026-07-28, declared tasks at initialization.
func declaresTasks(req sdk.Request) bool {
	ss, ok := req.GetSession().(*sdk.ServerSession)
	if !ok || ss.InitializeParams() == nil || ss.InitializeParams().ProtocolVersion >= newProtocol {
		return false
	}
	ext, core := tasksDeclared(ss.InitializeParams().Capabilities)
	return ext || core
}

// taskTools is a tools/list result whose run_chain declares
// execution.taskSupport "optional" (2025-11-25), for a client that
// declared tasks; the SDK's Tool has no such field.
type taskTools struct{ *sdk.ListToolsResult }

func (l *taskTools) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(l.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	var tools []map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || json.Unmarshal(m["tools"], &tools) != nil {
		return b, nil
	}
	for _, tl := range tools {
		if string(tl["name"]) == `"`+RunChainTool+`"` {
			tl["execution"] = json.RawMessage(`{"taskSupport":"optional"}`)
		}
	}
	if m["tools"], err = json.Marshal(tools); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}
