package service

import (
	"context"
	"encoding/json"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// Event names of a chain's stream (Follow; GET /v1/chains/{id}/events).
const (
	EventToolCall         = "tool_call"
	EventToolResult       = "tool_result"
	EventApprovalRequired = "approval_required"
	// EventCallPending: a call of a caller tool waits for its answer; its
	// data is the CallView (with the arguments while it waits).
	EventCallPending = "call_pending"
	EventLog         = "log"
	EventDone        = "done"
	// EventStatus is sent, in a fleet, when a chain read from the shared
	// store changes status (running, parked, running again); its data is
	// the chain's view.
	EventStatus = "status"
	// EventCredentialRequired: a call of a tool that acts for the chain's
	// delegated identity was refused because that identity is missing or
	// its token was refused (credential_expired); the data
	// (CredentialRequiredEvent) names the tool and audience, never a
	// token. Hand the chain a fresh token with SetIdentity (POST
	// /v1/chains/{id}/identity), then retry the call.
	EventCredentialRequired = "credential_required"
)

// CredentialRequiredEvent is the data of a credential_required event.
type CredentialRequiredEvent struct {
	// Seq is the refused call's trace record number; for a call that
	// parked its chain (Parked), the call's number, which its pending
	// request has too (its record comes when it runs again).
	Seq  int    `json:"seq"`
	Tool string `json:"tool"`
	// Audience is the audience the tool needs a token for.
	Audience string `json:"audience"`
	// Reason is the call's: credential_expired (the token was refused)
	// or credential_unavailable (the chain has no identity).
	Reason string `json:"reason"`
	// Parked says the call parked its chain (approval.mode park) to wait
	// for the fresh identity: SetIdentity, on any process, resumes it and
	// runs the call again; the script sees no refusal.
	Parked bool `json:"parked,omitempty"`
}

// The governance lifecycle events of every call are streamed too, named
// and shaped as in docs/governance.md (invoker.EventKind.Name and
// invoker.Event.MarshalJSON): tool.before, policy.before, policy.deny,
// gate.required, tool_call.deduped and tool.after.

// ToolCallEvent is the data of a tool_call event: a call passed every gate
// and its tool starts.
type ToolCallEvent struct {
	Tool string       `json:"tool"`
	Risk toolbox.Risk `json:"risk"`
}

// ToolResultEvent is the data of a tool_result event: a call ended, whether
// it ran or was refused by a gate.
type ToolResultEvent struct {
	// Seq is the call's trace record number.
	Seq        int            `json:"seq"`
	Tool       string         `json:"tool"`
	Risk       toolbox.Risk   `json:"risk"`
	Status     session.Status `json:"status"`
	Reason     string         `json:"reason,omitempty"`
	DurationMS float64        `json:"duration_ms"`
}

// progress routes the invoker's ToolCall events to the chain's stream.
func (s *Service) progress(_ context.Context, ev invoker.Event) {
	s.watchCalls(ev)
	if ev.Kind != invoker.ToolCall {
		return
	}
	if rn := s.liveRun(ev.SessionID); rn != nil {
		rn.publish(EventToolCall, ToolCallEvent{Tool: ev.Tool, Risk: ev.Risk})
	}
}

// observer is what the server follows of each chain's calls: their events
// for the chain's stream. Metrics and tool spans come from the invoker's own
// hooks.
func (s *Service) observer() *invoker.Observer {
	return &invoker.Observer{Hooks: invoker.Hooks{OnToolEnd: s.toolEnd, OnEvent: s.lifecycle}, Progress: s.progress}
}

// lifecycle streams a call's governance lifecycle events; tool.call and
// tool.result are already the tool_call and tool_result events.
func (s *Service) lifecycle(_ context.Context, ev invoker.Event) {
	if ev.Kind == invoker.ToolCall || ev.Kind == invoker.ToolResult {
		return
	}
	if rn := s.liveRun(ev.SessionID); rn != nil {
		rn.publish(ev.Kind.Name(), ev)
		if ev.Kind == invoker.ApprovalParked && ev.Reason != "" {
			s.credentialRequired(rn, ev) // parked for a fresh credential
			// The stretch parks: an identity handed from now on waits
			// for its park and resumes the chain from it (SetIdentity).
			rn.mu.Lock()
			rn.credParking = true
			rn.mu.Unlock()
		}
	}
}

// toolEnd streams every finished call.
func (s *Service) toolEnd(_ context.Context, ev invoker.Event) {
	s.recordCall(ev)
	if rn := s.liveRun(ev.SessionID); rn != nil {
		rn.publish(EventToolResult, ToolResultEvent{
			Seq: ev.Seq, Tool: ev.Tool, Risk: ev.Risk, Status: ev.Status, Reason: ev.Reason,
			DurationMS: float64(ev.Duration.Microseconds()) / 1000,
		})
		s.credentialRequired(rn, ev)
	}
}

// approvalEvent streams approval_required to the chain that waits, and
// drops the request's arguments from the stream's history once it is
// decided or expired.
func (s *Service) approvalEvent(ev approval.Event) {
	rn := s.liveRun(ev.Request.SessionID)
	if rn == nil || rn.tenant != ev.Request.Tenant {
		return
	}
	if ev.Kind == approval.Pending {
		rn.publishApproval(ev.Request)
		return
	}
	rn.settleApproval(ev.Request.ID)
}

func (s *Service) liveRun(id string) *run {
	v, ok := s.live.Load(id)
	if !ok {
		return nil
	}
	return v.(*run)
}

// KeepAlive is how long a stream stays quiet before Follow calls its
// sink's KeepAlive.
const KeepAlive = 15 * time.Second

// EventSink receives a chain's stream from Follow.
type EventSink interface {
	// Begin is called once, when the chain was found, before any event.
	Begin(chainID string) error
	// Event receives one event; Seq numbers the events of the stream.
	Event(seq int, name string, data []byte) error
	// KeepAlive is called when nothing happened for KeepAlive.
	KeepAlive() error
}

// Follow streams the tenant's chain id to sink: its events after seq
// after (the most recent maxEvents kept), then live ones, then its log
// lines and done. A chain read from the fleet's store (parked, or running
// on another process) streams status events as it changes, then done.
// It returns ErrNotFound before calling sink for a chain the tenant does
// not have, ErrTooManyStreams before calling sink when the tenant has
// Options.MaxStreamsPerTenant streams open on this process, the first
// error sink returns, or nil once done was sent or ctx ended.
func (s *Service) Follow(ctx context.Context, tenant, id string, after int, sink EventSink) error {
	s.wmu.Lock()
	if s.streams[tenant] >= s.opts.MaxStreamsPerTenant {
		s.wmu.Unlock()
		return ErrTooManyStreams
	}
	s.streams[tenant]++
	s.wmu.Unlock()
	defer func() {
		s.wmu.Lock()
		if s.streams[tenant]--; s.streams[tenant] <= 0 {
			delete(s.streams, tenant)
		}
		s.wmu.Unlock()
	}()
	rn := s.lookup(tenant, id)
	if rn == nil || rn.parked() {
		if c, ok := s.storedChain(ctx, tenant, id); ok {
			if err := sink.Begin(c.ID); err != nil {
				return err
			}
			return s.followStored(ctx, c, after, sink)
		}
	}
	if rn == nil {
		return ErrNotFound
	}
	if err := sink.Begin(rn.id); err != nil {
		return err
	}
	tick := time.NewTicker(KeepAlive)
	defer tick.Stop()
	cursor := after
	for {
		evs, res, changed := rn.since(cursor)
		for _, e := range evs {
			if err := sink.Event(e.seq, e.name, e.data); err != nil {
				return err
			}
			cursor = e.seq
		}
		if res != nil {
			if res.Status == chain.StatusParked && s.opts.Fleet != nil {
				// The chain goes on from the store, here or elsewhere.
				if c, ok := s.storedChain(ctx, tenant, rn.id); ok {
					return s.followStored(ctx, c, cursor, sink)
				}
				return nil
			}
			return s.finalEvents(rn, cursor, sink)
		}
		select {
		case <-changed:
		case <-tick.C:
			if err := sink.KeepAlive(); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// finalEvents sends the log and done events of a finished chain that come
// after cursor. They are numbered after the chain's last tool or approval
// event.
func (s *Service) finalEvents(rn *run, cursor int, sink EventSink) error {
	rn.mu.Lock()
	seq := rn.nextSeq - 1
	rn.mu.Unlock()
	view := rn.view()
	for _, l := range view.Result.Logs {
		seq++
		if seq > cursor {
			if err := sendJSON(sink, seq, EventLog, l); err != nil {
				return err
			}
		}
	}
	seq++
	if seq > cursor {
		return sendJSON(sink, seq, EventDone, view)
	}
	return nil
}

func sendJSON(sink EventSink, seq int, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sink.Event(seq, name, data)
}
