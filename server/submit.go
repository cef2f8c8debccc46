package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Mount serves h at pattern (e.g. "/mcp") beside the API: behind the same
// host and origin checks when the server has no API keys, and with keys
// only for a bearer key that may submit chains (401 otherwise, before the
// body is read); h finds the caller itself (service.Service.CallerOf). Call it before
// Serve.
//
// A request body is read whole first, within the API's body timeout and
// request size; the connection's read deadline is then lifted, so a long
// answer (a chain that runs for minutes) is not cut.
func (s *Server) Mount(pattern string, h http.Handler) {
	s.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.svc.NeedsKeys() {
			key, ok := bearer(r)
			if c, valid := s.svc.CallerOf(key); !ok || !valid || !c.MaySubmit() {
				w.Header().Set("WWW-Authenticate", `Bearer realm="airlock"`)
				writeError(w, http.StatusUnauthorized, ReasonUnauthenticated, "send an API key allowed to submit chains: Authorization: Bearer <key>")
				return
			}
		}
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.svc.MaxRequestBytes()))
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					writeError(w, http.StatusRequestEntityTooLarge, ReasonBodyTooLarge, fmt.Sprintf("the request body is above %d bytes", s.svc.MaxRequestBytes()))
					return
				}
				writeError(w, http.StatusRequestTimeout, ReasonBodyTimeout, "the request body did not arrive in time")
				return
			}
			_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
}
