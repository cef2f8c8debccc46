package server

import (
	"io"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/airlockrt/airlock/toolbox"
)

// ToolInfo describes one tool for GET /v1/tools and `airlock tools --json`.
type ToolInfo struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Risk        toolbox.Risk `json:"risk"`
	// Kind is local, hosted, provider_defined or chain; only local tools are
	// callable from a chain.
	Kind         string             `json:"kind"`
	InputSchema  *jsonschema.Schema `json:"input_schema,omitempty"`
	OutputSchema *jsonschema.Schema `json:"output_schema,omitempty"`
}

// DescribeTools lists box's tools in registration order.
func DescribeTools(box *toolbox.Toolbox) []ToolInfo {
	out := []ToolInfo{}
	for _, e := range box.Entries() {
		info := e.Info()
		out = append(out, ToolInfo{
			Name: info.Name, Description: info.Description, Risk: info.Risk, Kind: info.Kind.String(),
			InputSchema: info.InputSchema, OutputSchema: info.OutputSchema,
		})
	}
	return out
}

func (s *Server) tools(w http.ResponseWriter, r *http.Request, tenant string) {
	writeJSON(w, http.StatusOK, map[string][]ToolInfo{"tools": DescribeTools(s.box)})
}

func (s *Server) toolsTS(w http.ResponseWriter, r *http.Request, tenant string) {
	w.Header().Set("Content-Type", "application/typescript; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, s.box.TypeScript())
}
