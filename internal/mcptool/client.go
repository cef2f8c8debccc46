package mcptool

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/toolbox"
)

// ServerSpec is one MCP server airlock connects to. Exactly one of Command
// (stdio) and URL (streamable HTTP) is set.
type ServerSpec struct {
	// Name is the namespace of the server's tools: tool t is registered as
	// Name_t. 1 to 32 of a-z, 0-9 and '_', starting with a letter.
	Name string
	// Command and Args start a stdio server. The process gets only PATH,
	// HOME, TMPDIR and LANG of airlock's environment, plus Env.
	Command string
	Args    []string
	// Env are extra environment variables of a stdio server; a value may
	// hold ${env:NAME} placeholders, resolved through Options.Secrets when
	// the process starts.
	Env map[string]string
	// URL is a streamable-HTTP server's endpoint.
	URL string
	// Headers are sent with every HTTP request; values may hold ${env:NAME}
	// placeholders like Env.
	Headers map[string]string
	// PerTenant gives every tenant its own session (its own process for a
	// stdio server): nothing of one tenant's calls reaches another's
	// session. The tool list comes from a session of no tenant's.
	PerTenant bool
	// Risk overrides the risk of tools by their MCP name (or "*" for every
	// tool of the server); otherwise the annotations decide.
	Risk map[string]toolbox.Risk
	// Scopes are required of a chain to call any of the server's tools.
	Scopes []string
	// Tools, when non-empty, are the only MCP tool names registered.
	Tools []string
	// StartTimeout bounds starting and initializing a session. Default 30s.
	StartTimeout time.Duration
	// KeepAlive is the interval of pings on an idle session: a server that
	// misses two in a row (each may take half the interval) is restarted.
	// Default 30s; negative: no pings.
	KeepAlive time.Duration
}

// Defaults and bounds of the client.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultKeepAlive    = 30 * time.Second
	// MaxTools is the most tools registered from one server.
	MaxTools = 512
	// MaxTenantSessions is the most sessions of one per-tenant server.
	MaxTenantSessions = 64
	// maxListBytes bounds one server's tool list, all pages.
	maxListBytes = 32 << 20
	// MaxMessageBytes bounds one message read from a server.
	MaxMessageBytes = 16 << 20
	// maxAttachments bounds the media files of one result.
	maxAttachments = 32
	minBackoff     = 200 * time.Millisecond
	maxBackoff     = 30 * time.Second
)

// maxTenantSessions is MaxTenantSessions; tests lower it.
var maxTenantSessions = MaxTenantSessions

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// Validate checks s.
func (s *ServerSpec) Validate() error {
	if !nameRE.MatchString(s.Name) {
		return fmt.Errorf("mcp server name %q: use 1 to 32 of a-z, 0-9 and _, starting with a letter", s.Name)
	}
	if (s.Command == "") == (s.URL == "") {
		return fmt.Errorf("mcp server %q: set either command (stdio) or url (streamable HTTP)", s.Name)
	}
	if s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
		return fmt.Errorf("mcp server %q: url must be http:// or https://", s.Name)
	}
	if s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0) {
		return fmt.Errorf("mcp server %q: args and env are for stdio servers (command)", s.Name)
	}
	if s.Command != "" && len(s.Headers) > 0 {
		return fmt.Errorf("mcp server %q: headers are for HTTP servers (url)", s.Name)
	}
	if s.StartTimeout < 0 {
		return fmt.Errorf("mcp server %q: start_timeout must not be negative", s.Name)
	}
	for _, vals := range []map[string]string{s.Env, s.Headers} {
		for _, k := range slices.Sorted(maps.Keys(vals)) {
			if strings.Contains(vals[k], "${tenant:") {
				return fmt.Errorf("mcp server %q: %s: ${tenant:NAME} is not supported for MCP servers: a server's credentials are resolved once, when its session starts, and every call on the session shares them (docs/identity.md); use ${env:NAME}, or an HTTP tool for per-tenant credentials", s.Name, k)
			}
		}
	}
	for _, sc := range s.Scopes {
		if !scopeRE.MatchString(sc) {
			return fmt.Errorf("mcp server %q: scope %q: use 1 to 64 of a-z, 0-9, '_', '-', ':' and '.'", s.Name, sc)
		}
	}
	for k, r := range s.Risk {
		if !r.Valid() {
			return fmt.Errorf("mcp server %q: risk of %q: invalid level", s.Name, k)
		}
	}
	return nil
}

var scopeRE = regexp.MustCompile(`^[a-z0-9_:.-]{1,64}$`)

// Options configure a Manager.
type Options struct {
	// Secrets resolves ${env:NAME} placeholders of Env and Headers when a
	// session starts. Nil: placeholders fail the start.
	Secrets toolbox.Secrets
	// Adjust, when set, is applied to every tool's Info before it is
	// registered, after the annotations and ServerSpec.Risk: the operator's
	// governance rules by tool name.
	Adjust func(toolbox.Info) toolbox.Info
	// Logger receives connection events (never arguments, results or
	// secrets). Nil discards.
	Logger *slog.Logger
	// HTTPClient is used for HTTP servers; its transport is wrapped to
	// bound every message. Nil: a client of the Manager's own.
	HTTPClient *http.Client
	// Wait, when positive, makes Start wait up to this long for every
	// server's first tool list before it returns (servers that are not up
	// by then register their tools when they are).
	Wait time.Duration
	// FailFast, with Wait, makes Start fail when a server's first start
	// fails (a command that does not run, a URL that refuses): Start then
	// stops every server and returns an error naming it and the cause.
	// For one-shot commands; a long-lived process leaves it false and
	// the supervisors keep retrying in the background.
	FailFast bool
}

// Manager keeps the sessions with the configured MCP servers and their
// tools registered in a toolbox. It is safe for concurrent use.
type Manager struct {
	box     *toolbox.Toolbox
	opts    Options
	log     *slog.Logger
	client  *http.Client
	servers map[string]*server
	ctx     context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// server is one configured MCP server: its catalog session (the tool list,
// and the calls unless PerTenant) and its tenants' sessions.
type server struct {
	m       *Manager
	spec    ServerSpec
	catalog *conn

	mu      sync.Mutex
	tools   map[string]string // airlock name -> MCP name of the registered tools
	skipped map[string]string // MCP name -> why the last list's tool was skipped
	tenants map[string]*conn
	// refreshes counts the tool lists re-read on tools/list_changed.
	refreshes int

	refresh chan struct{} // a tools/list_changed arrived
	ready   chan struct{} // closed after the first tool list
	once    sync.Once
}

// Start connects to every server of specs in the background and registers
// their tools in box as they come up. It returns once the supervisors run
// (and, with Options.Wait, once every server listed its tools or the wait
// ended). Close stops them all.
func Start(ctx context.Context, box *toolbox.Toolbox, specs []ServerSpec, opts Options) (*Manager, error) {
	m := &Manager{box: box, opts: opts, log: opts.Logger, servers: map[string]*server{}}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	base := opts.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	bounded := *base
	// Never follow a redirect: the configured headers (credentials) would
	// go to wherever it points.
	bounded.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	bounded.Transport = &boundedTransport{next: base.Transport, max: MaxMessageBytes}
	m.client = &bounded
	for i := range specs {
		if err := specs[i].Validate(); err != nil {
			return nil, err
		}
		if _, dup := m.servers[specs[i].Name]; dup {
			return nil, fmt.Errorf("mcp server %q is configured twice", specs[i].Name)
		}
		m.servers[specs[i].Name] = nil
	}
	m.ctx, m.stop = context.WithCancel(context.WithoutCancel(ctx))
	for _, spec := range specs {
		spec.StartTimeout = cmp.Or(spec.StartTimeout, DefaultStartTimeout)
		spec.KeepAlive = cmp.Or(spec.KeepAlive, DefaultKeepAlive)
		s := &server{m: m, spec: spec, tools: map[string]string{}, tenants: map[string]*conn{},
			refresh: make(chan struct{}, 1), ready: make(chan struct{})}
		s.catalog = s.newConn("")
		m.servers[spec.Name] = s
		m.wg.Add(2)
		go func() { defer m.wg.Done(); s.catalog.supervise() }()
		go func() { defer m.wg.Done(); s.watchList() }()
	}
	if opts.Wait > 0 {
		t := time.NewTimer(opts.Wait)
		defer t.Stop()
		for _, s := range m.servers {
			if opts.FailFast {
				select {
				case <-s.catalog.tried:
				case <-t.C:
					return m, nil
				case <-ctx.Done():
					return m, nil
				}
				if err := s.startError(); err != nil {
					_ = m.Close()
					return nil, err
				}
			}
			select {
			case <-s.ready:
			case <-t.C:
				return m, nil
			case <-ctx.Done():
				return m, nil
			}
		}
	}
	return m, nil
}

// Close ends every session, stops every server process and unregisters
// the tools. It waits for the supervisors to end.
func (m *Manager) Close() error {
	m.stop()
	for _, s := range m.servers {
		s.mu.Lock()
		conns := slices.Collect(maps.Values(s.tenants))
		s.mu.Unlock()
		for _, c := range conns {
			c.close()
		}
		s.catalog.close()
	}
	m.wg.Wait()
	for _, s := range m.servers {
		s.mu.Lock()
		m.box.Remove(slices.Collect(maps.Keys(s.tools))...)
		s.tools = map[string]string{}
		s.mu.Unlock()
	}
	return nil
}

// Status is one server's state.
type Status struct {
	Name string `json:"name"`
	// Up is true while its catalog session is connected.
	Up bool `json:"up"`
	// Tools are the airlock names of its registered tools.
	Tools []string `json:"tools"`
	// Error is why it is down, when it is.
	Error string `json:"error,omitempty"`
	// Restarts counts the sessions started after the first.
	Restarts int `json:"restarts"`
	// Refreshes counts the tool lists read after a session's first: on
	// tools/list_changed, and once a second after an HTTP session starts.
	Refreshes int `json:"refreshes"`
	// Skipped are the tools of the last list that were not registered as
	// listed, by MCP name, with why: a schema toolbox.CheckSchema refuses,
	// a declaration holding a secret, a name that is invalid or collides.
	// A tool registered before that keeps its previous declaration is
	// both here and in Tools. Nil when none was skipped.
	Skipped map[string]string `json:"skipped,omitempty"`
}

// Status reports every server's state, by name.
func (m *Manager) Status() []Status {
	var out []Status
	for _, name := range slices.Sorted(maps.Keys(m.servers)) {
		s := m.servers[name]
		st := Status{Name: name}
		c := s.catalog
		c.mu.Lock()
		st.Up = c.sess != nil
		if c.down != nil {
			st.Error = c.down.Error()
		}
		st.Restarts = max(c.starts-1, 0)
		c.mu.Unlock()
		s.mu.Lock()
		st.Tools = slices.Sorted(maps.Keys(s.tools))
		st.Refreshes = s.refreshes
		if len(s.skipped) > 0 {
			st.Skipped = maps.Clone(s.skipped)
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Ready returns a channel closed once server name listed its tools the
// first time (nil for an unknown name).
func (m *Manager) Ready(name string) <-chan struct{} {
	if s := m.servers[name]; s != nil {
		return s.ready
	}
	return nil
}

// watchList refreshes the server's tools on every tools/list_changed.
func (s *server) watchList() {
	for {
		select {
		case <-s.m.ctx.Done():
			return
		case <-s.refresh:
		}
		sess := s.catalog.session()
		if sess == nil {
			continue // the next session lists them when it starts
		}
		if err := s.list(sess); err != nil {
			s.m.log.Warn("mcp: refreshing the tool list failed", "server", s.spec.Name, "err", s.catalog.redact(err))
			continue
		}
		s.mu.Lock()
		s.refreshes++
		s.mu.Unlock()
	}
}

// list reads the server's tools and brings the registry in line.
func (s *server) list(sess *sdk.ClientSession) error {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.spec.StartTimeout)
	defer cancel()
	var tools []*sdk.Tool
	bytes := 0
	cursor := ""
	for pages := 0; ; pages++ {
		if pages >= 64 {
			return fmt.Errorf("more than 64 pages of tools")
		}
		res, err := sess.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, res.Tools...)
		if b, err := json.Marshal(res.Tools); err == nil {
			if bytes += len(b); bytes > maxListBytes {
				return fmt.Errorf("the tool list is above %d bytes", maxListBytes)
			}
		}
		if len(tools) > MaxTools {
			return fmt.Errorf("more than %d tools", MaxTools)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	s.sync(tools)
	s.once.Do(func() { close(s.ready) })
	return nil
}

// sync registers tools, replaces the changed ones and removes those gone.
// A tool whose declaration is refused (its schema, a secret it holds, a
// bad name) is skipped, logged and listed in Status.Skipped; a tool
// registered before keeps its previous declaration when its new one is
// refused: a server cannot take down its own tools that were fine by
// re-listing them with a hostile schema.
func (s *server) sync(tools []*sdk.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]string{}
	skipped := map[string]string{}
	skip := func(t *sdk.Tool, name string, err error) {
		err = fmt.Errorf("mcp server %q, tool %q: %w", s.spec.Name, clip(t.Name, 128), err)
		if prev, ours := s.tools[name]; ours && name != "" {
			if _, dup := want[name]; !dup {
				want[name] = prev
				err = fmt.Errorf("%w; %s keeps its previous declaration", err, name)
			}
		}
		msg := s.catalog.hide(clip(err.Error(), 1000))
		skipped[s.catalog.hide(clip(t.Name, 128))] = msg
		s.m.log.Warn("mcp: tool skipped", "server", s.spec.Name, "tool", s.catalog.hide(clip(t.Name, 128)), "err", msg)
	}
	for _, t := range tools {
		if t == nil || (len(s.spec.Tools) > 0 && !slices.ContainsFunc(s.spec.Tools, func(n string) bool { return normalize(n) == normalize(t.Name) })) {
			continue
		}
		name := s.spec.Name + "_" + normalize(t.Name)
		if !toolbox.ValidName(name) {
			skip(t, "", errors.New("its name does not make a valid airlock name"))
			continue
		}
		if other, dup := want[name]; dup {
			skip(t, "", fmt.Errorf("its name collides with another of the server's, %q, as %s", clip(other, 128), name))
			continue
		}
		info, err := s.info(name, t)
		if err == nil && s.catalog.declares(t) {
			err = errors.New("its declaration holds a secret the server was given")
		}
		if err != nil {
			skip(t, name, err)
			continue
		}
		tool := &mcpTool{srv: s, name: t.Name, info: info}
		if _, ours := s.tools[name]; ours {
			err = s.m.box.Replace(tool)
		} else {
			err = s.m.box.Add(tool)
		}
		if err != nil {
			skip(t, name, err)
			continue
		}
		want[name] = t.Name
	}
	var gone []string
	for name := range s.tools {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	s.m.box.Remove(gone...)
	s.tools = want
	s.skipped = skipped
	s.m.log.Info("mcp: tools registered", "server", s.spec.Name, "tools", len(want), "removed", len(gone), "skipped", len(skipped))
}

// normalize maps an MCP tool name (letters, digits, _ - . /) to the
// airlock form: lower case, every other character an underscore.
func normalize(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// tenantConn returns the session of tenant for a per-tenant server,
// starting one if needed, or the catalog's.
func (s *server) connFor(tenant string) (c *conn, release func(), err error) {
	if !s.spec.PerTenant {
		return s.catalog, func() {}, nil
	}
	if tenant == "" {
		tenant = blobstore.DefaultTenant
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.tenants[tenant]
	if !ok {
		if s.m.ctx.Err() != nil {
			return nil, nil, errors.New("airlock is shutting down")
		}
		if len(s.tenants) >= maxTenantSessions && !s.evictLocked() {
			return nil, nil, fmt.Errorf("mcp server %q has busy sessions for %d tenants, its limit", s.spec.Name, maxTenantSessions)
		}
		c = s.newConn(tenant)
		s.tenants[tenant] = c
		s.m.wg.Add(1)
		go func() { defer s.m.wg.Done(); c.supervise() }()
	}
	c.users++
	c.used = time.Now()
	return c, func() {
		s.mu.Lock()
		c.users--
		c.used = time.Now()
		s.mu.Unlock()
	}, nil
}

// evictLocked ends the tenant session unused for longest among those no
// call holds, making room for another tenant's; false when every session
// is in use.
func (s *server) evictLocked() bool {
	var victim *conn
	for _, c := range s.tenants {
		if c.users == 0 && (victim == nil || c.used.Before(victim.used)) {
			victim = c
		}
	}
	if victim == nil {
		return false
	}
	delete(s.tenants, victim.tenant)
	go victim.close()
	s.m.log.Info("mcp: tenant session closed to make room", "server", s.spec.Name)
	return true
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
