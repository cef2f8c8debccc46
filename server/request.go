package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"
)

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
