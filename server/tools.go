package server

import (
	"io"
	"net/http"

	"github.com/airlockrt/airlock/service"
)

// tools handles GET /v1/tools: every tool, with its health for the
// caller's tenant.
func (s *Server) tools(w http.ResponseWriter, r *http.Request, c service.Caller) {
	writeJSON(w, http.StatusOK, map[string][]service.ToolInfo{"tools": s.svc.Tools(c)})
}

// toolsTS handles GET /v1/tools.d.ts.
func (s *Server) toolsTS(w http.ResponseWriter, r *http.Request, c service.Caller) {
	w.Header().Set("Content-Type", "application/typescript; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, s.svc.TypeScript())
}
