package server

import (
	"encoding/json"
	"net/http"
)

// apiError is the body of every error response.
type apiError struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Line and Column locate an invalid_script error.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Decision is the first decision, for already_decided.
	Decision string `json:"decision,omitempty"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":{"reason":"internal_error","message":"encoding the response failed"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, code int, reason, msg string) {
	writeJSON(w, code, apiError{Error: errorBody{Reason: reason, Message: msg}})
}

func writeErrorBody(w http.ResponseWriter, code int, body errorBody) {
	writeJSON(w, code, apiError{Error: body})
}

// muxErrors turns the plain-text 404 and 405 answers of http.ServeMux into
// JSON errors.
type muxErrors struct {
	http.ResponseWriter
	wrote bool
}

func (m *muxErrors) WriteHeader(code int) {
	if m.wrote {
		return
	}
	m.wrote = true
	switch code {
	case http.StatusMethodNotAllowed:
		writeError(m.ResponseWriter, code, ReasonMethodNotAllowed, "this route does not take that method; see the Allow header")
	default:
		writeError(m.ResponseWriter, http.StatusNotFound, ReasonNotFound, "no such route; see docs/http-api.md")
	}
}

func (m *muxErrors) Write(b []byte) (int, error) {
	if !m.wrote {
		m.WriteHeader(http.StatusNotFound)
	}
	return len(b), nil // the mux's text body is dropped
}
