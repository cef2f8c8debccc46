package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/json"
	"errors"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
)

// Multi-round-trip approvals (SEP-2322). From protocol 2026-07-28 a server
// may not send elicitation/create while it serves a request: a tool that
// needs the user's input answers with input requests, and the client calls
// it again with the responses. run_chain then works in rounds. The first
// call starts the chain in the background and answers, once the chain
// waits for approvals, with one elicitation per pending approval and a
// continuation token as requestState; the client's retry (same arguments,
// the token, the responses) decides them and waits again, for the chain's
// end or its next approvals. The chain, its approvals and the questions
// asked live in this process between rounds (a continuation), bound to
// the caller's tenant and key and to run_chain's arguments.

// newProtocol is the first protocol version without server-initiated
// requests during a call.
const newProtocol = "2026-07-28"

// Bounds of the rounds.
const (
	// maxRounds is how many times run_chain answers with input requests
	// before it waits for the chain without asking. The Go SDK's client
	// gives up after 10 tries of one call (9 rounds of input).
	maxRounds = 8
	// gatherWindow is how long a round waits, after a first approval is
	// pending, for others a chain's concurrent calls may add.
	gatherWindow = 100 * time.Millisecond
	// idleTimeout ends a continuation no retry came for: its chain, if
	// still running, is cancelled.
	idleTimeout = elicitTimeout
	// maxContinuations and maxTenantContinuations bound what waits for
	// retries, in all and per tenant.
	maxContinuations       = 256
	maxTenantContinuations = 32
)

// multiRound reports whether req's client is on a protocol that takes
// input requests in results instead of elicitation requests.
func multiRound(req *sdk.CallToolRequest) bool { return req.ProtocolVersion() >= newProtocol }

// continuation is one run_chain of a client on the new protocol, between
// and during its rounds.
type continuation struct {
	token  string   // requestState: 26 random base32 characters
	tenant string   // the caller's
	who    string   // the caller's key (its token info), "" for the local caller
	args   [32]byte // SHA-256 of run_chain's arguments

	mu       sync.Mutex
	cancel   context.CancelFunc // ends the chain's stretches
	chainID  string
	rounds   int
	inRound  bool
	idle     time.Time                   // when the last round ended
	asks     map[string]approval.Request // open questions by input request id
	asked    map[string]bool             // approval ids asked about (never twice)
	queued   []approval.Request          // approvals pending in the queue, not yet asked
	progress func(service.Event)         // the current round's notifications
	stretch  bool                        // a Submit or Resume runs
	view     service.ChainView           // where the chain stood when the stretch ended
	err      error                       // a refused submission
	changed  chan struct{}               // closed and replaced on every change
}

func (k *continuation) wakeLocked() {
	close(k.changed)
	k.changed = make(chan struct{})
}

// watch receives the chain's events while it runs in this process.
func (k *continuation) watch(ev service.Event) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ev.Name == service.EventApprovalRequired {
		var req approval.Request
		if json.Unmarshal(ev.Data, &req) == nil && req.ID != "" {
			k.queued = append(k.queued, req)
			k.wakeLocked()
		}
		return
	}
	if k.progress != nil {
		k.progress(ev)
	}
}

// stop cancels the chain's stretch, if one runs.
func (k *continuation) stop() {
	k.mu.Lock()
	cancel := k.cancel
	k.mu.Unlock()
	cancel()
}

// end records the end of a stretch.
func (k *continuation) end(view service.ChainView, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stretch, k.view, k.err = false, view, err
	if view.ID != "" {
		k.chainID = view.ID
	}
	k.wakeLocked()
}

// continuations holds a server's continuations.
type continuations struct {
	mu  sync.Mutex
	all map[string]*continuation
}

// add registers k, after dropping continuations idle past idleTimeout; it
// fails when k's tenant, or the server, has as many as it may keep.
func (cs *continuations) add(k *continuation) error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.all == nil {
		cs.all = map[string]*continuation{}
	}
	now := time.Now()
	tenant := 0
	for token, o := range cs.all {
		o.mu.Lock()
		stale := !o.inRound && now.Sub(o.idle) > idleTimeout
		o.mu.Unlock()
		if stale {
			o.stop()
			delete(cs.all, token)
			continue
		}
		if o.tenant == k.tenant {
			tenant++
		}
	}
	if tenant >= maxTenantContinuations || len(cs.all) >= maxContinuations {
		return errors.New("too many run_chain calls of this tenant wait for answers to approval questions; answer them, or retry once they expired")
	}
	cs.all[k.token] = k
	return nil
}

// take returns the continuation of token for the caller and arguments,
// marked as in a round; nil when there is none (unknown, expired, or
// another caller's or call's).
func (cs *continuations) take(token, tenant, who string, args [32]byte) *continuation {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	k := cs.all[token]
	if k == nil || k.tenant != tenant || subtle.ConstantTimeCompare([]byte(k.who), []byte(who)) != 1 || k.args != args {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.inRound || time.Since(k.idle) > idleTimeout {
		return nil
	}
	k.inRound = true
	return k
}

func (cs *continuations) remove(k *continuation) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.all[k.token] == k {
		delete(cs.all, k.token)
	}
}

// principal names the key that sent req ("" for the local caller).
func principal(req *sdk.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo.UserID
	}
	return ""
}

// runRounds is run_chain for a client on the new protocol that answers
// elicitation input requests.
func (s *Server) runRounds(ctx context.Context, req *sdk.CallToolRequest, c service.Caller, args RunChainArgs) (*sdk.CallToolResult, ChainOutput, error) {
	sum := sha256.Sum256(req.Params.Arguments)
	who := principal(req)
	send, stop := s.progress(ctx, req.Session, req.Params.GetProgressToken())
	defer stop()
	var k *continuation
	if req.Params.RequestState == "" {
		k = &continuation{token: newToken(), tenant: c.Tenant, who: who, args: sum, progress: send,
			asks: map[string]approval.Request{}, asked: map[string]bool{}, changed: make(chan struct{}), inRound: true, stretch: true}
		// The chain outlives this call (it waits for the next round), not
		// the continuation.
		chainCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		k.cancel = cancel
		ident := s.identity(req.Extra)
		if err := s.rounds.add(k); err != nil {
			cancel()
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "busy: " + err.Error()}}}, ChainOutput{}, nil
		}
		go func() {
			view, err := s.svc.Submit(chainCtx, c, &service.SubmitRequest{Script: args.Script, Language: args.Language, Identity: ident}, service.SubmitOptions{Watch: k.watch})
			k.end(view, err)
		}()
	} else {
		k = s.rounds.take(req.Params.RequestState, c.Tenant, who, sum)
		if k == nil {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "continuation_unknown: this requestState is not one this server gave this API key for these arguments, or it expired (" +
				idleTimeout.String() + " without a retry) or was answered already; the chain's approvals can still be decided with POST /v1/approvals/{id}, and GET /v1/chains lists the chain"}}}, ChainOutput{}, nil
		}
		k.mu.Lock()
		k.progress = send
		k.mu.Unlock()
		s.decideRound(ctx, c, k, req.Params.InputResponses)
	}
	return s.round(ctx, c, k)
}

// decideRound decides the approvals the responses answer (each question
// once; a missing answer leaves its approval pending) and, for a parked
// chain with a decision, resumes it in the background.
func (s *Server) decideRound(ctx context.Context, c service.Caller, k *continuation, responses sdk.InputResponseMap) {
	k.mu.Lock()
	asks := k.asks
	k.asks = map[string]approval.Request{}
	parked := !k.stretch && k.view.Status == string(chain.StatusParked)
	id := k.chainID
	k.mu.Unlock()
	decided := false
	for qid, a := range asks {
		res, ok := responses[qid].(*sdk.ElicitResult)
		if !ok {
			continue // unanswered: it stays pending, for the API
		}
		d := service.Decision{Approve: verdict(res) == invoker.Approved, ArgsHash: a.ArgsHash, Hold: parked}
		if _, err := s.svc.Decide(ctx, c.Tenant, a.ID, d); err != nil {
			s.log.Info("mcp: deciding an approval failed", "approval", a.ID, "err", err)
			continue
		}
		decided = true
	}
	if !parked || !decided {
		return
	}
	// The resumed stretch ends with the continuation, as the first does.
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	k.mu.Lock()
	k.stretch = true
	prev := k.cancel
	k.cancel = func() { prev(); cancel() }
	k.mu.Unlock()
	go func() {
		defer cancel()
		ctx := rctx
		view, err := s.svc.Resume(ctx, c.Tenant, id)
		if err != nil {
			// Another process resumed it first, or this one is busy: the
			// chain's current record says where it stands.
			s.log.Info("mcp: resuming a parked chain here failed", "chain", id, "err", err)
			if view, err = s.svc.Chain(ctx, c.Tenant, id); err != nil {
				k.end(service.ChainView{ID: id, Status: string(chain.StatusParked)}, nil)
				return
			}
		}
		k.end(view, nil)
	}()
}

// round waits until the chain ends, or waits for approvals a person can
// be asked about, and answers with its result or with the questions. The
// chain's tool calls during the round are progress notifications of the
// round's call (those between rounds are not sent).
// When the call's context ends first, the chain is cancelled, as a
// synchronous run_chain's would be.
func (s *Server) round(ctx context.Context, c service.Caller, k *continuation) (*sdk.CallToolResult, ChainOutput, error) {
	k.mu.Lock()
	k.rounds++
	asking := k.rounds <= maxRounds
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.progress, k.inRound, k.idle = nil, false, time.Now()
		k.mu.Unlock()
	}()
	var gather <-chan time.Time
	for {
		k.mu.Lock()
		changed := k.changed
		if !k.stretch {
			view, err := k.view, k.err
			var questions sdk.InputRequestMap
			if err == nil && view.Status == string(chain.StatusParked) && asking {
				k.mu.Unlock()
				pending := s.parkedRequests(ctx, c, view)
				k.mu.Lock()
				questions = s.questionsLocked(k, pending)
			}
			k.mu.Unlock()
			if len(questions) > 0 {
				return &sdk.CallToolResult{InputRequests: questions, RequestState: k.token}, ChainOutput{}, nil
			}
			s.rounds.remove(k)
			return s.answer(view, err)
		}
		if asking && len(k.queued) > 0 && gather == nil {
			gather = time.After(gatherWindow)
		}
		k.mu.Unlock()
		select {
		case <-changed:
		case <-gather:
			k.mu.Lock()
			queued := k.queued
			k.queued = nil
			k.mu.Unlock()
			// Only what is still pending (the API may have decided some).
			var pending []approval.Request
			for _, req := range queued {
				if _, err := s.svc.Approval(ctx, c.Tenant, req.ID); err == nil {
					pending = append(pending, req)
				}
			}
			k.mu.Lock()
			questions := s.questionsLocked(k, pending)
			k.mu.Unlock()
			if len(questions) > 0 {
				return &sdk.CallToolResult{InputRequests: questions, RequestState: k.token}, ChainOutput{}, nil
			}
			gather = nil // none could be asked about: wait for the chain
		case <-ctx.Done():
			k.stop()
			s.rounds.remove(k)
			return nil, ChainOutput{}, ctx.Err()
		}
	}
}

// parkedRequests are the pending requests, with their arguments, of a
// parked chain.
func (s *Server) parkedRequests(ctx context.Context, c service.Caller, view service.ChainView) []approval.Request {
	var out []approval.Request
	for _, p := range view.Pending {
		if req, err := s.svc.Approval(ctx, c.Tenant, p.ID); err == nil {
			out = append(out, req)
		}
	}
	return out
}

// questionsLocked turns the pending requests not asked about before into
// elicitation input requests, each keyed by an id bound to the request's
// id and arguments hash (k.asks). A request whose arguments are too long
// to show whole is not asked about: it stays pending, for the API.
func (s *Server) questionsLocked(k *continuation, pending []approval.Request) sdk.InputRequestMap {
	questions := sdk.InputRequestMap{}
	for _, req := range pending {
		if k.asked[req.ID] {
			continue
		}
		k.asked[req.ID] = true
		q, ok := s.question(req)
		if !ok {
			continue
		}
		qid := req.ID + "." + req.ArgsHash[:min(len(req.ArgsHash), 16)]
		k.asks[qid] = req
		questions[qid] = q
	}
	return questions
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])
}
