package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// Event names of GET /v1/chains/{id}/events.
const (
	EventToolCall         = "tool_call"
	EventToolResult       = "tool_result"
	EventApprovalRequired = "approval_required"
	EventLog              = "log"
	EventDone             = "done"
	// EventStatus is sent, in a fleet, when a chain read from the shared
	// store changes status (running, parked, running again); its data is
	// the chain's view.
	EventStatus = "status"
)

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
func (s *Server) progress(_ context.Context, ev invoker.Event) {
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
func (s *Server) observer() *invoker.Observer {
	return &invoker.Observer{Hooks: invoker.Hooks{OnToolEnd: s.toolEnd, OnEvent: s.lifecycle}, Progress: s.progress}
}

// lifecycle streams a call's governance lifecycle events; tool.call and
// tool.result are already the tool_call and tool_result events.
func (s *Server) lifecycle(_ context.Context, ev invoker.Event) {
	if ev.Kind == invoker.ToolCall || ev.Kind == invoker.ToolResult {
		return
	}
	if rn := s.liveRun(ev.SessionID); rn != nil {
		rn.publish(ev.Kind.Name(), ev)
	}
}

// toolEnd streams every finished call.
func (s *Server) toolEnd(_ context.Context, ev invoker.Event) {
	s.recordCall(ev)
	if rn := s.liveRun(ev.SessionID); rn != nil {
		rn.publish(EventToolResult, ToolResultEvent{
			Seq: ev.Seq, Tool: ev.Tool, Risk: ev.Risk, Status: ev.Status, Reason: ev.Reason,
			DurationMS: float64(ev.Duration.Microseconds()) / 1000,
		})
	}
}

// approvalEvent streams approval_required to the chain that waits, and
// drops the request's arguments from the stream's history once it is
// decided or expired.
func (s *Server) approvalEvent(ev approval.Event) {
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

func (s *Server) liveRun(id string) *run {
	v, ok := s.live.Load(id)
	if !ok {
		return nil
	}
	return v.(*run)
}

// keepAlive is the interval of comment lines on an idle stream.
const keepAlive = 15 * time.Second

// events handles GET /v1/chains/{id}/events: the chain's events so far
// (the most recent maxEvents), then live ones, then its log lines and done.
// A Last-Event-ID header resumes after that event.
func (s *Server) events(w http.ResponseWriter, r *http.Request, tenant string) {
	rn := s.lookup(tenant, r.PathValue("id"))
	if rn == nil || rn.parked() {
		if c, ok := s.storedChain(r.Context(), tenant, r.PathValue("id")); ok {
			s.storedEvents(w, r, c, 0)
			return
		}
	}
	if rn == nil {
		chainNotFound(w, r.PathValue("id"))
		return
	}
	cursor := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, ReasonInvalidRequest, "Last-Event-ID must be the id of an event of this stream")
			return
		}
		cursor = n
	}
	rc := http.NewResponseController(w)
	if !startStream(w, rn.id) {
		return
	}
	_ = rc.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		evs, res, changed := rn.since(cursor)
		for _, e := range evs {
			if writeEvent(w, e.seq, e.name, e.data) != nil {
				return
			}
			cursor = e.seq
		}
		if res != nil {
			if res.Status == chain.StatusParked && s.opts.Fleet != nil {
				// The chain goes on from the store, here or elsewhere.
				if c, ok := s.storedChain(r.Context(), tenant, rn.id); ok {
					s.followStored(w, r, c, cursor)
				}
				return
			}
			s.finalEvents(w, rn, cursor)
			_ = rc.Flush()
			return
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-changed:
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// startStream answers with the headers of chain id's event stream and its
// first comment; false when the client is gone.
func startStream(w http.ResponseWriter, id string) bool {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, err := io.WriteString(w, ": chain "+id+"\n\n")
	return err == nil
}

// finalEvents writes the log and done events of a finished chain that
// come after cursor. They are numbered after the chain's last tool or
// approval event.
func (s *Server) finalEvents(w io.Writer, rn *run, cursor int) {
	rn.mu.Lock()
	seq := rn.nextSeq - 1
	rn.mu.Unlock()
	view := rn.view()
	for _, l := range view.Result.Logs {
		seq++
		if seq > cursor {
			if writeEventJSON(w, seq, EventLog, l) != nil {
				return
			}
		}
	}
	seq++
	if seq > cursor {
		_ = writeEventJSON(w, seq, EventDone, view)
	}
}

func writeEventJSON(w io.Writer, seq int, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeEvent(w, seq, name, data)
}

func writeEvent(w io.Writer, seq int, name string, data []byte) error {
	_, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", seq, name, data)
	return err
}
