package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/airlockrt/airlock/service"
)

// Event names of GET /v1/chains/{id}/events: the service's.
const (
	EventToolCall         = service.EventToolCall
	EventToolResult       = service.EventToolResult
	EventApprovalRequired = service.EventApprovalRequired
	EventCallPending      = service.EventCallPending
	EventLog              = service.EventLog
	EventDone             = service.EventDone
	EventStatus           = service.EventStatus
)

// events handles GET /v1/chains/{id}/events: the chain's stream
// (service.Service.Follow) as Server-Sent Events. A Last-Event-ID header
// resumes after that event.
func (s *Server) events(w http.ResponseWriter, r *http.Request, c service.Caller) {
	cursor := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, ReasonInvalidRequest, "Last-Event-ID must be the id of an event of this stream")
			return
		}
		cursor = n
	}
	err := s.svc.Follow(r.Context(), c.Tenant, r.PathValue("id"), cursor, &sse{w: w, rc: http.NewResponseController(w)})
	switch {
	case errors.Is(err, service.ErrNotFound):
		chainNotFound(w, r.PathValue("id"))
	case errors.Is(err, service.ErrTooManyStreams):
		writeError(w, http.StatusTooManyRequests, ReasonTooManyStreams,
			"this tenant has as many event streams open on this server as server.max_streams_per_tenant allows; close one and retry")
	}
}

// sse writes a chain's stream as Server-Sent Events, flushing each.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (e *sse) Begin(id string) error {
	h := e.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	e.w.WriteHeader(http.StatusOK)
	if _, err := io.WriteString(e.w, ": chain "+id+"\n\n"); err != nil {
		return err
	}
	return e.rc.Flush()
}

func (e *sse) Event(seq int, name string, data []byte) error {
	if _, err := fmt.Fprintf(e.w, "id: %d\nevent: %s\ndata: %s\n\n", seq, name, data); err != nil {
		return err
	}
	return e.rc.Flush()
}

func (e *sse) KeepAlive() error {
	if _, err := io.WriteString(e.w, ": keep-alive\n\n"); err != nil {
		return err
	}
	return e.rc.Flush()
}
