package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Go SDK decodes params into its own types and drops what they do
// not have: MCP 2025-11-25's `tasks` client capability (initialize) and
// the `task` param of tools/call. lift moves both where the SDK keeps
// them before it decodes the message: the capability into the
// capabilities' experimental map (coreTasksKey), the param into the
// params' _meta (taskParamKey). A client sending those keys itself
// declares the same thing; nothing else of a message changes.

// liftParams returns the params of a request to method with the dropped
// fields moved, and whether anything moved.
func liftParams(method string, params json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(params, []byte(`"task`)) {
		return params, false
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p == nil {
		return params, false
	}
	switch method {
	case "initialize":
		var caps map[string]json.RawMessage
		if json.Unmarshal(p["capabilities"], &caps) != nil || !present(caps["tasks"]) {
			return params, false
		}
		var exp map[string]json.RawMessage
		if present(caps["experimental"]) && json.Unmarshal(caps["experimental"], &exp) != nil {
			return params, false
		}
		if exp == nil {
			exp = map[string]json.RawMessage{}
		}
		exp[coreTasksKey] = caps["tasks"]
		caps["experimental"] = marshal(exp)
		p["capabilities"] = marshal(caps)
	case "tools/call":
		if !present(p["task"]) {
			return params, false
		}
		var meta map[string]json.RawMessage
		if present(p["_meta"]) && json.Unmarshal(p["_meta"], &meta) != nil {
			return params, false
		}
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta[taskParamKey] = p["task"]
		delete(p, "task")
		p["_meta"] = marshal(meta)
	default:
		return params, false
	}
	return marshal(p), true
}

func present(v json.RawMessage) bool {
	return len(v) > 0 && string(bytes.TrimSpace(v)) != "null"
}

// marshal encodes v without escaping <, > and & (json.Marshal writes
// each as six bytes, RawMessage values included): a lifted message is the
// size of the one that arrived, give or take the keys moved.
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// liftBody is liftParams for one JSON-RPC request's body (a batch, or
// anything else, is returned as it is).
func liftBody(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"task`)) {
		return body
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil || msg == nil {
		return body
	}
	var method string
	if json.Unmarshal(msg["method"], &method) != nil {
		return body
	}
	params, ok := liftParams(method, msg["params"])
	if !ok {
		return body
	}
	msg["params"] = params
	return marshal(msg)
}

// liftHTTP lifts the body of each POST (up to limit bytes; a longer body
// passes as it is) before h reads it.
func liftHTTP(h http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			h.ServeHTTP(w, r)
			return
		}
		head, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		switch {
		case err != nil:
			http.Error(w, "failed to read body", http.StatusBadRequest)
			return
		case int64(len(head)) > limit:
			r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
		default:
			head = liftBody(head)
			r.Body = io.NopCloser(bytes.NewReader(head))
			r.ContentLength = int64(len(head))
		}
		h.ServeHTTP(w, r)
	})
}

type readCloser struct {
	io.Reader
	io.Closer
}

// liftTransport lifts the requests a transport's connections read
// (stdio).
type liftTransport struct{ sdk.Transport }

func (t liftTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return liftConn{c}, nil
}

type liftConn struct{ sdk.Connection }

func (c liftConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		if params, moved := liftParams(req.Method, req.Params); moved {
			req.Params = params
		}
	}
	return msg, err
}
