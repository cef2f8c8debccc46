package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/service"
)

// The OpenAPI check: every answer the server gives in the tests of this
// file — its status for the route and method, its content type, its JSON
// body, and the data of every Server-Sent Event by the event's name
// (x-sse-events) — is validated against docs/openapi.yaml. The schemas
// are JSON Schema 2020-12 (OpenAPI 3.1), validated with jsonschema-go.

// apiSpec is docs/openapi.yaml, ready to validate answers.
type apiSpec struct {
	doc   map[string]any
	defs  map[string]any // components.schemas, their refs rewritten to #/$defs/
	paths []specPath

	mu     sync.Mutex
	cached map[string]*jsonschema.Resolved
}

type specPath struct {
	template string
	re       *regexp.Regexp
	item     map[string]any
}

func loadSpec(t *testing.T) *apiSpec {
	t.Helper()
	b, err := os.ReadFile("../docs/openapi.yaml")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(b, &doc))
	sp := &apiSpec{doc: doc, cached: map[string]*jsonschema.Resolved{}}
	schemas := dig(doc, "components", "schemas").(map[string]any)
	sp.defs = rewriteRefs(schemas).(map[string]any)
	for tmpl, item := range doc["paths"].(map[string]any) {
		pat := regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(tmpl), `[^/]+`)
		sp.paths = append(sp.paths, specPath{template: tmpl, re: regexp.MustCompile("^" + pat + "$"), item: item.(map[string]any)})
	}
	// Literal paths before templates.
	sort.Slice(sp.paths, func(i, j int) bool {
		return strings.Count(sp.paths[i].template, "{") < strings.Count(sp.paths[j].template, "{")
	})
	return sp
}

// dig follows keys through nested maps; nil when one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// rewriteRefs copies v with every "#/components/schemas/X" ref made
// "#/$defs/X", and the OpenAPI extensions (x-…) dropped.
func rewriteRefs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if strings.HasPrefix(k, "x-") {
				continue
			}
			if s, ok := x.(string); ok && k == "$ref" {
				out[k] = strings.Replace(s, "#/components/schemas/", "#/$defs/", 1)
				continue
			}
			out[k] = rewriteRefs(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = rewriteRefs(x)
		}
		return out
	}
	return v
}

// validate checks the JSON data against schema (a schema of the spec, as
// parsed from the YAML).
func (sp *apiSpec) validate(schema any, data []byte) error {
	root := rewriteRefs(schema).(map[string]any)
	root["$defs"] = sp.defs
	key, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	sp.mu.Lock()
	rs, ok := sp.cached[string(key)]
	sp.mu.Unlock()
	if !ok {
		js, err := json.Marshal(root)
		if err != nil {
			return err
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(js, &s); err != nil {
			return fmt.Errorf("the schema %s: %w", key, err)
		}
		if rs, err = s.Resolve(nil); err != nil {
			return fmt.Errorf("resolving the schema %s: %w", key, err)
		}
		sp.mu.Lock()
		sp.cached[string(key)] = rs
		sp.mu.Unlock()
	}
	var inst any
	if err := json.Unmarshal(data, &inst); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return rs.Validate(inst)
}

// route returns the spec's path template for an URL path.
func (sp *apiSpec) route(path string) (specPath, bool) {
	for _, p := range sp.paths {
		if p.re.MatchString(path) {
			return p, true
		}
	}
	return specPath{}, false
}

// response returns the spec's response for the path item's method and
// status, following a ref to components.responses.
func (sp *apiSpec) response(item map[string]any, method string, code int) (map[string]any, bool) {
	r, ok := dig(item, strings.ToLower(method), "responses", strconv.Itoa(code)).(map[string]any)
	if !ok {
		return nil, false
	}
	if ref, ok := r["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/responses/")
		r, ok = dig(sp.doc, "components", "responses", name).(map[string]any)
		if !ok {
			return nil, false
		}
	}
	return r, true
}

// apiCheck validates every answer of the servers it wraps.
type apiCheck struct {
	spec *apiSpec

	mu       sync.Mutex
	problems []string
	answers  map[string]int // "METHOD template status" → count
	events   map[string]int // event name → count
}

// newAPICheck returns a check whose problems fail t once the servers it
// wraps are closed: register it before the envs (t.Cleanup runs last
// first).
func newAPICheck(t *testing.T) *apiCheck {
	c := &apiCheck{spec: loadSpec(t), answers: map[string]int{}, events: map[string]int{}}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, p := range c.problems {
			t.Errorf("docs/openapi.yaml does not describe an answer: %s", p)
		}
	})
	return c
}

func (c *apiCheck) problem(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// wrap is setup.Wrap.
func (c *apiCheck) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.code == 0 {
			rec.code = http.StatusOK
		}
		c.check(r, rec.code, rec.Header().Get("Content-Type"), rec.body.Bytes())
	})
}

// recorder keeps a copy of an answer; Unwrap lets http.ResponseController
// flush and set deadlines on the connection.
type recorder struct {
	http.ResponseWriter
	code int
	body bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (c *apiCheck) check(r *http.Request, code int, ctype string, body []byte) {
	what := fmt.Sprintf("%s %s → %d", r.Method, r.URL.Path, code)
	errSchema := map[string]any{"$ref": "#/components/schemas/Error"}
	route, ok := c.spec.route(r.URL.Path)
	if !ok || route.item[strings.ToLower(r.Method)] == nil {
		// No such route (404 not_found) or method (405), or a request
		// refused before routing (403 forbidden_host): the Error shape.
		c.count(r.Method+" (unrouted) "+strconv.Itoa(code), "")
		if code != http.StatusNotFound && code != http.StatusMethodNotAllowed && code != http.StatusForbidden {
			c.problem("%s: an unrouted request answered %d", what, code)
		}
		if err := c.spec.validate(errSchema, body); err != nil {
			c.problem("%s: %v\n%s", what, err, clipBody(body))
		}
		return
	}
	c.count(r.Method+" "+route.template+" "+strconv.Itoa(code), "")
	resp, ok := c.spec.response(route.item, r.Method, code)
	if !ok {
		c.problem("%s: status %d is not documented for %s %s\n%s", what, code, r.Method, route.template, clipBody(body))
		return
	}
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		if len(body) > 0 {
			c.problem("%s: a body where the spec has none\n%s", what, clipBody(body))
		}
		return
	}
	mt, _, _ := mime.ParseMediaType(ctype)
	media, ok := content[mt].(map[string]any)
	if !ok {
		media, ok = content["*/*"].(map[string]any)
	}
	if !ok {
		c.problem("%s: content type %q is not documented (%v)", what, ctype, slices.Sorted(mapsKeys(content)))
		return
	}
	switch mt {
	case "application/json":
		if err := c.spec.validate(media["schema"], body); err != nil {
			c.problem("%s: %v\n%s", what, err, clipBody(body))
		}
	case "text/event-stream":
		if events, ok := media["x-sse-events"].(map[string]any); ok {
			c.checkEvents(what, events, body)
		}
	}
}

func (c *apiCheck) checkEvents(what string, schemas map[string]any, stream []byte) {
	for _, block := range strings.Split(string(stream), "\n\n") {
		var name, data string
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data = line[len("data: "):]
			}
		}
		if name == "" {
			continue // a comment
		}
		c.count("", name)
		schema, ok := schemas[name]
		if !ok {
			c.problem("%s: event %q is not documented (x-sse-events)\n%s", what, name, clipBody([]byte(data)))
			continue
		}
		if err := c.spec.validate(schema, []byte(data)); err != nil {
			c.problem("%s: event %s: %v\n%s", what, name, err, clipBody([]byte(data)))
		}
	}
}

func (c *apiCheck) count(answer, event string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if answer != "" {
		c.answers[answer]++
	}
	if event != "" {
		c.events[event]++
	}
}

// seen returns the answers and events checked so far.
func (c *apiCheck) seen() (answers, events []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(mapsKeys(c.answers)), slices.Sorted(mapsKeys(c.events))
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func clipBody(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// TestAPICheckCatches: the check itself finds an answer that breaks the
// spec, an undocumented status and an undocumented event.
func TestAPICheckCatches(t *testing.T) {
	c := &apiCheck{spec: loadSpec(t), answers: map[string]int{}, events: map[string]int{}}
	get := httptestRequest("GET", "/v1/chains/ch_x")
	c.check(get, http.StatusOK, "application/json", []byte(`{"id":"ch_x","tenant":"a","status":"ok","language":"javascript","created":"2026-01-01T00:00:00Z",
		"result":{"id":"ch_x","status":"ok","logs":[],"trace":[],"files":null,"artifacts":[],"stats":{}}}`))
	c.check(get, http.StatusTeapot, "application/json", []byte(`{}`))
	c.check(httptestRequest("GET", "/v1/chains/ch_x/events"), http.StatusOK, "text/event-stream",
		[]byte("id: 1\nevent: tool_result\ndata: {\"seq\":1,\"tool\":\"t\",\"risk\":\"SAFE\",\"status\":\"stalled\",\"duration_ms\":1}\n\nid: 2\nevent: surprise\ndata: {}\n\n"))
	require.Len(t, c.problems, 4, "%s", strings.Join(c.problems, "\n"))
	require.Contains(t, c.problems[0], "files")
	require.Contains(t, c.problems[1], "not documented")
	require.Contains(t, c.problems[2], "tool_result")
	require.Contains(t, c.problems[3], `"surprise"`)
}

func httptestRequest(method, path string) *http.Request {
	r, _ := http.NewRequest(method, "http://127.0.0.1"+path, nil)
	return r
}

// Keys of TestAPIMatchesOpenAPI beside keyAcme and keyGlobex.
const (
	keySubmit   = "acme-submit-0123456789abcdef"
	keyApprover = "acme-approver-0123456789abcdef"
)

// TestAPIMatchesOpenAPI drives the server through every kind of answer it
// gives and checks each against docs/openapi.yaml.
func TestAPIMatchesOpenAPI(t *testing.T) {
	check := newAPICheck(t)
	once, err := govern.CallLimit("kv_get", 1)
	require.NoError(t, err)
	e := newEnv(t, func(o *setup) {
		o.Wrap = check.wrap
		o.MaxConcurrentChains = 2
		// globex's chains may call kv_get once: a second call is refused
		// by a call policy (policy.deny).
		o.Profile = func(key string) *service.Profile {
			if key == keyGlobex {
				return &service.Profile{Name: "once", Governance: &govern.Profile{Policies: []govern.CallPolicy{once}}}
			}
			return nil
		}
		o.Authenticate = func(key string) (string, bool) {
			switch key {
			case keyAcme, keySubmit, keyApprover:
				return "acme", true
			case keyGlobex:
				return "globex", true
			}
			return "", false
		}
		o.KeyRole = func(key string) service.Role {
			switch key {
			case keySubmit:
				return service.RoleSubmit
			case keyApprover:
				return service.RoleApprover
			}
			return service.RoleAll
		}
	})
	e.srv.Mount("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) }))
	code := func(want int, method, path, key string, body any) reply {
		t.Helper()
		r := e.do(t, method, path, key, body)
		require.Equal(t, want, r.code, "%s %s: %s", method, path, r.body)
		return r
	}

	// Operations, tools.
	code(http.StatusOK, "GET", "/healthz", "", nil)
	code(http.StatusOK, "GET", "/readyz", "", nil)
	code(http.StatusOK, "GET", "/metrics", keyAcme, nil)
	code(http.StatusUnauthorized, "GET", "/metrics", "", nil)
	code(http.StatusOK, "GET", "/v1/tools", keyAcme, nil)
	code(http.StatusOK, "GET", "/v1/tools.d.ts", keyAcme, nil)

	// Chains that end every way, each streamed after it ended.
	for _, req := range []map[string]any{
		{"script": `console.log("hi"); console.warn("careful");
			const csv = await tools.make_csv({rows: 2000, seed: 1});
			const chart = await tools.render_chart({values: [1, 2, 3]});
			return {csv: csv.$artifact ?? null, n: 1};`},
		{"script": `throw new Error("no")`},
		{"script": `while (true) {}`, "limits": map[string]any{"timeout": "200ms"}},
		{"script": `console.log("a"); console.log("b"); return 1`, "limits": map[string]any{"max_log_entries": 1}},
		{"script": `try { await tools.slow({ms: 5000}); } catch (e) { return e.reason; }`, "policy": map[string]any{"call_timeout": "100ms"}},
		{"script": `try { await tools.kv_set({key: "a", value: 1}); } catch (e) { return e.reason; }`, "tools": []string{"kv_get"}},
		{"script": "const x: number = 1; return x;", "language": "typescript"},
	} {
		v := e.submit(t, keyAcme, req, false)
		require.NotEqual(t, "running", v.Status)
		code(http.StatusOK, "GET", "/v1/chains/"+v.ID, keyAcme, nil)
		drain(t, e.stream(t, keyAcme, v.ID, ""))
		drain(t, e.stream(t, keyAcme, v.ID, "2"))
		for _, a := range v.Result.Artifacts {
			code(http.StatusOK, "GET", "/v1/artifacts/"+a.Ref, keyAcme, nil)
			code(http.StatusNotFound, "GET", "/v1/artifacts/"+a.Ref, keyGlobex, nil)
		}
		for _, f := range v.Result.Files {
			if f.Ref != "" {
				code(http.StatusOK, "GET", "/v1/artifacts/"+f.Ref, keyAcme, nil)
			}
		}
	}
	code(http.StatusNotFound, "GET", "/v1/artifacts/blob_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", keyAcme, nil)
	v := e.submit(t, keyGlobex, map[string]any{"script": `await tools.kv_get({key: "a"});
		try { await tools.kv_get({key: "b"}); } catch (e) { return e.reason; }`}, false)
	require.JSONEq(t, `"call_limit_exceeded"`, string(v.Result.Value))
	drain(t, e.stream(t, keyGlobex, v.ID, ""))

	// Approvals: decided, refused every way, expired.
	v = e.submit(t, keyAcme, map[string]any{"script": approvalScript}, true)
	events := e.stream(t, keyAcme, v.ID, "")
	req := e.pending(t, keyAcme)
	id, hash := req["id"].(string), req["args_hash"].(string)
	code(http.StatusOK, "GET", "/v1/chains/"+v.ID, keyAcme, nil)
	code(http.StatusOK, "GET", "/v1/approvals", keyAcme, nil)
	code(http.StatusOK, "GET", "/v1/approvals/"+id, keyAcme, nil)
	code(http.StatusNotFound, "GET", "/v1/approvals/"+id, keyGlobex, nil)
	code(http.StatusOK, "GET", "/v1/approvals/"+id+"/context", keyApprover, nil)
	code(http.StatusNotFound, "GET", "/v1/approvals/"+id+"/context", keyGlobex, nil)
	code(http.StatusOK, "GET", "/v1/chains", keyAcme, nil)
	code(http.StatusOK, "GET", "/v1/chains?status=ok", keyAcme, nil)
	code(http.StatusBadRequest, "GET", "/v1/chains?status="+strings.Repeat("x", 40), keyAcme, nil)
	code(http.StatusForbidden, "POST", "/v1/approvals/"+id, keySubmit, map[string]string{"decision": "approve", "args_hash": hash})
	code(http.StatusConflict, "POST", "/v1/approvals/"+id, keyApprover, map[string]string{"decision": "approve", "args_hash": strings.Repeat("0", 64)})
	code(http.StatusBadRequest, "POST", "/v1/approvals/"+id, keyAcme, map[string]string{"decision": "maybe", "args_hash": hash})
	code(http.StatusBadRequest, "POST", "/v1/approvals/"+id, keyAcme, map[string]string{"decision": "approve", "args_hash": hash, "why": "x"})
	code(http.StatusBadRequest, "POST", "/v1/approvals/"+id, keyAcme, "{")
	code(http.StatusRequestEntityTooLarge, "POST", "/v1/approvals/"+id, keyAcme, `{"decision":"approve","args_hash":"`+strings.Repeat("a", 70<<10)+`"}`)
	unsupported(t, e, "/v1/approvals/"+id, keyAcme)
	code(http.StatusNotFound, "POST", "/v1/approvals/nope", keyAcme, map[string]string{"decision": "approve", "args_hash": hash})
	code(http.StatusOK, "POST", "/v1/approvals/"+id, keyApprover, map[string]string{"decision": "approve", "args_hash": hash})
	code(http.StatusConflict, "POST", "/v1/approvals/"+id, keyAcme, map[string]string{"decision": "deny", "args_hash": hash})
	drain(t, events)
	v = e.submit(t, keyAcme, map[string]any{"script": approvalScript, "policy": map[string]any{"approval_timeout": "300ms"}}, true)
	req = e.pending(t, keyAcme)
	e.wait(t, keyAcme, v.ID)
	code(http.StatusGone, "POST", "/v1/approvals/"+req["id"].(string), keyAcme, map[string]any{"decision": "approve", "args_hash": req["args_hash"]})

	// Caller tools: a call listed, refused every way, answered; declarations.
	callers := []map[string]any{{"name": "lookup", "description": "Finds a customer.",
		"input_schema":  map[string]any{"type": "object", "properties": map[string]any{"email": map[string]any{"type": "string"}}},
		"output_schema": map[string]any{"type": "object", "required": []string{"name"}}}}
	code(http.StatusOK, "POST", "/v1/tools.d.ts", keyAcme, map[string]any{"tools": []string{"kv_get"}, "caller_tools": callers})
	code(http.StatusBadRequest, "POST", "/v1/tools.d.ts", keyAcme, map[string]any{"caller_tools": []map[string]any{{"name": "kv_get", "description": "x"}}})
	code(http.StatusBadRequest, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1", "caller_tools": []map[string]any{{"name": "Bad!", "description": "x"}}})
	v = e.submit(t, keyAcme, map[string]any{"script": `return await tools.lookup({email: "a@example.com"})`, "caller_tools": callers}, true)
	events = e.stream(t, keyAcme, v.ID, "")
	var call map[string]any
	require.Eventually(t, func() bool {
		var list struct{ Calls []map[string]any }
		require.NoError(t, json.Unmarshal(code(http.StatusOK, "GET", "/v1/chains/"+v.ID+"/calls", keyAcme, nil).body, &list))
		if len(list.Calls) > 0 {
			call = list.Calls[0]
		}
		return call != nil
	}, 10*time.Second, 10*time.Millisecond)
	cid, chash := call["id"].(string), call["args_hash"].(string)
	code(http.StatusOK, "GET", "/v1/calls", keyAcme, nil)
	code(http.StatusOK, "GET", "/v1/calls/"+cid, keyAcme, nil)
	code(http.StatusNotFound, "GET", "/v1/calls/"+cid, keyGlobex, nil)
	code(http.StatusNotFound, "GET", "/v1/chains/ch_nope/calls", keyAcme, nil)
	code(http.StatusForbidden, "POST", "/v1/calls/"+cid, keyApprover, map[string]any{"args_hash": chash, "result": map[string]any{"name": "Ann"}})
	code(http.StatusNotFound, "POST", "/v1/calls/"+cid, keyGlobex, map[string]any{"args_hash": chash, "result": map[string]any{"name": "Ann"}})
	code(http.StatusBadRequest, "POST", "/v1/calls/"+cid, keyAcme, map[string]any{"args_hash": chash})
	code(http.StatusConflict, "POST", "/v1/calls/"+cid, keyAcme, map[string]any{"args_hash": strings.Repeat("0", 64), "result": 1})
	code(http.StatusUnprocessableEntity, "POST", "/v1/calls/"+cid, keyAcme, map[string]any{"args_hash": chash, "result": map[string]any{"nom": "Ann"}})
	code(http.StatusOK, "POST", "/v1/calls/"+cid, keySubmit, map[string]any{"args_hash": chash, "result": map[string]any{"name": "Ann"}})
	code(http.StatusConflict, "POST", "/v1/calls/"+cid, keyAcme, map[string]any{"args_hash": chash, "result": map[string]any{"name": "Ann"}})
	unsupported(t, e, "/v1/calls/"+cid, keyAcme)
	require.JSONEq(t, `{"name":"Ann"}`, string(e.wait(t, keyAcme, v.ID).Result.Value))
	drain(t, events)
	v = e.submit(t, keyAcme, map[string]any{"script": `try { await tools.lookup({}); } catch (e) { return e.reason; }`,
		"caller_tools": callers, "policy": map[string]any{"call_timeout": "300ms", "approval_timeout": "200ms"}}, true)
	require.Eventually(t, func() bool {
		var list struct{ Calls []map[string]any }
		require.NoError(t, json.Unmarshal(code(http.StatusOK, "GET", "/v1/chains/"+v.ID+"/calls", keyAcme, nil).body, &list))
		if len(list.Calls) > 0 {
			call = list.Calls[0]
			return true
		}
		return false
	}, 10*time.Second, 10*time.Millisecond)
	require.JSONEq(t, `"call_timeout"`, string(e.wait(t, keyAcme, v.ID).Result.Value))
	code(http.StatusGone, "POST", "/v1/calls/"+call["id"].(string), keyAcme, map[string]any{"args_hash": call["args_hash"], "result": map[string]any{"name": "late"}})

	// Cancelling, and too many chains.
	require.Eventually(t, func() bool { return e.metric(t, "airlock_chains_in_flight", nil) == 0 }, 10*time.Second, 10*time.Millisecond)
	slow1 := e.submit(t, keyAcme, map[string]any{"script": `await tools.slow({ms: 60000});`}, true)
	slow2 := e.submit(t, keyAcme, map[string]any{"script": `await tools.slow({ms: 60000});`}, true)
	code(http.StatusTooManyRequests, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1"})
	code(http.StatusForbidden, "DELETE", "/v1/chains/"+slow1.ID, keyApprover, nil)
	code(http.StatusOK, "DELETE", "/v1/chains/"+slow1.ID, keySubmit, nil)
	code(http.StatusOK, "DELETE", "/v1/chains/"+slow2.ID, keyAcme, nil)
	code(http.StatusConflict, "DELETE", "/v1/chains/"+slow1.ID, keyAcme, nil)
	code(http.StatusNotFound, "DELETE", "/v1/chains/"+slow1.ID, keyGlobex, nil)
	drain(t, e.stream(t, keyAcme, slow1.ID, ""))

	// Refused requests.
	for _, c := range []struct {
		want int
		key  string
		body any
	}{
		{http.StatusBadRequest, keyAcme, map[string]any{"script": "return (", "language": "javascript"}},
		{http.StatusBadRequest, keyAcme, map[string]any{"script": "return 1", "language": "cobol"}},
		{http.StatusBadRequest, keyAcme, map[string]any{"script": "return 1", "tools": []string{"nope"}}},
		{http.StatusBadRequest, keyAcme, map[string]any{"script": "return 1", "policy": map[string]any{"call_timeout": "10h"}}},
		{http.StatusBadRequest, keyAcme, map[string]any{"script": "return 1", "policy": map[string]any{"call_timeout": "1s", "approval_timeout": "2s"}}},
		{http.StatusBadRequest, keyAcme, map[string]any{"language": "javascript"}},
		{http.StatusBadRequest, keyAcme, map[string]any{"script": "return 1", "colour": "red"}},
		{http.StatusBadRequest, keyAcme, map[string]any{"script": "return 1", "input": 1}},
		{http.StatusBadRequest, keyAcme, "[1]"},
		{http.StatusUnauthorized, "", map[string]any{"script": "return 1"}},
		{http.StatusUnauthorized, "not-a-key", map[string]any{"script": "return 1"}},
		{http.StatusForbidden, keyAcme, map[string]any{"script": "return 1", "tenant": "globex"}},
		{http.StatusForbidden, keyApprover, map[string]any{"script": "return 1"}},
		{http.StatusRequestEntityTooLarge, keyAcme, map[string]any{"script": strings.Repeat("x", 70<<10)}},
	} {
		code(c.want, "POST", "/v1/chains", c.key, c.body)
	}
	unsupported(t, e, "/v1/chains", keyAcme)
	code(http.StatusAccepted, "POST", "/v1/chains?async=1", keyAcme, map[string]any{"script": "return 1"})
	code(http.StatusNotFound, "GET", "/v1/chains/ch_nope", keyAcme, nil)
	code(http.StatusNotFound, "GET", "/v1/chains/ch_nope/events", keyAcme, nil)
	code(http.StatusNotFound, "GET", "/v1/nope", keyAcme, nil)
	code(http.StatusMethodNotAllowed, "PUT", "/v1/chains", keyAcme, nil)
	code(http.StatusUnauthorized, "GET", "/v1/tools", "", nil)
	code(http.StatusUnauthorized, "GET", "/v1/approvals", "", nil)
	r, err := http.NewRequest("GET", e.http.URL+"/v1/chains/"+slow1.ID+"/events", nil)
	require.NoError(t, err)
	r.Header.Set("Authorization", "Bearer "+keyAcme)
	r.Header.Set("Last-Event-ID", "minus one")
	require.Equal(t, http.StatusBadRequest, send(t, r).code)

	// The MCP endpoint's own answers.
	code(http.StatusUnauthorized, "POST", "/mcp", "", map[string]any{"jsonrpc": "2.0"})
	code(http.StatusUnauthorized, "GET", "/mcp", keyApprover, nil)
	code(http.StatusRequestEntityTooLarge, "POST", "/mcp", keyAcme, `{"x":"`+strings.Repeat("a", 70<<10)+`"}`)
	code(http.StatusAccepted, "POST", "/mcp", keyAcme, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	// Shutting down.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, e.srv.Shutdown(ctx))
	code(http.StatusServiceUnavailable, "POST", "/v1/chains", keyAcme, map[string]any{"script": "return 1"})
	code(http.StatusServiceUnavailable, "GET", "/readyz", "", nil)

	// Without API keys: the loopback checks.
	local := newEnv(t, func(o *setup) { o.Wrap = check.wrap; o.Authenticate = nil })
	for _, h := range []map[string]string{{"Host": "evil.example"}, {"Origin": "http://evil.example"}} {
		r, err := http.NewRequest("GET", local.http.URL+"/v1/tools", nil)
		require.NoError(t, err)
		if h["Host"] != "" {
			r.Host = h["Host"]
		}
		if h["Origin"] != "" {
			r.Header.Set("Origin", h["Origin"])
		}
		require.Equal(t, http.StatusForbidden, send(t, r).code)
	}
	require.Equal(t, "ok", local.submit(t, "", map[string]any{"script": "return 1"}, false).Status)

	answers, evs := check.seen()
	t.Logf("checked answers: %s", strings.Join(answers, ", "))
	t.Logf("checked events: %s", strings.Join(evs, ", "))
	for _, ev := range []string{"approval_required", "call_pending", "tool_call", "tool_result", "tool.before", "policy.before", "policy.deny", "gate.required", "tool.after", "log", "done"} {
		require.Contains(t, evs, ev, "the test streams a %s event", ev)
	}
}

// TestFleetAPIMatchesOpenAPI checks the answers and events of a fleet:
// parked chains read on any process, their approvals, their streams, a
// cancelled parked chain and an interrupted one.
func TestFleetAPIMatchesOpenAPI(t *testing.T) {
	check := newAPICheck(t)
	f := newFleet(t, 2, func(o *setup) { o.Wrap = check.wrap })
	a, b := f.envs[0], f.envs[1]
	code := func(e *env, want int, method, path string, body any) reply {
		t.Helper()
		r := e.do(t, method, path, keyAcme, body)
		require.Equal(t, want, r.code, "%s %s: %s", method, path, r.body)
		return r
	}
	v := a.submit(t, keyAcme, map[string]any{"script": `
		console.log("before parking");
		const csv = await tools.make_csv({rows: 20000, seed: 1});
		const chart = await tools.render_chart({values: [1, 2, 3]});
		return await tools.notify({to: "x"});`}, true)
	live := a.stream(t, keyAcme, v.ID, "")
	v = pendingOf(t, b, v.ID, 1)
	code(a, http.StatusOK, "GET", "/v1/chains/"+v.ID, nil)
	code(b, http.StatusOK, "GET", "/v1/approvals", nil)
	code(b, http.StatusOK, "GET", "/v1/approvals/"+v.Pending[0].ID, nil)
	code(b, http.StatusOK, "GET", "/v1/approvals/"+v.Pending[0].ID+"/context", nil)
	code(b, http.StatusOK, "GET", "/v1/chains?status=parked", nil)
	bad := v.Pending[0]
	bad.ArgsHash = strings.Repeat("0", 64)
	require.Equal(t, http.StatusConflict, decideOn(t, b, bad, "approve").code)
	events := b.stream(t, keyAcme, v.ID, "")
	require.Equal(t, server.EventStatus, next(t, events).name)
	require.Equal(t, http.StatusOK, decideOn(t, b, v.Pending[0], "approve").code)
	require.Equal(t, http.StatusConflict, decideOn(t, a, v.Pending[0], "deny").code)
	drain(t, events)
	drain(t, live)
	v = settled(t, a, v.ID)
	require.Equal(t, "ok", v.Status)
	code(b, http.StatusOK, "GET", "/v1/chains/"+v.ID, nil)
	code(a, http.StatusConflict, "DELETE", "/v1/chains/"+v.ID, nil)
	drain(t, a.stream(t, keyAcme, v.ID, ""))

	// A caller tool's call parks its chain; it is listed, refused and
	// answered on the other process, which resumes the chain.
	callers := []map[string]any{{"name": "lookup", "description": "Finds a customer.",
		"output_schema": map[string]any{"type": "object", "required": []string{"name"}}}}
	v = a.submit(t, keyAcme, map[string]any{"script": `return (await tools.lookup({})).name`, "caller_tools": callers}, false)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	require.Len(t, v.Pending, 1)
	call := v.Pending[0]
	require.Equal(t, "call", call.Kind)
	code(b, http.StatusOK, "GET", "/v1/calls", nil)
	code(b, http.StatusOK, "GET", "/v1/calls/"+call.ID, nil)
	code(b, http.StatusOK, "GET", "/v1/chains/"+v.ID+"/calls", nil)
	code(b, http.StatusNotFound, "GET", "/v1/approvals/"+call.ID, nil)
	code(b, http.StatusConflict, "POST", "/v1/calls/"+call.ID, map[string]any{"args_hash": strings.Repeat("0", 64), "result": map[string]any{"name": "Ann"}})
	code(b, http.StatusUnprocessableEntity, "POST", "/v1/calls/"+call.ID, map[string]any{"args_hash": call.ArgsHash, "result": 1})
	code(b, http.StatusOK, "POST", "/v1/calls/"+call.ID, map[string]any{"args_hash": call.ArgsHash, "result": map[string]any{"name": "Ann"}})
	code(a, http.StatusConflict, "POST", "/v1/calls/"+call.ID, map[string]any{"args_hash": call.ArgsHash, "result": map[string]any{"name": "Bob"}})
	v = settled(t, a, v.ID)
	require.Equal(t, "ok", v.Status, "%+v", v.Result)
	require.JSONEq(t, `"Ann"`, string(v.Result.Value))
	code(a, http.StatusNotFound, "GET", "/v1/calls/"+call.ID, nil)

	// A parked chain cancelled on the other process.
	v = a.submit(t, keyAcme, map[string]any{"script": `console.log("c"); return await tools.notify({to: "c"})`}, false)
	require.Equal(t, "parked", v.Status)
	code(b, http.StatusOK, "DELETE", "/v1/chains/"+v.ID, nil)
	drain(t, a.stream(t, keyAcme, v.ID, ""))
	code(a, http.StatusGone, "POST", "/v1/approvals/"+v.Pending[0].ID, map[string]string{"decision": "approve", "args_hash": v.Pending[0].ArgsHash})

	// A chain another process runs is cancelled only there.
	v = a.submit(t, keyAcme, map[string]any{"script": `await tools.slow({ms: 60000});`}, true)
	require.Eventually(t, func() bool { return b.view(t, keyAcme, v.ID).Status == "running" }, 10*time.Second, 20*time.Millisecond)
	code(b, http.StatusConflict, "DELETE", "/v1/chains/"+v.ID, nil)
	code(a, http.StatusOK, "DELETE", "/v1/chains/"+v.ID, nil)

	// An interrupted chain: its process died mid-call.
	gone, err := durable.New(durable.Options{Blobs: f.store, Key: fleetKey, Node: "node-gone", Lease: 600 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now().Add(-time.Minute).UTC()
	require.NoError(t, gone.PutChain(context.Background(), &durable.Chain{ID: "ch_gone", Tenant: "acme", Language: "javascript",
		Status: durable.StatusRunning, Node: "node-gone", Lease: start, Created: start, Updated: start,
		Open: []durable.OpenCall{{Seq: 1, Tool: "notify", Start: start}}}))
	require.Equal(t, "interrupted", settled(t, b, "ch_gone").Status)
	drain(t, b.stream(t, keyAcme, "ch_gone", ""))

	_, evs := check.seen()
	for _, ev := range []string{"status", "done", "approval.parked", "tool.before"} {
		require.Contains(t, evs, ev, "the test streams a %s event", ev)
	}
}

// TestFleetStoreDownMatchesOpenAPI: the answers of a fleet whose shared
// store fails.
func TestFleetStoreDownMatchesOpenAPI(t *testing.T) {
	check := newAPICheck(t)
	drv := &flakyDriver{Driver: memblob.New()}
	f := newFleetOn(t, drv, 1, func(o *setup) { o.Wrap = check.wrap })
	e := f.envs[0]
	v := e.submit(t, keyAcme, map[string]any{"script": `return await tools.notify({to: "down"})`}, false)
	require.Equal(t, "parked", v.Status)
	drv.fail.Store(true)
	r := e.do(t, "GET", "/v1/approvals", keyAcme, nil)
	require.Equal(t, http.StatusServiceUnavailable, r.code, "%s", r.body)
	require.Equal(t, server.ReasonStoreUnavailable, r.reason(t))
	r = decideOn(t, e, v.Pending[0], "approve")
	require.Equal(t, http.StatusServiceUnavailable, r.code, "%s", r.body)
	// A chain the fleet cannot record is not started: it would be lost
	// with this process.
	r = e.do(t, "POST", "/v1/chains", keyAcme, map[string]any{"script": `return await tools.notify({to: "unrecorded"})`})
	require.Equal(t, http.StatusServiceUnavailable, r.code, "%s", r.body)
	require.Equal(t, server.ReasonStoreUnavailable, r.reason(t))
	drv.fail.Store(false)
	require.Equal(t, int32(0), f.count("unrecorded"))
	require.Equal(t, http.StatusOK, e.do(t, "DELETE", "/v1/chains/"+v.ID, keyAcme, nil).code)
	require.Equal(t, int32(0), f.count("down"))
}

// flakyDriver fails every operation while fail is set.
type flakyDriver struct {
	blobstore.Driver
	fail atomic.Bool
}

var errStoreDown = errors.New("flaky: the store is down")

func (d *flakyDriver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) error {
	if d.fail.Load() {
		return errStoreDown
	}
	return d.Driver.Put(ctx, key, r, opts)
}

func (d *flakyDriver) Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if d.fail.Load() {
		return nil, errStoreDown
	}
	return d.Driver.Get(ctx, key, offset, length)
}

func (d *flakyDriver) Stat(ctx context.Context, key string) (blobstore.Entry, error) {
	if d.fail.Load() {
		return blobstore.Entry{}, errStoreDown
	}
	return d.Driver.Stat(ctx, key)
}

func (d *flakyDriver) List(ctx context.Context, prefix string, fn func(blobstore.Entry) error) error {
	if d.fail.Load() {
		return errStoreDown
	}
	return d.Driver.List(ctx, prefix, fn)
}

// drain reads a stream to its end.
func drain(t *testing.T, ch <-chan sse) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the stream did not end within 20s")
		}
	}
}

// unsupported posts a JSON body without its content type (415).
func unsupported(t *testing.T, e *env, path, key string) {
	t.Helper()
	r, err := http.NewRequest("POST", e.http.URL+path, strings.NewReader(`{}`))
	require.NoError(t, err)
	r.Header.Set("Authorization", "Bearer "+key)
	require.Equal(t, http.StatusUnsupportedMediaType, send(t, r).code)
}

func send(t *testing.T, r *http.Request) reply {
	t.Helper()
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{code: resp.StatusCode, body: b, hdr: resp.Header}
}
