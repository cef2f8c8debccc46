package mcp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// Names of the tools the MCP server offers.
const (
	RunChainTool     = "run_chain"
	SearchToolsTool  = "search_tools"
	DescribeToolTool = "describe_tool"
)

// ArtifactScheme prefixes the resource URIs of artifacts:
// airlock://artifacts/REF, readable with resources/read by the tenant that
// owns them.
const ArtifactScheme = "airlock://artifacts/"

// Bounds of the server.
const (
	// DefaultMaxDescribed is how many tools run_chain's description
	// declares in full; above, it carries a one-line index and points to
	// search_tools and describe_tool.
	DefaultMaxDescribed = 30
	// MaxResourceBytes bounds one resources/read of an artifact.
	MaxResourceBytes = 8 << 20
	// maxLogBytes bounds the console output a run_chain result carries.
	maxLogBytes = 8 << 10
	// elicitTimeout bounds the wait for a user's answer through elicitation
	// (the call's own approval timeout ends it sooner).
	elicitTimeout = 10 * time.Minute
	// maxElicitArgs is the longest arguments an elicitation shows.
	maxElicitArgs = 4096
	// notifyTimeout bounds sending one progress notification.
	notifyTimeout = 5 * time.Second
	// MaxMessageBytes bounds one message read from a stdio client.
	MaxMessageBytes = 16 << 20
)

// ServerOptions configure an MCP server.
type ServerOptions struct {
	// Elicit asks a client that supports elicitation about its chains'
	// pending approvals, and decides them with its answers: by
	// elicitation/create during run_chain on protocol 2025-11-25 and
	// earlier, by input requests in run_chain's result and the answers in
	// its retry from 2026-07-28 (rounds.go). False: the calls wait for the
	// service's queue or fleet (the bounded wait applies).
	Elicit bool
	// Store serves resources/read of artifacts. Nil: no resource links.
	Store *blobstore.Store
	// MaxDescribed: see DefaultMaxDescribed.
	MaxDescribed int
	// Logger receives errors (never scripts, arguments or results).
	Logger *slog.Logger
	// Version is reported to clients.
	Version string
	// SessionTimeout closes an HTTP session idle this long. Default
	// DefaultSessionTimeout.
	SessionTimeout time.Duration
	// TaskAfter is how long run_chain waits for a chain of a client that
	// declared tasks before it answers with a task (at once when a call
	// waits for approval). Default DefaultTaskAfter (2s); config
	// server.mcp_task_after.
	TaskAfter time.Duration
	// Identity, for a client on stdio (airlock mcp), is the delegated
	// identity each of its chains acts for (docs/identity.md), asked at
	// each run_chain so that a host may refresh it. Over HTTP the identity
	// comes from each request's headers instead (HeaderSubjectToken).
	// Nil: none.
	Identity func() *service.SubmitIdentity
}

// DefaultSessionTimeout is how long an idle HTTP session is kept.
const DefaultSessionTimeout = 30 * time.Minute

// Server is airlock as an MCP server: run_chain, search_tools and
// describe_tool, and artifacts as resources.
type Server struct {
	svc  *service.Service
	opts ServerOptions
	log  *slog.Logger
	srv  *sdk.Server
	// rounds are the run_chain calls of new-protocol clients between
	// their rounds (rounds.go).
	rounds continuations
	// tasks counts the task chains each tenant runs here, waits its
	// waiting tasks/result requests (tasks.go).
	tasks, waits taskCounts
}

// NewServer builds the MCP face of svc, which runs the chains:
// validation, ceilings, profiles, concurrency and retention are the
// service's, as for every face. It starts nothing.
func NewServer(svc *service.Service, opts ServerOptions) (*Server, error) {
	if svc == nil {
		return nil, errors.New("mcp: a service.Service is required")
	}
	opts.MaxDescribed = cmp.Or(opts.MaxDescribed, DefaultMaxDescribed)
	opts.SessionTimeout = cmp.Or(opts.SessionTimeout, DefaultSessionTimeout)
	if opts.TaskAfter < 0 {
		return nil, fmt.Errorf("mcp: TaskAfter (%s) must not be negative", opts.TaskAfter)
	}
	opts.TaskAfter = cmp.Or(opts.TaskAfter, DefaultTaskAfter)
	s := &Server{svc: svc, opts: opts, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "airlock", Version: cmp.Or(opts.Version, "dev")}, &sdk.ServerOptions{
		Instructions: "airlock runs short JavaScript or TypeScript programs (chains) that call tools as `await tools.name(args)` in a sandbox, and returns their result. Write one chain that does the whole task instead of calling tools one by one.",
		Logger:       s.log,
	})
	s.addRunChain()
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:        SearchToolsTool,
		Description: "Search the tools a chain may call by words of their names and descriptions; returns names and one-line descriptions. Use describe_tool for a tool's TypeScript declaration.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.searchTools)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:        DescribeToolTool,
		Description: "The TypeScript declaration of one tool a chain may call: its arguments, result and guidance.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.describeTool)
	if opts.Store != nil {
		s.srv.AddResourceTemplate(&sdk.ResourceTemplate{
			URITemplate: ArtifactScheme + "{ref}", Name: "artifact",
			Description: "An artifact a chain produced (a large result or a media file), readable by its tenant while it lives.",
		}, s.readArtifact)
	}
	// run_chain's description is the caller's: the tools its chains may
	// call as they are now (MCP servers' tools come and go).
	s.srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			list, ok := res.(*sdk.ListToolsResult)
			if method != "tools/list" || err != nil || !ok {
				return res, err
			}
			c, cerr := s.caller(req.GetExtra())
			if cerr != nil {
				return res, err
			}
			tailored := *list
			tailored.Tools = slices.Clone(list.Tools)
			for i, tl := range tailored.Tools {
				if tl != nil && tl.Name == RunChainTool {
					own := *tl
					own.Description = s.runChainDescription(s.offered(c))
					tailored.Tools[i] = &own
				}
			}
			if declaresTasks(req) {
				return &taskTools{&tailored}, nil
			}
			return &tailored, nil
		}
	})
	s.addTaskMethods()
	s.srv.AddReceivingMiddleware(s.taskMiddleware)
	return s, nil
}

func ptr[T any](v T) *T { return &v }

// RunChainArgs are run_chain's arguments.
type RunChainArgs struct {
	Script   string `json:"script" jsonschema:"the chain: JavaScript or TypeScript; call tools as await tools.name(args) and return the answer"`
	Language string `json:"language,omitempty" jsonschema:"javascript (the default) or typescript"`
}

// ChainOutput is run_chain's structured result.
type ChainOutput struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// Value is the chain's result (status ok); a large one is an artifact
	// ref, also given as a resource link.
	Value  any    `json:"value,omitempty"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Logs is the chain's console output (the last 8 KiB).
	Logs  string `json:"logs,omitempty"`
	Calls int    `json:"calls"`
	// Files are the media files the chain's calls returned.
	Files []File `json:"files,omitempty"`
}

// File is a media file of a chain's result; Resource is its resource URI.
type File struct {
	Path     string `json:"path"`
	MIME     string `json:"mime"`
	Size     int64  `json:"size"`
	Resource string `json:"resource,omitempty"`
	Source   string `json:"source,omitempty"`
}

// addRunChain registers run_chain; tools/list gives each caller its own
// description.
func (s *Server) addRunChain() {
	in, _ := jsonschema.For[RunChainArgs](nil)
	in.Properties["language"].Enum = []any{"javascript", "typescript"}
	out, _ := jsonschema.For[ChainOutput](nil)
	// Any JSON value; written as an object schema, which every client
	// reads (a bare `true` schema is refused by some).
	out.Properties["value"] = &jsonschema.Schema{Description: "the chain's result, any JSON value"}
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:         RunChainTool,
		Description:  s.runChainDescription(func(i toolbox.Info) bool { return i.Kind == toolbox.KindLocal }),
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  &sdk.ToolAnnotations{Title: "Run a tool chain", OpenWorldHint: ptr(true)},
	}, s.runChain)
}

// runChainDescription declares the tools visible says a chain may call in
// full, or, when there are many, indexes them by name and description.
func (s *Server) runChainDescription(visible func(toolbox.Info) bool) string {
	var b strings.Builder
	b.WriteString("Run a JavaScript or TypeScript chain in airlock's sandbox and return its result. The script's top level may await; call tools as `await tools.name(args)` (each call is checked, budgeted and may need approval), combine their results in code, and `return` the answer. A failed call throws a ToolError with .reason. `await tools.$search(\"words\")` and `await tools.$describe(\"name\")` find tools from inside the chain.\n\n")
	box := s.svc.Toolbox().Clone()
	var local []toolbox.Info
	for _, e := range box.Entries() {
		if info := e.Info(); visible(info) {
			local = append(local, info)
		} else {
			box.Remove(info.Name)
		}
	}
	if len(local) == 0 {
		b.WriteString("No tools are available to this caller's chains.\n")
		return b.String()
	}
	if len(local) <= s.opts.MaxDescribed {
		b.WriteString("The tools, in TypeScript:\n\n```ts\n")
		b.WriteString(box.TypeScript())
		b.WriteString("```\n")
		return b.String()
	}
	fmt.Fprintf(&b, "There are %d tools; use search_tools and describe_tool for their declarations. Index:\n", len(local))
	for _, info := range local {
		fmt.Fprintf(&b, "- %s: %s\n", info.Name, info.Description)
	}
	return b.String()
}

// caller returns who sent req: the API key's caller over HTTP, the local
// caller over stdio.
func (s *Server) caller(extra *sdk.RequestExtra) (service.Caller, error) {
	if extra != nil && extra.TokenInfo != nil {
		if c, ok := extra.TokenInfo.Extra[callerKey].(service.Caller); ok {
			return c, nil
		}
		return service.Caller{}, errors.New("unauthenticated")
	}
	if s.svc.NeedsKeys() && extra != nil && extra.Header != nil {
		return service.Caller{}, errors.New("unauthenticated") // HTTP without a verified key
	}
	return s.svc.LocalCaller(), nil
}

// govern0 is the zero profile: no scopes granted, supervised, the
// default gate matrix.
var govern0 govern.Profile

// callerKey keys the caller in a TokenInfo's Extra.
const callerKey = "airlock.caller"

// visible reports whether c's chains may call the tool of info.
func visible(c service.Caller) func(toolbox.Info) bool {
	p := c.Profile
	return func(info toolbox.Info) bool {
		if info.Kind != toolbox.KindLocal {
			return false
		}
		if p == nil {
			return (&govern0).Callable(info)
		}
		if p.Tools != nil && !slices.Contains(p.Tools, info.Name) {
			return false
		}
		if p.Governance == nil {
			return (&govern0).Callable(info)
		}
		return p.Governance.Callable(info)
	}
}

// offered is visible less the tools resting as unavailable for c's
// tenant: a chain's call of one would be refused (tool_unavailable), so
// run_chain's description and search_tools leave it out until it
// recovers; describe_tool still declares it, with its health
// (chain.HealthNote).
func (s *Server) offered(c service.Caller) func(toolbox.Info) bool {
	vis := visible(c)
	return func(info toolbox.Info) bool {
		return vis(info) && s.svc.ToolHealth(c, info.Name).Status != govern.Unavailable
	}
}

func (s *Server) runChain(ctx context.Context, req *sdk.CallToolRequest, args RunChainArgs) (*sdk.CallToolResult, ChainOutput, error) {
	c, err := s.caller(req.Extra)
	if err != nil {
		return nil, ChainOutput{}, err
	}
	// Only a caller that may decide approvals is asked (a submit-only key
	// cannot approve its own calls, here as on the HTTP API), and only a
	// client that declared elicitation.
	if ttl, ok := taskMode(req); ok {
		return s.runTask(ctx, req, c, args, ttl)
	}
	asks := c.MayApprove() && s.opts.Elicit && canElicit(req)
	if asks && multiRound(req) {
		return s.runRounds(ctx, req, c, args)
	}
	if req.Params.RequestState != "" {
		return nil, ChainOutput{}, errors.New("run_chain: requestState is only for a client on protocol 2026-07-28 or later that answers elicitation input requests")
	}
	ss := req.Session
	progress, stopProgress := s.progress(ctx, ss, req.Params.GetProgressToken())
	// Elicitations end with the chain (an approval that expired meanwhile
	// needs no answer).
	running, stop := context.WithCancel(ctx)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		ended bool // no question starts once Submit returned
	)
	view, err := s.svc.Submit(ctx, c, &service.SubmitRequest{Script: args.Script, Language: args.Language, Identity: s.identity(req.Extra)}, service.SubmitOptions{Watch: func(ev service.Event) {
		progress(ev)
		if asks && ev.Name == service.EventApprovalRequired {
			mu.Lock()
			defer mu.Unlock()
			if !ended {
				wg.Add(1)
				go func() { defer wg.Done(); s.elicit(running, ss, c, ev.Data) }()
			}
		}
	}})
	mu.Lock()
	ended = true
	mu.Unlock()
	stop()
	stopProgress()
	wg.Wait()
	if err == nil && view.Status == string(chain.StatusParked) && asks {
		view = s.settleParked(ctx, ss, c, view)
	}
	return s.answer(view, err)
}

// progress returns a function that sends a chain's tool events to the
// client as progress notifications of token (none without a token), in
// order through one goroutine, so that a slow client delays
// notifications, not the chain; beyond the buffer they drop. stop ends it:
// what is left is sent within notifyTimeout, then dropped.
func (s *Server) progress(ctx context.Context, ss *sdk.ServerSession, token any) (send func(service.Event), stop func()) {
	if token == nil || ss == nil {
		return func(service.Event) {}, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	events := make(chan service.Event, 256)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n := 0.0
		for ev := range events {
			n++
			nctx, cancel := context.WithTimeout(ctx, notifyTimeout)
			_ = ss.NotifyProgress(nctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: progressText(ev)})
			cancel()
		}
	}()
	var mu sync.Mutex
	closed := false
	send = func(ev service.Event) {
		if ev.Name != service.EventToolCall && ev.Name != service.EventToolResult {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		select {
		case events <- ev:
		default:
		}
	}
	stop = func() {
		mu.Lock()
		if !closed {
			closed = true
			close(events)
		}
		mu.Unlock()
		t := time.AfterFunc(notifyTimeout, cancel)
		<-done
		t.Stop()
		cancel()
	}
	return send, stop
}

// answer is run_chain's result for a chain's view, or for a refused
// submission.
func (s *Server) answer(view service.ChainView, err error) (*sdk.CallToolResult, ChainOutput, error) {
	if err != nil {
		var se *service.SubmitError
		if errors.As(err, &se) {
			msg := se.Reason + ": " + se.Message
			if se.Line > 0 {
				msg = fmt.Sprintf("%s (line %d, column %d)", msg, se.Line, se.Column)
			}
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}, ChainOutput{}, nil
		}
		return nil, ChainOutput{}, err
	}
	out := chainOutput(view)
	text, _ := json.Marshal(out)
	res := &sdk.CallToolResult{IsError: out.Status != string(chain.StatusOK), Content: []sdk.Content{&sdk.TextContent{Text: string(text)}}}
	if s.opts.Store != nil && view.Result != nil {
		for _, l := range links(view.Result) {
			res.Content = append(res.Content, l)
		}
	}
	return res, out, nil
}

// canElicit reports whether the client that sent req declared the
// elicitation capability: in the request's own _meta on protocol
// 2026-07-28 and later, at initialization before.
func canElicit(req *sdk.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil
}

func progressText(ev service.Event) string {
	var e struct {
		Tool   string `json:"tool"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(ev.Data, &e)
	if ev.Name == "tool_call" {
		return "calling " + e.Tool
	}
	if e.Reason != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Tool, e.Status, e.Reason)
	}
	return e.Tool + ": " + e.Status
}

func chainOutput(v service.ChainView) ChainOutput {
	out := ChainOutput{ID: v.ID, Status: v.Status}
	r := v.Result
	if r == nil {
		return out
	}
	out.Reason, out.Error, out.Line, out.Column = r.Reason, r.Error, r.Line, r.Column
	if len(r.Value) > 0 {
		_ = json.Unmarshal(r.Value, &out.Value)
	}
	out.Calls = r.Stats.Calls
	for _, f := range r.Files {
		file := File{Path: f.Path, MIME: f.MIME, Size: f.Size, Source: f.Source}
		if f.Ref != "" {
			file.Resource = ArtifactScheme + f.Ref
		}
		out.Files = append(out.Files, file)
	}
	var logs []string
	size := 0
	for i := len(r.Logs) - 1; i >= 0 && size < maxLogBytes; i-- {
		logs = append(logs, r.Logs[i].Text)
		size += len(r.Logs[i].Text) + 1
	}
	slices.Reverse(logs)
	out.Logs = strings.Join(logs, "\n")
	if len(out.Logs) > maxLogBytes {
		out.Logs = "…" + out.Logs[len(out.Logs)-maxLogBytes:]
	}
	return out
}

// links are the resource links of a result: its value when it was stored
// as an artifact, and its files.
func links(r *chain.RunResult) []*sdk.ResourceLink {
	var out []*sdk.ResourceLink
	var final struct {
		Ref  string `json:"$artifact"`
		MIME string `json:"mime"`
		Size int64  `json:"size"`
	}
	if json.Unmarshal(r.Value, &final) == nil && final.Ref != "" {
		out = append(out, &sdk.ResourceLink{URI: ArtifactScheme + final.Ref, Name: "result", MIMEType: final.MIME,
			Size: ptr(final.Size), Description: "the chain's result, too large to inline"})
	}
	for _, f := range r.Files {
		if f.Ref != "" {
			out = append(out, &sdk.ResourceLink{URI: ArtifactScheme + f.Ref, Name: f.Path, MIMEType: f.MIME, Size: ptr(f.Size)})
		}
	}
	return out
}

// elicit asks the user about a pending approval and decides it with the
// answer; without an answer the request stays pending (the chain's bounded
// wait, and the HTTP approval queue, apply).
func (s *Server) elicit(ctx context.Context, ss *sdk.ServerSession, c service.Caller, data json.RawMessage) {
	var req approval.Request
	if json.Unmarshal(data, &req) != nil || req.ID == "" {
		return
	}
	d, ok := s.ask(ctx, ss, req)
	if !ok {
		return
	}
	if _, err := s.svc.Decide(ctx, c.Tenant, req.ID, service.Decision{Approve: d == invoker.Approved, ArgsHash: req.ArgsHash}); err != nil {
		s.log.Info("mcp: deciding the approval failed", "approval", req.ID, "err", err)
	}
}

// ask shows the user a pending request and returns the decision, or false
// when there is none to take: the arguments are too long to show whole
// (they are left to the queue or the API, where an approver reads them
// all), or the user did not answer.
func (s *Server) ask(ctx context.Context, ss *sdk.ServerSession, req approval.Request) (invoker.Decision, bool) {
	params, ok := s.question(req)
	if !ok {
		return invoker.Denied, false
	}
	ctx, cancel := context.WithTimeout(ctx, elicitTimeout)
	defer cancel()
	res, err := ss.Elicit(ctx, params)
	if err != nil {
		s.log.Info("mcp: elicitation did not answer; the approval stays pending", "approval", req.ID, "err", err)
		return invoker.Denied, false
	}
	return verdict(res), true
}

// question is the elicitation that asks about req, false when its
// arguments are too long to show whole: a person is never asked about
// part of them.
func (s *Server) question(req approval.Request) (*sdk.ElicitParams, bool) {
	if len(req.Args) == 0 || len(req.Args) > maxElicitArgs {
		s.log.Info("mcp: the arguments are too long to ask about; the approval stays pending", "approval", req.ID)
		return nil, false
	}
	return &sdk.ElicitParams{
		Message: prompt(req),
		RequestedSchema: &jsonschema.Schema{Type: "object", Required: []string{"approve"}, Properties: map[string]*jsonschema.Schema{
			"approve": {Type: "boolean", Title: "Approve", Description: "true runs the call with exactly these arguments; false denies it"},
		}},
	}, true
}

// prompt is the text a person reads about req: the tool, its risk and
// the whole arguments as internal/visible renders them (THREATS.md, row
// 6: what a person approves is what they see), their hash and the
// request's id.
func prompt(req approval.Request) string {
	where := ""
	if req.Line > 0 {
		where = fmt.Sprintf(" on line %d of its script", req.Line)
	}
	return fmt.Sprintf("A chain wants to call %s (risk %s)%s with these arguments:\n\n%s\n\n"+
		"Invisible, bidirectional and control characters are shown as \\u escapes and long runs of spaces as ⟨N spaces⟩. "+
		"Approval %s; the exact arguments have SHA-256 %s (GET /v1/approvals/%s shows them raw). Allow this call?",
		approval.Escape(req.Tool), approval.Escape(req.Risk.String()), where, req.Text(), approval.Escape(req.ID), req.ArgsHash, approval.Escape(req.ID))
}

// verdict is the decision an elicitation's answer makes: approve only for
// accept with approve true; anything else denies.
func verdict(res *sdk.ElicitResult) invoker.Decision {
	if res != nil && res.Action == "accept" {
		if v, ok := res.Content["approve"].(bool); ok && v {
			return invoker.Approved
		}
	}
	return invoker.Denied
}

// maxParkRounds bounds how often run_chain asks about a parked chain's
// calls and resumes it before it answers with the chain still parked.
const maxParkRounds = 16

// settleParked asks the user, by elicitation, about the calls a parked
// chain waits for, records the answers (approval.mode park) and resumes
// the chain in this process, as long as the user answers and the chain
// parks again. Without an answer the chain stays parked, for the API or
// another process to decide.
func (s *Server) settleParked(ctx context.Context, ss *sdk.ServerSession, c service.Caller, view service.ChainView) service.ChainView {
	for range maxParkRounds {
		if view.Status != string(chain.StatusParked) || ctx.Err() != nil {
			return view
		}
		decided := false
		for _, p := range view.Pending {
			req, err := s.svc.Approval(ctx, c.Tenant, p.ID)
			if err != nil {
				continue
			}
			d, ok := s.ask(ctx, ss, req)
			if !ok {
				continue
			}
			if _, err := s.svc.Decide(ctx, c.Tenant, p.ID, service.Decision{Approve: d == invoker.Approved, ArgsHash: req.ArgsHash, Hold: true}); err != nil {
				s.log.Info("mcp: deciding a parked approval failed", "approval", p.ID, "err", err)
				continue
			}
			decided = true
		}
		if !decided {
			return view
		}
		next, err := s.svc.Resume(ctx, c.Tenant, view.ID)
		if err != nil {
			// Another process resumed it first, or this one is busy: the
			// chain's current record says where it stands.
			s.log.Info("mcp: resuming a parked chain here failed", "chain", view.ID, "err", err)
			if v, err := s.svc.Chain(ctx, c.Tenant, view.ID); err == nil {
				return v
			}
			return view
		}
		view = next
	}
	return view
}

// SearchArgs and DescribeArgs are search_tools' and describe_tool's
// arguments.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"words to look for in tool names and descriptions"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many tools (default 10, at most 25)"`
}

type DescribeArgs struct {
	Name string `json:"name" jsonschema:"the tool's name, as search_tools lists it"`
}

// SearchOutput is search_tools' result.
type SearchOutput struct {
	Tools []chain.SearchHit `json:"tools"`
}

func (s *Server) searchTools(ctx context.Context, req *sdk.CallToolRequest, args SearchArgs) (*sdk.CallToolResult, SearchOutput, error) {
	c, err := s.caller(req.Extra)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	if len(args.Query) > 256 {
		return nil, SearchOutput{}, errors.New("the query is longer than 256 bytes")
	}
	limit := args.Limit
	if limit <= 0 {
		limit = 10
	}
	return nil, SearchOutput{Tools: chain.Search(s.svc.Toolbox(), s.offered(c), args.Query, min(limit, 25))}, nil
}

// DescribeOutput is describe_tool's result.
type DescribeOutput struct {
	Name        string `json:"name"`
	Declaration string `json:"declaration"`
}

func (s *Server) describeTool(ctx context.Context, req *sdk.CallToolRequest, args DescribeArgs) (*sdk.CallToolResult, DescribeOutput, error) {
	c, err := s.caller(req.Extra)
	if err != nil {
		return nil, DescribeOutput{}, err
	}
	decl, ok := chain.Describe(s.svc.Toolbox(), visible(c), args.Name)
	if !ok {
		return nil, DescribeOutput{}, fmt.Errorf("unknown tool %q; search_tools lists the tools a chain may call", clip(args.Name, 128))
	}
	decl = chain.HealthNote(s.svc.ToolHealth(c, args.Name)) + decl
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: decl}}}, DescribeOutput{Name: args.Name, Declaration: decl}, nil
}

// readArtifact serves resources/read of airlock://artifacts/REF for the
// caller's tenant; another tenant's ref reads as not found.
func (s *Server) readArtifact(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	c, err := s.caller(req.Extra)
	if err != nil {
		return nil, err
	}
	uri := req.Params.URI
	ref, ok := strings.CutPrefix(uri, ArtifactScheme)
	if !ok || ref == "" || strings.ContainsAny(ref, "/?#") {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	rc, attrs, err := s.opts.Store.Open(ctx, c.Tenant, ref)
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	defer rc.Close()
	if attrs.Size > MaxResourceBytes {
		return nil, fmt.Errorf("the artifact is %d bytes, above the %d a resources/read returns; GET /v1/artifacts/%s streams it", attrs.Size, MaxResourceBytes, ref)
	}
	data, err := io.ReadAll(io.LimitReader(rc, MaxResourceBytes+1))
	if err != nil || len(data) > MaxResourceBytes {
		return nil, errors.New("reading the artifact failed")
	}
	rcn := &sdk.ResourceContents{URI: uri, MIMEType: attrs.ContentType}
	if textual(attrs.ContentType) {
		rcn.Text = string(data)
	} else {
		rcn.Blob = data
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{rcn}}, nil
}

func textual(mime string) bool {
	return strings.HasPrefix(mime, "text/") || strings.HasPrefix(mime, "application/json")
}

// Handler serves MCP over streamable HTTP. With API keys on the API, every
// request needs one (Authorization: Bearer KEY, a key allowed to submit
// chains), and a session stays bound to the key that opened it. Mount it
// with server.Server.Mount.
func (s *Server) Handler() http.Handler {
	// The API's own Host and Origin checks (loopback names without keys)
	// run before; with keys, a proxy's Host is fine.
	sessions := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
		Logger: s.log, SessionTimeout: s.opts.SessionTimeout, DisableLocalhostProtection: true,
	})
	// Protocol 2026-07-28 has no sessions: each request carries its
	// version, client and capabilities, and the SDK serves it only on a
	// stateless handler. Every request is authenticated on its own, and a
	// run_chain's continuation is bound to its key (rounds.go). A client
	// that goes away cancels its call, and so its chain, as on a session.
	stateless := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
		Logger: s.log, Stateless: true, DisableLocalhostProtection: true, PropagateRequestCancellation: true,
	})
	// Tasks' fields the SDK drops are lifted first (lift.go); a body longer
	// than a submission may be passes as it is.
	h := liftHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= newProtocol {
			stateless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	}), 4*s.svc.MaxRequestBytes()+1<<20)
	if !s.svc.NeedsKeys() {
		return h
	}
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		c, ok := s.svc.CallerOf(token)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		sum := sha256.Sum256([]byte(token))
		return &auth.TokenInfo{UserID: "key:" + hex.EncodeToString(sum[:8]), Expiration: time.Now().Add(24 * time.Hour),
			Extra: map[string]any{callerKey: c}}, nil
	}
	inner := auth.RequireBearerToken(verify, nil)(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, valid := s.svc.CallerOf(key); !ok || !valid {
			w.Header().Set("WWW-Authenticate", `Bearer realm="airlock"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"reason":"unauthenticated","message":"send an API key allowed to submit chains: Authorization: Bearer <key>"}}`)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// ServeStdio serves MCP on in and out (airlock mcp) for the local caller
// until the client disconnects or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	return s.srv.Run(ctx, liftTransport{&sdk.IOTransport{Reader: in, Writer: out, MaxLineLength: MaxMessageBytes}})
}

// clip bounds text echoed in messages to n bytes.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
