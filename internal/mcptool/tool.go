package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlockrt/airlock/toolbox"
)

// mcpTool is one MCP tool registered as a chain tool.
type mcpTool struct {
	srv  *server
	name string // the MCP name
	info toolbox.Info
}

func (t *mcpTool) Info() toolbox.Info { return t.info }

// info builds the airlock declaration of t.
func (s *server) info(name string, t *sdk.Tool) (toolbox.Info, error) {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %s of MCP server %s.", clip(t.Name, 64), s.spec.Name)
	}
	short, rest := splitDescription(desc)
	info := toolbox.Info{Name: name, Description: short, Guidance: rest}
	var err error
	if info.InputSchema, err = schemaOf(t.InputSchema); err != nil {
		return info, fmt.Errorf("input schema: %w", err)
	}
	if info.InputSchema == nil {
		info.InputSchema = &jsonschema.Schema{Type: "object"}
	}
	if t.OutputSchema != nil {
		if info.OutputSchema, err = schemaOf(t.OutputSchema); err != nil {
			info.OutputSchema = nil // undescribed rather than skipped
		}
	}
	// Without an output schema the value is text and the tool may return
	// files: declare the files.
	info.Media = info.OutputSchema == nil
	info.Risk, info.Class = riskOf(t.Annotations)
	if r, ok := s.riskFor(t.Name); ok {
		info.Risk = r
	}
	if info.Risk != toolbox.Safe && info.Class == toolbox.ReadOnly {
		info.Class = toolbox.ClassUnset // an operator raised it: the class follows
	}
	info.Scopes = append([]string(nil), s.spec.Scopes...)
	if s.m.opts.Adjust != nil {
		info = s.m.opts.Adjust(info)
	}
	return info, nil
}

// riskFor returns the operator's risk of an MCP tool: by its name as the
// server spells it or as airlock does (a server renaming create_issue to
// create-issue keeps the override), else "*".
func (s *server) riskFor(name string) (toolbox.Risk, bool) {
	if r, ok := s.spec.Risk[name]; ok {
		return r, true
	}
	for k, r := range s.spec.Risk {
		if k != "*" && normalize(k) == normalize(name) {
			return r, true
		}
	}
	r, ok := s.spec.Risk["*"]
	return r, ok
}

// riskOf maps an MCP tool's annotations to a risk and class, taking the
// protocol's defaults for what is missing: not read-only, destructive,
// open-world. Read-only → Safe; otherwise High (destructive: Destructive
// class; else Network when open-world, LocalWrite when not).
func riskOf(a *sdk.ToolAnnotations) (toolbox.Risk, toolbox.Class) {
	if a == nil {
		return toolbox.High, toolbox.Destructive
	}
	if a.ReadOnlyHint {
		return toolbox.Safe, toolbox.ReadOnly
	}
	if a.DestructiveHint == nil || *a.DestructiveHint {
		return toolbox.High, toolbox.Destructive
	}
	if a.OpenWorldHint == nil || *a.OpenWorldHint {
		return toolbox.High, toolbox.Network
	}
	return toolbox.High, toolbox.LocalWrite
}

// splitDescription returns the first sentence or line of d (at most 200
// characters) and the rest (at most 2000), as Info wants them.
func splitDescription(d string) (short, rest string) {
	cut := len(d)
	if i := strings.IndexByte(d, '\n'); i >= 0 {
		cut = i
	}
	if i := strings.Index(d[:cut], ". "); i >= 0 {
		cut = i + 1
	}
	short, rest = strings.TrimSpace(d[:cut]), strings.TrimSpace(d[cut:])
	if utf8.RuneCountInString(short) > 200 {
		r := []rune(short)
		short, rest = string(r[:199])+"…", string(r[199:])+" "+rest
	}
	if utf8.RuneCountInString(rest) > 2000 {
		rest = string([]rune(rest)[:1999]) + "…"
	}
	return short, strings.TrimSpace(rest)
}

// schemaOf decodes a wire schema and checks it with toolbox.ParseSchema:
// a server's schema is untrusted input (THREATS.md, T4), refused unless
// validating against it is bounded work.
func schemaOf(v any) (*jsonschema.Schema, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	s, err := toolbox.ParseSchema(b)
	if err != nil {
		return nil, err
	}
	s.Schema = "" // the dialect is the validator's
	return s, nil
}

// Call calls the tool on the caller's tenant's session (or the shared one).
func (t *mcpTool) Call(ctx context.Context, args json.RawMessage) (toolbox.Output, error) {
	tenant := ""
	if c, ok := toolbox.CallerFrom(ctx); ok {
		tenant = c.Tenant()
	}
	c, release, err := t.srv.connFor(tenant)
	if err != nil {
		return toolbox.Output{}, &toolbox.UnavailableError{Err: err}
	}
	defer release()
	c.await(ctx) // a new tenant's session is starting
	sess, err := c.use()
	if err != nil {
		return toolbox.Output{}, err
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	// Close ends the calls in flight: the SDK's session Close waits for
	// them otherwise.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.srv.m.ctx, cancel)()
	params := &sdk.CallToolParams{Name: t.name, Arguments: args}
	// The call's trace context, where MCP puts it: in _meta.
	for k, v := range toolbox.TraceContext(ctx) {
		if params.Meta == nil {
			params.Meta = sdk.Meta{}
		}
		params.Meta[k] = v
	}
	res, err := sess.CallTool(callCtx, params)
	if err != nil {
		var wire *jsonrpc.Error
		switch {
		case ctx.Err() != nil:
			return toolbox.Output{}, ctx.Err()
		case errors.As(err, &wire):
			return toolbox.Output{}, fmt.Errorf("mcp server %q refused the call: %s", t.srv.spec.Name, clip(c.hide(wire.Message), 1000))
		default:
			return toolbox.Output{}, fmt.Errorf("mcp server %q: the connection failed during the call (%s); its effects are unknown: %w",
				t.srv.spec.Name, clip(c.hide(err.Error()), 300), toolbox.ErrOutcomeUnknown)
		}
	}
	return t.output(callCtx, c, sess, res)
}

// output turns a CallToolResult into the chain's value and files.
func (t *mcpTool) output(ctx context.Context, cn *conn, sess *sdk.ClientSession, res *sdk.CallToolResult) (toolbox.Output, error) {
	var texts []string
	var out toolbox.Output
	size := 0 // bytes of the files so far
	add := func(m toolbox.Media) error {
		if len(out.Media) >= maxAttachments {
			return fmt.Errorf("mcp server %q returned more than %d attachments", t.srv.spec.Name, maxAttachments)
		}
		if size += len(m.Data); size > maxResultBytes {
			return fmt.Errorf("mcp server %q returned more than %d bytes of files", t.srv.spec.Name, maxResultBytes)
		}
		out.Media = append(out.Media, m)
		return nil
	}
	for _, c := range res.Content {
		var err error
		switch c := c.(type) {
		case *sdk.TextContent:
			texts = append(texts, c.Text)
		case *sdk.ImageContent:
			err = add(toolbox.Media{MIME: mimeOr(c.MIMEType, "image/png"), Data: c.Data})
		case *sdk.AudioContent:
			err = add(toolbox.Media{MIME: mimeOr(c.MIMEType, "audio/wav"), Data: c.Data})
		case *sdk.EmbeddedResource:
			if c.Resource != nil {
				err = add(resourceMedia(c.Resource))
			}
		case *sdk.ResourceLink:
			if len(out.Media) >= maxAttachments || size >= maxResultBytes {
				err = add(toolbox.Media{}) // refused before reading it
				break
			}
			var m toolbox.Media
			if m, err = t.readLink(ctx, cn, sess, c); err == nil {
				err = add(m)
			}
		}
		if err != nil {
			return toolbox.Output{}, err
		}
	}
	if res.IsError {
		msg := strings.Join(texts, "\n")
		if msg == "" {
			msg = "the tool reported an error"
		}
		return toolbox.Output{}, fmt.Errorf("%s", clip(cn.hide(msg), 2000))
	}
	var err error
	switch {
	case res.StructuredContent != nil:
		out.JSON, err = json.Marshal(res.StructuredContent)
	case len(texts) > 0:
		out.JSON, err = json.Marshal(strings.Join(texts, "\n"))
	}
	if err != nil {
		return toolbox.Output{}, fmt.Errorf("mcp server %q returned structured content that is not JSON", t.srv.spec.Name)
	}
	// A secret the server was given never reaches the chain: scrubbed from
	// the value and from text files, as the HTTP tool does.
	if sc := cn.scrubber(); sc != nil {
		if scrubbed, changed := sc.Bytes(out.JSON); changed {
			if !json.Valid(scrubbed) {
				return toolbox.Output{}, fmt.Errorf("mcp server %q returned a secret it was given, and it could not be redacted", t.srv.spec.Name)
			}
			out.JSON = scrubbed
		}
		for i, m := range out.Media {
			if textual(m.MIME) {
				out.Media[i].Data, _ = sc.Bytes(m.Data)
			}
			out.Media[i].Source = sc.String(m.Source)
			if sc.Contains([]byte(m.MIME)) {
				out.Media[i].MIME = "application/octet-stream"
			}
		}
	}
	return out, nil
}

// readLink reads the resource a link names, from the same session.
func (t *mcpTool) readLink(ctx context.Context, cn *conn, sess *sdk.ClientSession, l *sdk.ResourceLink) (toolbox.Media, error) {
	res, err := sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: l.URI})
	if err != nil {
		return toolbox.Media{}, fmt.Errorf("mcp server %q: reading the linked resource %q: %s", t.srv.spec.Name, clip(cn.hide(l.URI), 200), clip(cn.hide(err.Error()), 300))
	}
	if len(res.Contents) == 0 || res.Contents[0] == nil {
		return toolbox.Media{}, fmt.Errorf("mcp server %q: the linked resource %q is empty", t.srv.spec.Name, clip(cn.hide(l.URI), 200))
	}
	m := resourceMedia(res.Contents[0])
	if res.Contents[0].MIMEType == "" {
		m.MIME = mimeOr(l.MIMEType, m.MIME)
	}
	m.Source = l.URI
	return m, nil
}

// maxResultBytes bounds the files of one result (images, audio,
// resources); the invoker's artifact quotas apply on top. A variable for
// the tests.
var maxResultBytes = 64 << 20

func resourceMedia(r *sdk.ResourceContents) toolbox.Media {
	if r.Blob != nil {
		return toolbox.Media{MIME: mimeOr(r.MIMEType, "application/octet-stream"), Data: r.Blob, Source: r.URI}
	}
	return toolbox.Media{MIME: mimeOr(r.MIMEType, "text/plain"), Data: []byte(r.Text), Source: r.URI}
}

// mimeRE is a media type as a file carries it: type/subtype of token
// characters, no parameters.
var mimeRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,63}/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,63}$`)

// mimeOr returns m when it is a plain media type, else def: a server's
// MIME text goes into file entries and artifact metadata.
func mimeOr(m, def string) string {
	if !mimeRE.MatchString(m) {
		return def
	}
	return strings.ToLower(m)
}

// textual reports whether a MIME type is text a result carries as a
// string.
func textual(mime string) bool {
	return strings.HasPrefix(mime, "text/") || strings.HasPrefix(mime, "application/json")
}
