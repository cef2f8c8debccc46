package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
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
	// Policy overrides the chain policy, within the operator's ceiling.
	Policy *PolicyOverride `json:"policy,omitempty"`
	// Limits overrides the sandbox limits, within the operator's ceiling.
	Limits *LimitsOverride `json:"limits,omitempty"`
	// Input is the input document of a wasm module; refused for scripts.
	Input json.RawMessage `json:"input,omitempty"`
}

// PolicyOverride holds the chain-policy fields a request may set. Absent
// fields keep the server's values.
type PolicyOverride struct {
	MaxToolCalls      *int          `json:"max_tool_calls,omitempty"`
	CallTimeout       *Duration     `json:"call_timeout,omitempty"`
	ApprovalTimeout   *Duration     `json:"approval_timeout,omitempty"`
	MaxRiskUnapproved *toolbox.Risk `json:"max_risk_unapproved,omitempty"`
}

// LimitsOverride holds the sandbox limits a request may set. Absent fields
// keep the server's values.
type LimitsOverride struct {
	Timeout        *Duration `json:"timeout,omitempty"`
	Memory         *Size     `json:"memory,omitempty"`
	MaxLogBytes    *Size     `json:"max_log_bytes,omitempty"`
	MaxResultBytes *Size     `json:"max_result_bytes,omitempty"`
}

// Duration is a positive duration written as a string such as "30s".
type Duration time.Duration

// UnmarshalJSON reads "30s", "1m30s" or "250ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"30s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("%q is not a positive duration (write e.g. \"30s\" or \"250ms\")", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes d as time.Duration's String.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Size is a positive number of bytes: a JSON integer, or a string with a
// unit such as "64MiB" (KiB, MiB, GiB; KB, MB, GB; B).
type Size int64

// UnmarshalJSON reads an integer or a string with a unit.
func (s *Size) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		if n <= 0 {
			return fmt.Errorf("%d is not a positive size", n)
		}
		*s = Size(n)
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return errors.New("a size is an integer number of bytes or a string such as \"64MiB\"")
	}
	t, mult := strings.TrimSpace(str), int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)/mult {
		return fmt.Errorf("%q is not a positive size (write e.g. 4096 or \"64MiB\")", str)
	}
	*s = Size(v * mult)
	return nil
}

// apply returns base with the override's fields set. An approval timeout
// that the new call timeout would no longer exceed, and that the request
// did not set, falls back to its default for that call timeout.
func (o *PolicyOverride) apply(base invoker.Policy) invoker.Policy {
	if o == nil {
		return base
	}
	p := base
	if o.MaxToolCalls != nil {
		p.MaxToolCalls = *o.MaxToolCalls
	}
	if o.CallTimeout != nil {
		p.CallTimeout = time.Duration(*o.CallTimeout)
		if o.ApprovalTimeout == nil && p.WithDefaults().ApprovalTimeout >= p.CallTimeout {
			p.ApprovalTimeout = 0
		}
	}
	if o.ApprovalTimeout != nil {
		p.ApprovalTimeout = time.Duration(*o.ApprovalTimeout)
	}
	if o.MaxRiskUnapproved != nil {
		p.MaxRiskUnapproved = *o.MaxRiskUnapproved
	}
	return p
}

func (o *LimitsOverride) apply(base sandbox.Limits) sandbox.Limits {
	if o == nil {
		return base
	}
	l := base
	if o.Timeout != nil {
		l.Timeout = time.Duration(*o.Timeout)
	}
	if o.Memory != nil {
		l.MemoryBytes = uint64(*o.Memory)
	}
	if o.MaxLogBytes != nil {
		l.MaxLogBytes = int(*o.MaxLogBytes)
	}
	if o.MaxResultBytes != nil {
		l.MaxResultBytes = int(*o.MaxResultBytes)
	}
	return l
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
		return nil
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
