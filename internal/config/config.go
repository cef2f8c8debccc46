package config

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"time"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// Config is airlock's whole configuration. Build it with Load (or Default
// and Parse); the zero value of a field means its documented default.
type Config struct {
	// Policy is the chain policy every chain runs under.
	Policy Policy `yaml:"policy"`
	// Tools chooses the tools on offer.
	Tools Tools `yaml:"tools"`
	// Approval chooses how risky calls are decided.
	Approval Approval `yaml:"approval"`
	// Store chooses where offloaded results and media go.
	Store Store `yaml:"store"`
	// Limits bound each chain's sandbox.
	Limits Limits `yaml:"limits"`
	// Server configures `airlock serve`.
	Server Server `yaml:"server"`
	// Tracing configures OpenTelemetry traces; off by default.
	Tracing Tracing `yaml:"tracing"`

	// pos maps a dotted key path to where its value was last set:
	// "file:line", "flag --name" or "env NAME".
	pos map[string]string
	// lookup resolves ${env:NAME} in secrets; nil means os.LookupEnv.
	lookup func(string) (string, bool)
}

// Policy mirrors invoker.Policy; zero fields take invoker's defaults.
type Policy struct {
	// MaxToolCalls is how many tool calls one chain may make. Default 50.
	MaxToolCalls int `yaml:"max_tool_calls"`
	// CallTimeout bounds one tool execution. Default 60s.
	CallTimeout Duration `yaml:"call_timeout"`
	// ApprovalTimeout bounds the wait for an approval; it must be shorter
	// than CallTimeout. Default 55s (or 11/12 of a shorter CallTimeout).
	ApprovalTimeout Duration `yaml:"approval_timeout"`
	// MaxRiskUnapproved is the highest risk that runs without approval:
	// SAFE, HIGH or CRITICAL. Default SAFE.
	MaxRiskUnapproved toolbox.Risk `yaml:"max_risk_unapproved"`
	// MaxInlineResultBytes is the largest result returned inline; larger
	// ones are offloaded as artifacts. Default 4KiB.
	MaxInlineResultBytes Size `yaml:"max_inline_result_bytes"`
	// PreviewChars is the length of an artifact's preview. Default 256.
	PreviewChars int `yaml:"preview_chars"`
	// MaxArgumentBytes caps the arguments of one call. Default 1MiB.
	MaxArgumentBytes Size `yaml:"max_argument_bytes"`
	// MaxResolvedBytes caps what the artifact refs of one call expand to.
	// Default 64MiB.
	MaxResolvedBytes Size `yaml:"max_resolved_bytes"`
}

// Invoker returns p as an invoker.Policy (zero fields stay zero: the
// invoker fills its defaults).
func (p Policy) Invoker() invoker.Policy {
	return invoker.Policy{
		MaxToolCalls:         p.MaxToolCalls,
		CallTimeout:          p.CallTimeout.D(),
		ApprovalTimeout:      p.ApprovalTimeout.D(),
		MaxRiskUnapproved:    p.MaxRiskUnapproved,
		MaxInlineResultBytes: int(p.MaxInlineResultBytes),
		PreviewChars:         p.PreviewChars,
		MaxArgumentBytes:     int(p.MaxArgumentBytes),
		MaxResolvedBytes:     int64(p.MaxResolvedBytes),
	}
}

// Tools chooses the tools on offer.
type Tools struct {
	// Builtin names the built-in tool sets to register. The only set is
	// "demo" (see internal/demo). Default [demo].
	Builtin []string `yaml:"builtin"`
	// Risk overrides the risk level of tools by name: SAFE, HIGH or
	// CRITICAL. Every name must be a registered tool.
	Risk map[string]toolbox.Risk `yaml:"risk"`
	// HTTP are tools executed by an HTTP request from the host.
	HTTP []HTTPTool `yaml:"http"`
}

// HTTPTool defines one tool executed by an HTTP call (see
// internal/httptool).
type HTTPTool struct {
	// Name and Description are the tool's. Required.
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// URL is the http(s) endpoint; {arg} in its path is replaced by that
	// argument. Required.
	URL string `yaml:"url"`
	// Method is GET, HEAD, POST, PUT, PATCH or DELETE. Default POST.
	Method string `yaml:"method,omitempty"`
	// InputSchema is the JSON Schema (written in YAML) of the arguments
	// object. Default: no arguments.
	InputSchema JSON `yaml:"input_schema,omitempty"`
	// Risk is SAFE, HIGH or CRITICAL. Default SAFE for GET and HEAD, HIGH
	// for every other method.
	Risk *toolbox.Risk `yaml:"risk,omitempty"`
	// Timeout bounds one call. Default 10s.
	Timeout Duration `yaml:"timeout,omitempty"`
	// MaxResponseBytes caps the response body. Default 1MiB.
	MaxResponseBytes Size `yaml:"max_response_bytes,omitempty"`
	// Headers are sent with every call. Values may hold ${env:NAME},
	// resolved at call time and never printed. The value of every header
	// but Accept, Content-Type, User-Agent and the like
	// (httptool.PublicHeader), literal or not, is treated as a secret and
	// scrubbed from the tool's responses and errors.
	Headers Headers `yaml:"headers,omitempty"`
}

// RiskLevel returns the tool's risk: Risk when set, otherwise SAFE for GET
// and HEAD and HIGH for every other method.
func (h HTTPTool) RiskLevel() toolbox.Risk {
	if h.Risk != nil {
		return *h.Risk
	}
	switch h.Method {
	case "GET", "get", "HEAD", "head":
		return toolbox.Safe
	}
	return toolbox.High
}

// Headers are HTTP header names and values. When printed, a value is shown
// only if it holds an ${env:NAME} reference (the secret lives in the
// environment) or belongs to a header that never carries secrets (Accept,
// Content-Type, User-Agent…); any other value is redacted.
type Headers map[string]string

// JSON is a JSON value written in YAML in the file, such as a JSON Schema.
type JSON json.RawMessage

// Approval chooses how risky calls are decided.
type Approval struct {
	// Mode is ask, deny, allow or queue. Default: ask on a terminal and
	// deny otherwise for `airlock run`, queue for `airlock serve`.
	Mode ApprovalMode `yaml:"mode"`
}

// Store chooses the blob store.
type Store struct {
	// Kind is fs (a local directory, the default) or s3.
	Kind string `yaml:"kind"`
	// Dir is the fs store's directory. Default: fsblob.DefaultDir().
	Dir string `yaml:"dir"`
	// TTL is how long an unpinned artifact lives. Default 24h.
	TTL Duration `yaml:"ttl"`
	// MaxBlobBytes caps one stored blob. Default 1GiB.
	MaxBlobBytes Size `yaml:"max_blob_bytes"`
	// S3 configures the s3 store.
	S3 S3 `yaml:"s3"`
}

// S3 configures an S3 (or MinIO) bucket. The AIRLOCK_S3_* variables of
// s3blob.ConfigFromEnv set these fields too.
type S3 struct {
	// Endpoint is host[:port], optionally with http:// or https://. Required
	// for kind s3.
	Endpoint string `yaml:"endpoint"`
	// Bucket is the bucket name. Required for kind s3.
	Bucket string `yaml:"bucket"`
	// AccessKey and SecretKey are static credentials; empty for anonymous.
	AccessKey string `yaml:"access_key"`
	SecretKey Secret `yaml:"secret_key"`
	// UseTLS selects https. Default false.
	UseTLS bool `yaml:"use_tls"`
	// Region is the bucket's region; empty asks the server.
	Region string `yaml:"region"`
	// Prefix is prepended to object names.
	Prefix string `yaml:"prefix"`
}

// Limits bound one chain's sandbox; zero fields take sandbox's defaults.
type Limits struct {
	// Timeout is the chain's wall-clock limit. Default 300s.
	Timeout Duration `yaml:"timeout"`
	// Memory caps the guest's memory, 1MiB to 3GiB. Default 64MiB.
	Memory Size `yaml:"memory"`
	// MaxLogBytes caps the captured console output. Default 1MiB.
	MaxLogBytes Size `yaml:"max_log_bytes"`
	// MaxResultBytes caps the chain's final result. Default 1MiB.
	MaxResultBytes Size `yaml:"max_result_bytes"`
	// MaxInFlight caps the tool calls in flight at once. Default 64.
	MaxInFlight int `yaml:"max_in_flight"`
	// MaxArgsBytes caps the arguments of one call at the bridge. Default
	// 1MiB.
	MaxArgsBytes Size `yaml:"max_args_bytes"`
}

// Sandbox returns l as sandbox.Limits (zero fields stay zero: the sandbox
// fills its defaults).
func (l Limits) Sandbox() sandbox.Limits {
	return sandbox.Limits{
		Timeout:        l.Timeout.D(),
		MemoryBytes:    uint64(l.Memory),
		MaxLogBytes:    int(l.MaxLogBytes),
		MaxResultBytes: int(l.MaxResultBytes),
		MaxInFlight:    l.MaxInFlight,
		MaxArgsBytes:   int(l.MaxArgsBytes),
	}
}

// Server configures `airlock serve`.
type Server struct {
	// Addr is the listen address. Default 127.0.0.1:8080. Without API keys
	// the server only starts on a loopback address.
	Addr string `yaml:"addr"`
	// APIKeys are the bearer keys accepted, each bound to a tenant.
	APIKeys []APIKey `yaml:"api_keys"`
	// MaxRequestBytes caps a request body. Default 1MiB.
	MaxRequestBytes Size `yaml:"max_request_bytes"`
	// ShutdownTimeout bounds a graceful shutdown: chains still running then
	// are cancelled. Default 30s.
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
	// MaxConcurrentChains caps the chains running at once; further
	// submissions are refused with 429. Default 64.
	MaxConcurrentChains int `yaml:"max_concurrent_chains"`
	// ResultTTL is how long a finished chain's result stays readable
	// through GET /v1/chains/{id}. Default 15m.
	ResultTTL Duration `yaml:"result_ttl"`
	// MaxResults caps the finished chains kept for GET /v1/chains/{id};
	// the oldest are forgotten first. Default 1000.
	MaxResults int `yaml:"max_results"`
	// Max are the largest policy and limit values a request may ask for.
	// A zero field means the configured chain value: requests may lower
	// it but not raise it.
	Max Ceiling `yaml:"max"`
}

// APIKey binds a bearer key to a tenant.
type APIKey struct {
	// Key is the bearer token, at least 16 characters; write
	// ${env:NAME} to read it from the environment at load time.
	Key Secret `yaml:"key"`
	// Tenant is the tenant the key acts for: 1 to 64 of a-z, 0-9, _ and -,
	// starting with a letter or digit.
	Tenant string `yaml:"tenant"`
	// Role is what the key may do: all (the default: everything), submit
	// (submit and cancel chains, not decide approvals: the key of an agent
	// loop, which then cannot approve its own calls) or approver (decide
	// approvals, not submit or cancel chains). Every role may read.
	Role string `yaml:"role,omitempty"`
}

// Roles of APIKey.Role.
const (
	RoleAll      = "all"
	RoleSubmit   = "submit"
	RoleApprover = "approver"
)

// TenantFor returns the tenant of the API key key, comparing in constant
// time.
func (s Server) TenantFor(key string) (string, bool) {
	k, found := s.keyFor(key)
	return k.Tenant, found
}

// RoleFor returns the role of the API key key (RoleAll for a key without
// one), or "" for a key that is not configured.
func (s Server) RoleFor(key string) string {
	k, found := s.keyFor(key)
	switch {
	case !found:
		return ""
	case k.Role == "":
		return RoleAll
	}
	return k.Role
}

// keyFor finds key among the API keys, comparing in constant time.
func (s Server) keyFor(key string) (APIKey, bool) {
	var (
		match APIKey
		found bool
	)
	for _, k := range s.APIKeys {
		if subtle.ConstantTimeCompare([]byte(k.Key), []byte(key)) == 1 && !found {
			match, found = k, true
		}
	}
	return match, found
}

// Ceiling holds the largest values a request may ask for.
type Ceiling struct {
	MaxToolCalls      int           `yaml:"max_tool_calls"`
	CallTimeout       Duration      `yaml:"call_timeout"`
	MaxRiskUnapproved *toolbox.Risk `yaml:"max_risk_unapproved"`
	Timeout           Duration      `yaml:"timeout"`
	Memory            Size          `yaml:"memory"`
	MaxLogBytes       Size          `yaml:"max_log_bytes"`
	MaxResultBytes    Size          `yaml:"max_result_bytes"`
}

// Check reports the first field of p or l (defaults filled in) above the
// ceiling c, which must be an effective ceiling (Config.Ceiling).
func (c Ceiling) Check(p invoker.Policy, l sandbox.Limits) error {
	p = p.WithDefaults()
	eff := effectiveLimits(l)
	type check struct {
		name      string
		got, max  int64
		formatDur bool
	}
	for _, k := range []check{
		{"max_tool_calls", int64(p.MaxToolCalls), int64(c.MaxToolCalls), false},
		{"call_timeout", int64(p.CallTimeout), int64(c.CallTimeout), true},
		{"max_risk_unapproved", int64(p.MaxRiskUnapproved), int64(*c.MaxRiskUnapproved), false},
		{"timeout", int64(eff.Timeout), int64(c.Timeout), true},
		{"memory", int64(eff.MemoryBytes), int64(c.Memory), false},
		{"max_log_bytes", int64(eff.MaxLogBytes), int64(c.MaxLogBytes), false},
		{"max_result_bytes", int64(eff.MaxResultBytes), int64(c.MaxResultBytes), false},
	} {
		if k.got <= k.max {
			continue
		}
		switch {
		case k.formatDur:
			return fmt.Errorf("%s %s is above the operator's limit of %s", k.name, time.Duration(k.got), time.Duration(k.max))
		case k.name == "max_risk_unapproved":
			return fmt.Errorf("%s %s is above the operator's limit of %s", k.name, toolbox.Risk(k.got), toolbox.Risk(k.max))
		}
		return fmt.Errorf("%s %d is above the operator's limit of %d", k.name, k.got, k.max)
	}
	return nil
}

// Tracing configures OpenTelemetry traces: a span per chain and per tool
// call.
type Tracing struct {
	// Exporter is "" (tracing off, the default), "otlp" (OTLP over HTTP) or
	// "stdout" (pretty-printed spans on stderr, for debugging).
	Exporter string `yaml:"exporter"`
	// Endpoint is the OTLP collector's host:port (otlp only). Required for
	// otlp.
	Endpoint string `yaml:"endpoint"`
	// Insecure sends OTLP over plain HTTP. Default false.
	Insecure bool `yaml:"insecure"`
	// SampleRatio is the fraction of chains traced, 0 to 1. Default 1.
	SampleRatio float64 `yaml:"sample_ratio"`
	// ServiceName is the service.name resource attribute. Default "airlock".
	ServiceName string `yaml:"service_name"`
}

// Default returns the defaults: the demo tools, a filesystem store, the
// server on 127.0.0.1:8080, tracing off. Policy and limit fields stay zero,
// meaning invoker's and sandbox's defaults (see Effective).
func Default() *Config {
	return &Config{
		Tools: Tools{Builtin: []string{"demo"}},
		Store: Store{Kind: "fs"},
		Server: Server{
			Addr: "127.0.0.1:8080", MaxRequestBytes: 1 << 20, ShutdownTimeout: Duration(30 * time.Second),
			MaxConcurrentChains: 64, ResultTTL: Duration(15 * time.Minute), MaxResults: 1000,
		},
		Tracing: Tracing{SampleRatio: 1, ServiceName: "airlock"},
		pos:     map[string]string{},
	}
}

// Effective returns a copy of c with every policy and limit default filled
// in, as they will apply.
func (c *Config) Effective() *Config {
	e := c.clone()
	p := e.Policy.Invoker().WithDefaults()
	e.Policy = Policy{
		MaxToolCalls: p.MaxToolCalls, CallTimeout: Duration(p.CallTimeout), ApprovalTimeout: Duration(p.ApprovalTimeout),
		MaxRiskUnapproved: p.MaxRiskUnapproved, MaxInlineResultBytes: Size(p.MaxInlineResultBytes),
		PreviewChars: p.PreviewChars, MaxArgumentBytes: Size(p.MaxArgumentBytes), MaxResolvedBytes: Size(p.MaxResolvedBytes),
	}
	l := effectiveLimits(e.Limits.Sandbox())
	e.Limits = Limits{
		Timeout: Duration(l.Timeout), Memory: Size(l.MemoryBytes), MaxLogBytes: Size(l.MaxLogBytes),
		MaxResultBytes: Size(l.MaxResultBytes), MaxInFlight: l.MaxInFlight, MaxArgsBytes: Size(l.MaxArgsBytes),
	}
	if e.Store.TTL == 0 {
		e.Store.TTL = Duration(24 * time.Hour)
	}
	if e.Store.MaxBlobBytes == 0 {
		e.Store.MaxBlobBytes = 1 << 30
	}
	e.Server.Max = e.Ceiling()
	return e
}

// Ceiling returns the effective request ceiling: Server.Max with each zero
// field replaced by the configured chain value.
func (c *Config) Ceiling() Ceiling {
	p := c.Policy.Invoker().WithDefaults()
	l := effectiveLimits(c.Limits.Sandbox())
	m := c.Server.Max
	if m.MaxToolCalls == 0 {
		m.MaxToolCalls = p.MaxToolCalls
	}
	if m.CallTimeout == 0 {
		m.CallTimeout = Duration(p.CallTimeout)
	}
	if m.MaxRiskUnapproved == nil {
		r := p.MaxRiskUnapproved
		m.MaxRiskUnapproved = &r
	}
	if m.Timeout == 0 {
		m.Timeout = Duration(l.Timeout)
	}
	if m.Memory == 0 {
		m.Memory = Size(l.MemoryBytes)
	}
	if m.MaxLogBytes == 0 {
		m.MaxLogBytes = Size(l.MaxLogBytes)
	}
	if m.MaxResultBytes == 0 {
		m.MaxResultBytes = Size(l.MaxResultBytes)
	}
	return m
}

// effectiveLimits fills l's zero fields with the sandbox defaults.
func effectiveLimits(l sandbox.Limits) sandbox.Limits {
	if l.Timeout == 0 {
		l.Timeout = sandbox.DefaultTimeout
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = sandbox.DefaultMemoryBytes
	}
	if l.MaxLogBytes == 0 {
		l.MaxLogBytes = sandbox.DefaultMaxLogBytes
	}
	if l.MaxResultBytes == 0 {
		l.MaxResultBytes = sandbox.DefaultMaxResultBytes
	}
	if l.MaxInFlight == 0 {
		l.MaxInFlight = sandbox.DefaultMaxInFlight
	}
	if l.MaxArgsBytes == 0 {
		l.MaxArgsBytes = sandbox.DefaultMaxArgsBytes
	}
	return l
}

// Where returns where the value at key (a dotted path such as
// "policy.call_timeout") was last set: "file:line", "flag --name" or
// "env NAME"; "" for a default.
func (c *Config) Where(key string) string { return c.pos[key] }

func (c *Config) clone() *Config {
	e := *c
	e.Tools.Builtin = append([]string(nil), c.Tools.Builtin...)
	e.Tools.HTTP = append([]HTTPTool(nil), c.Tools.HTTP...)
	e.Server.APIKeys = append([]APIKey(nil), c.Server.APIKeys...)
	if c.Tools.Risk != nil {
		e.Tools.Risk = make(map[string]toolbox.Risk, len(c.Tools.Risk))
		for k, v := range c.Tools.Risk {
			e.Tools.Risk[k] = v
		}
	}
	e.pos = make(map[string]string, len(c.pos))
	for k, v := range c.pos {
		e.pos[k] = v
	}
	return &e
}
