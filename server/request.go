package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/airlockrt/airlock/internal/setting"
)

// SubmitRequest is the body of POST /v1/chains.
type SubmitRequest struct {
	// Script is the chain: JavaScript or TypeScript source, or for language
	// wasm the module's bytes in standard base64. Required.
	Script string `json:"script"`
	// Language is javascript (js, the default), typescript (ts) or wasm.
	Language string `json:"language,omitempty"`
	// Tenant, when set, must be the API key's tenant.
	Tenant string `json:"tenant,omitempty"`
	// Tools restricts the chain to these tools; each entry is a tool name or
	// a tool set ("demo", "http"). Default: every configured tool.
	Tools []string `json:"tools,omitempty"`
	// Policy sets the chain's own policy, by the keys of
	// invoker.PolicySettings (e.g. "max_tool_calls": 10, "call_timeout":
	// "5s"), within the operator's ceiling.
	Policy map[string]json.RawMessage `json:"policy,omitempty"`
	// Limits sets the chain's own sandbox limits, by the keys of
	// sandbox.LimitSettings (e.g. "memory": "32MiB"), within the operator's
	// ceiling.
	Limits map[string]json.RawMessage `json:"limits,omitempty"`
	// Guest chooses the script's clock and randomness, by the keys of
	// sandbox.GuestKeys: "clock" ("real" or "virtual") and "seed" (a whole
	// number that fixes Math.random and crypto). Default: the server's.
	Guest map[string]json.RawMessage `json:"guest,omitempty"`
	// Input is the input document of a wasm module; refused for scripts.
	Input json.RawMessage `json:"input,omitempty"`
}

// settings reads a request's "policy" or "limits" object into an owner: each
// value is a JSON number or string, written as the setting's kind, and must
// be positive (leave a key out to keep the server's value).
func settings(section string, raw map[string]json.RawMessage, set func(key, text string) error) *requestError {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var text string
		var n json.Number
		if err := json.Unmarshal(raw[k], &text); err != nil {
			if err := json.Unmarshal(raw[k], &n); err != nil {
				return badRequest(ReasonInvalidRequest, "%s.%s must be a number or a string such as \"30s\" or \"64MiB\"", section, clip(k))
			}
			text = n.String()
		}
		if strings.TrimSpace(text) == "0" {
			return badRequest(ReasonInvalidRequest, "%s.%s must be greater than zero; leave it out to keep the server's value", section, clip(k))
		}
		if err := set(k, text); err != nil {
			if errors.Is(err, setting.ErrUnknownKey) {
				return badRequest(ReasonUnknownField, "%s.%s is not a setting: %v", section, clip(k), err)
			}
			return badRequest(ReasonInvalidRequest, "%s.%s: %v", section, clip(k), err)
		}
	}
	return nil
}

// requestError is a 4xx answer found while reading a request.
type requestError struct {
	code int
	body errorBody
}

func (e *requestError) Error() string { return e.body.Message }

func badRequest(reason, format string, args ...any) *requestError {
	return &requestError{code: http.StatusBadRequest, body: errorBody{Reason: reason, Message: fmt.Sprintf(format, args...)}}
}

// decodeBody reads r's body, at most max bytes, as exactly one JSON object
// into v, rejecting unknown fields. A body must come with Content-Type:
// application/json: a browser cannot send that cross-site without a CORS
// preflight, which the server never grants.
func decodeBody(w http.ResponseWriter, r *http.Request, max int64, v any) *requestError {
	if ct := r.Header.Get("Content-Type"); ct != "" || r.ContentLength != 0 {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			msg := fmt.Sprintf("the body must be JSON: send Content-Type: application/json, not %q", clip(ct))
			if ct == "" {
				msg = "the body must be JSON: send Content-Type: application/json (it is required with every body)"
			}
			return &requestError{code: http.StatusUnsupportedMediaType, body: errorBody{Reason: ReasonUnsupportedMediaType, Message: msg}}
		}
	}
	body := http.MaxBytesReader(w, r.Body, max)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errTrailing
			var mbe *http.MaxBytesError
			if errors.As(terr, &mbe) {
				err = terr
			}
		}
	}
	if err == nil {
		// The body is in: lift the read deadline, so a synchronous chain or
		// an event stream is not cut off when it passes.
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		return nil
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &requestError{code: http.StatusRequestTimeout, body: errorBody{Reason: ReasonBodyTimeout,
			Message: "the request body did not arrive in time; send it at once"}}
	}
	var (
		mbe  *http.MaxBytesError
		syn  *json.SyntaxError
		typ  *json.UnmarshalTypeError
		msg  = err.Error()
		code = http.StatusBadRequest
	)
	switch {
	case errors.As(err, &mbe):
		code = http.StatusRequestEntityTooLarge
		return &requestError{code: code, body: errorBody{Reason: ReasonBodyTooLarge,
			Message: fmt.Sprintf("the body is larger than the server's limit of %d bytes", mbe.Limit)}}
	case errors.Is(err, io.EOF):
		return badRequest(ReasonMalformedJSON, "the body is empty; send one JSON object")
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, errTrailing):
		return badRequest(ReasonMalformedJSON, "the body is not one JSON object: %s", strings.TrimPrefix(msg, "json: "))
	case strings.Contains(msg, "unknown field"):
		return badRequest(ReasonUnknownField, "%s; see docs/http-api.md for the fields", strings.TrimPrefix(msg, "json: "))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return badRequest(ReasonMalformedJSON, "the body must be a JSON object")
		}
		return badRequest(ReasonInvalidRequest, "field %s must be %s", typ.Field, typeName(typ.Type.Kind().String()))
	}
	return badRequest(ReasonInvalidRequest, "%s", strings.TrimPrefix(msg, "json: "))
}

var errTrailing = errors.New("data after the JSON object")

func typeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "of another type"
}
