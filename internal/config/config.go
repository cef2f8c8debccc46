package config

import (
	"cmp"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/setting"
	"github.com/airlockrt/airlock/internal/tenantsecret"
	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// Config is airlock's whole configuration. Build it with Load (or Default
// and Parse); the zero value of a field means its documented default.
type Config struct {
	// Policy is the chain policy every chain runs under; its keys are
	// invoker.PolicySettings and zero fields take invoker's defaults.
	Policy invoker.Policy `yaml:"policy"`
	// Tools chooses the tools on offer.
	Tools Tools `yaml:"tools"`
	// Approval chooses how risky calls are decided.
	Approval Approval `yaml:"approval"`
	// Store chooses where offloaded results and media go.
	Store Store `yaml:"store"`
	// Limits bound each chain's sandbox; its keys are
	// sandbox.LimitSettings and zero fields take sandbox's defaults.
	Limits sandbox.Limits `yaml:"limits"`
	// Guest chooses the clock and randomness chains see; its keys are
	// sandbox.GuestKeys (clock: real or virtual; seed). Default: the real
	// clock and fresh randomness for every chain.
	Guest sandbox.Guest `yaml:"guest"`
	// Server configures `airlock serve`.
	Server Server `yaml:"server"`
	// Tracing configures OpenTelemetry traces; off by default.
	Tracing Tracing `yaml:"tracing"`
	// Profiles are governance profiles by name (docs/governance.md).
	Profiles map[string]Profile `yaml:"profiles"`
	// DefaultProfile is the profile of `airlock run` and of API keys that
	// name none. Default: none (the zero profile: no scopes granted,
	// supervised, the default gate matrix).
	DefaultProfile string `yaml:"default_profile"`
	// Governance holds the process-wide governance settings.
	Governance Governance `yaml:"governance"`
	// MCPServers are the MCP servers whose tools chains may call
	// (docs/mcp.md).
	MCPServers []MCPServer `yaml:"mcp_servers"`
	// Fleet lets several `airlock serve` processes share the store's
	// bucket: chain records, leases, parked chains (docs/durability.md).
	// Off unless key is set.
	Fleet Fleet `yaml:"fleet"`
	// TenantSecrets chooses where the ${tenant:NAME} references of HTTP
	// tools are read for the calling chain's tenant (docs/identity.md).
	// Default: nowhere; such a reference is refused when the tools are
	// built.
	TenantSecrets TenantSecrets `yaml:"tenant_secrets"`
	// Identity configures delegated identities: the token service that
	// exchanges a chain's subject token for tokens of the audiences HTTP
	// tools declare (docs/identity.md). Default: none; a tool with an
	// audience is then refused when the tools are built.
	Identity Identity `yaml:"identity"`

	// pos maps a dotted key path to where its value was last set:
	// "file:line", "flag --name" or "env NAME".
	pos map[string]string
	// lookup resolves ${env:NAME} in secrets; nil means os.LookupEnv.
	lookup func(string) (string, bool)
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

// MCPServer is one MCP server whose tools are registered as name_tool.
// Exactly one of Command (stdio) and URL (streamable HTTP) is set; it is
// checked where the tools are built (internal/assemble).
type MCPServer struct {
	// Name is the tools' prefix: 1 to 32 of a-z, 0-9 and _. Required.
	Name string `yaml:"name"`
	// Command and Args start a stdio server.
	Command string   `yaml:"command,omitempty"`
	Args    []string `yaml:"args,omitempty"`
	// Env is given to a stdio server (besides PATH, HOME, TMPDIR and LANG);
	// values may hold ${env:NAME}, resolved when it starts, never printed.
	Env Headers `yaml:"env,omitempty"`
	// URL is a streamable-HTTP server's endpoint.
	URL string `yaml:"url,omitempty"`
	// Headers are sent to an HTTP server; values may hold ${env:NAME}.
	Headers Headers `yaml:"headers,omitempty"`
	// PerTenant gives each tenant its own session (its own process).
	PerTenant bool `yaml:"per_tenant,omitempty"`
	// Risk overrides tools' risk by MCP tool name ("*": all of them);
	// otherwise their annotations decide (none: HIGH).
	Risk map[string]toolbox.Risk `yaml:"risk,omitempty"`
	// Scopes a chain must be granted to call the server's tools.
	Scopes []string `yaml:"scopes,omitempty"`
	// Tools, when set, are the only MCP tool names registered.
	Tools []string `yaml:"tools,omitempty"`
	// StartTimeout bounds starting and initializing a session. Default 30s.
	StartTimeout Duration `yaml:"start_timeout,omitempty"`
	// KeepAlive is the interval of pings on a session; a server that
	// misses two in a row is restarted. Default 30s.
	KeepAlive Duration `yaml:"keep_alive,omitempty"`
}

// TenantSecrets chooses the tenant secret source; its owner is
// tenantsecret.Options, which holds the defaults and the validation.
type TenantSecrets struct {
	// Dir is an absolute directory with one subdirectory per tenant and in
	// it one file per secret, <dir>/<tenant>/<name>: mounted Kubernetes
	// secrets. Read on every call.
	Dir string `yaml:"dir"`
	// EnvPrefix reads secret NAME of a tenant from the variable <prefix>,
	// the tenant upper-cased ('-' as '_'), "__", NAME upper-cased:
	// AIRLOCK_SECRET_ACME__CRM_TOKEN for prefix AIRLOCK_SECRET_ (the exact
	// mapping is in docs/identity.md).
	EnvPrefix string `yaml:"env_prefix"`
	// MaxBytes caps one secret's value; a larger one is unavailable.
	MaxBytes Size `yaml:"max_bytes"`
}

// Options returns the owner's options, reading the environment through
// lookup (nil: os.LookupEnv).
func (t TenantSecrets) Options(lookup func(string) (string, bool)) tenantsecret.Options {
	return tenantsecret.Options{Dir: t.Dir, EnvPrefix: t.EnvPrefix, MaxBytes: int64(t.MaxBytes), LookupEnv: lookup}
}

// Identity configures delegated identities.
type Identity struct {
	// TokenExchange is the OAuth 2.0 Token Exchange (RFC 8693) service;
	// its owner is tokenexchange.Options. Off unless token_url is set.
	TokenExchange TokenExchange `yaml:"token_exchange"`
}

// TokenExchange configures the token service delegated credentials come
// from; its owner is tokenexchange.Options, which holds the defaults and
// the validation.
type TokenExchange struct {
	// TokenURL is the service's token endpoint (http or https). Setting it
	// turns delegated credentials on.
	TokenURL string `yaml:"token_url"`
	// ClientID is airlock's client at the token service. Required with
	// token_url.
	ClientID string `yaml:"client_id"`
	// ClientSecret is its secret, sent in HTTP Basic authentication; write
	// ${env:NAME} to read it from the environment.
	ClientSecret Secret `yaml:"client_secret"`
	// Timeout bounds one exchange. Default 10s, at most 1m.
	Timeout Duration `yaml:"timeout"`
	// CacheMaxEntries bounds the cache of exchanged tokens (per tenant,
	// subject, audience and scopes; least recently used first out).
	// Default 10000, at most 1000000.
	CacheMaxEntries int `yaml:"cache_max_entries"`
}

// On reports whether a token service is configured.
func (t TokenExchange) On() bool { return t != TokenExchange{} }

// Options returns the owner's options.
func (t TokenExchange) Options() tokenexchange.Options {
	return tokenexchange.Options{TokenURL: t.TokenURL, ClientID: t.ClientID, ClientSecret: t.ClientSecret.Reveal(),
		Timeout: t.Timeout.D(), CacheMaxEntries: t.CacheMaxEntries}
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
	// Headers are sent with every call. Values may hold ${env:NAME} and
	// ${tenant:NAME} (the calling chain's tenant's secret, from
	// tenant_secrets), resolved at call time and never printed. The value of every header
	// but Accept, Content-Type, User-Agent and the like
	// (httptool.PublicHeader), literal or not, is treated as a secret and
	// scrubbed from the tool's responses and errors.
	Headers Headers `yaml:"headers,omitempty"`
	// Audience makes the tool act for the calling chain's delegated
	// identity: each call exchanges the chain's subject token at
	// identity.token_exchange for a token of this audience, sent as
	// Authorization: Bearer (docs/identity.md). Default: none.
	Audience string `yaml:"audience,omitempty"`
	// Scopes are asked for with the audience's token. Only with audience.
	Scopes []string `yaml:"scopes,omitempty"`
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
// only if it holds an ${env:NAME} or ${tenant:NAME} reference (the secret
// lives elsewhere) or belongs to a header that never carries secrets (Accept,
// Content-Type, User-Agent…); any other value is redacted.
type Headers map[string]string

// JSON is a JSON value written in YAML in the file, such as a JSON Schema.
type JSON json.RawMessage

// Approval chooses how risky calls are decided.
type Approval struct {
	// Mode is ask, deny, allow, queue or park. Default: ask on a terminal
	// and deny otherwise for `airlock run`, queue for `airlock serve`.
	Mode ApprovalMode `yaml:"mode"`
	// PreviewBytes is the most argument bytes a pending approval request
	// keeps in memory; larger arguments go to the store. Default 4KiB.
	PreviewBytes Size `yaml:"preview_bytes"`
	// MaxPendingBytes caps the bytes all pending approval requests hold in
	// memory. Default 4MiB.
	MaxPendingBytes Size `yaml:"max_pending_bytes"`
	// MaxTenantInFlightBytes caps, per tenant, the host memory its calls
	// in progress hold, waiting for approval or running: their arguments,
	// what decoding them takes and the copies made of them. A call past
	// it fails tenant_memory.
	// Default 64MiB.
	MaxTenantInFlightBytes Size `yaml:"max_tenant_in_flight_bytes"`
	// ParkTTL is how long a chain parked on its approvals (mode park)
	// waits for them; past it, its waiting calls end approval_expired.
	// Default 24h.
	ParkTTL Duration `yaml:"park_ttl"`
	// MaxWakes caps how many times one parked chain is resumed (by a
	// decision or its timer); one that would park again after that many
	// ends limit_exceeded, reason wakes. Default 100 (docs/limits.md).
	MaxWakes int `yaml:"max_wakes"`
	// MaxParkBytes caps the state bytes one chain's parks write to the
	// store in all; a park past it ends the chain limit_exceeded, reason
	// park_bytes. Default 1GiB.
	MaxParkBytes Size `yaml:"max_park_bytes"`
	// MaxParkedPerTenant caps the chains of one tenant parked at once
	// across the fleet; a chain that would park past it ends
	// limit_exceeded, reason parked_chains. Default 100.
	MaxParkedPerTenant int `yaml:"max_parked_per_tenant"`
}

// Fleet configures the chain records several processes share in the
// store (docs/durability.md).
type Fleet struct {
	// Key authenticates every object the fleet keeps in the store (chain
	// records, ends, claims, approvals, decisions, index entries: HMAC-SHA256
	// under keys derived from it) and seals and encrypts parked chains: at
	// least 32 characters, the same on every process of the fleet. Write
	// ${env:NAME} to read it from the environment. Setting it turns the
	// fleet on.
	Key Secret `yaml:"key"`
	// PreviousKey is a second key whose objects are accepted but never
	// written, to rotate Key without stopping the fleet
	// (docs/durability.md, "Rotating the fleet key"): at least 32
	// characters.
	PreviousKey Secret `yaml:"previous_key"`
	// Lease is how long a running chain's record vouches for it; its
	// process renews it every third of that, and another process marks the
	// chain interrupted once it has lapsed by as much again. Default 15s.
	Lease Duration `yaml:"lease"`
	// Node names this process in chain records. Default: a random name.
	Node string `yaml:"node"`
	// AllowUnlockedStore lets the fleet start on a store that does not
	// lock object versions (the fs store, or an S3 bucket created without
	// Object Lock). It voids "an approved call runs at most once" against
	// anyone who can delete objects of the bucket: they can roll a chain
	// back and make its approved call run again (docs/durability.md,
	// "Rollback"). Default false: the fleet refuses such a store.
	AllowUnlockedStore bool `yaml:"allow_unlocked_store"`
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
	// MaxTenantArtifactBytes caps, per tenant, the artifacts this process
	// stored and that are still pinned or unexpired, and the states of
	// the tenant's chains it parked (a park past it ends the chain
	// limit_exceeded, reason quota_exceeded). Default 1GiB.
	MaxTenantArtifactBytes Size `yaml:"max_tenant_artifact_bytes"`
	// MaxResolvingBytes caps the artifact bytes all calls of the process
	// hold resolved at once. Default 256MiB.
	MaxResolvingBytes Size `yaml:"max_resolving_bytes"`
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
	// MaxStreamsPerTenant caps the event streams (GET
	// /v1/chains/{id}/events) one tenant has open on this server; more
	// are refused with 429 too_many_streams. Default 64.
	MaxStreamsPerTenant int `yaml:"max_streams_per_tenant"`
	// MaxPendingCalls caps the calls of caller tools one tenant has
	// waiting for their answers on this server; a call past it fails in
	// the script with tool_unavailable. Default 256.
	MaxPendingCalls int `yaml:"max_pending_calls"`
	// MaxCallerResultBytes caps the result of an answer to a caller
	// tool's call (POST /v1/calls/{id}); a larger one is refused with 413
	// result_too_large. Default and, in a fleet, most 512 KiB.
	MaxCallerResultBytes Size `yaml:"max_caller_result_bytes"`
	// ResultTTL is how long a finished chain's result stays readable
	// through GET /v1/chains/{id}. Default 15m.
	ResultTTL Duration `yaml:"result_ttl"`
	// MaxResults caps the finished chains kept for GET /v1/chains/{id};
	// the oldest are forgotten first. Default 1000.
	MaxResults int `yaml:"max_results"`
	// MaxResultsBytes caps the bytes the finished chains kept hold; the
	// oldest are forgotten first. Default 256MiB.
	MaxResultsBytes Size `yaml:"max_results_bytes"`
	// BodyTimeout bounds the reading of a request body. Default 30s.
	BodyTimeout Duration `yaml:"body_timeout"`
	// MetricsKey, when set, is the bearer key GET /metrics requires (with
	// API keys and without it, any API key). Write ${env:NAME} to read it
	// from the environment.
	MetricsKey Secret `yaml:"metrics_key"`
	// MetricsAddr, when set, serves /metrics on this host:port of its own,
	// without a key, instead of on the API's address.
	MetricsAddr string `yaml:"metrics_addr"`
	// LogLevel is the least severe level of the server's log lines: debug
	// (adds a line per lifecycle event of every tool call), info (the
	// default), warn or error.
	LogLevel string `yaml:"log_level"`
	// MCPTaskAfter is how long MCP's run_chain waits for the chain of a
	// client that declared tasks before it answers with a task (at once
	// when a call waits for approval; 0: mcp.DefaultTaskAfter, 2s;
	// docs/mcp.md, "Tasks"). It is loaded into mcp.ServerOptions.TaskAfter,
	// its owner; the config package does not import the MCP face.
	MCPTaskAfter Duration `yaml:"mcp_task_after"`
	// Max are the largest policy and limit values a request may ask for,
	// under the keys of policy and limits. A zero field means the
	// configured chain value: requests may lower it but not raise it.
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
	// Profile names the profile the key's chains run under. Default: the
	// top-level default_profile.
	Profile string `yaml:"profile,omitempty"`
}

// Roles of APIKey.Role: the service's (service.Roles).
const (
	RoleAll      = string(service.RoleAll)
	RoleSubmit   = string(service.RoleSubmit)
	RoleApprover = string(service.RoleApprover)
)

// ProfileFor returns the profile name of the API key key (its own, or
// the default profile), or "" for none.
func (c *Config) ProfileFor(key string) string {
	k, _ := c.Server.keyFor(key)
	return cmpOr(k.Profile, c.DefaultProfile)
}

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

// Ceiling holds the largest policy and limit values a request may ask for;
// zero fields mean the configured chain value.
type Ceiling struct {
	Policy invoker.Policy
	Limits sandbox.Limits
}

// Set sets the ceiling of the policy or limit named key from text.
func (c *Ceiling) Set(key, text string) error {
	if _, ok := c.Policy.Get(key); ok {
		return c.Policy.Set(key, text)
	}
	if _, ok := c.Limits.Get(key); ok {
		return c.Limits.Set(key, text)
	}
	return fmt.Errorf("unknown key %q (known: the keys of policy and limits)", key)
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
			MaxConcurrentChains: service.DefaultMaxConcurrentChains, MaxStreamsPerTenant: service.DefaultMaxStreamsPerTenant,
			MaxPendingCalls: service.DefaultMaxPendingCalls, MaxCallerResultBytes: service.DefaultMaxCallerResultBytes, ResultTTL: Duration(15 * time.Minute), MaxResults: 1000,
			MaxResultsBytes: 256 << 20, BodyTimeout: Duration(30 * time.Second),
		},
		Tracing: Tracing{SampleRatio: 1, ServiceName: "airlock"},
		pos:     map[string]string{},
	}
}

// Effective returns a copy of c with every default filled in, as it will
// apply: the policy, the limits, the store, and a ceiling whose zero fields
// are the chain values.
func (c *Config) Effective() *Config {
	e := c.clone()
	e.Policy = e.Policy.WithDefaults()
	e.Limits = e.Limits.WithDefaults()
	if e.Store.TTL == 0 {
		e.Store.TTL = Duration(24 * time.Hour)
	}
	if e.Store.MaxBlobBytes == 0 {
		e.Store.MaxBlobBytes = 1 << 30
	}
	// Zero means the owner's default; show it.
	e.Store.MaxTenantArtifactBytes = cmp.Or(e.Store.MaxTenantArtifactBytes, invoker.DefaultMaxTenantArtifactBytes)
	e.Store.MaxResolvingBytes = cmp.Or(e.Store.MaxResolvingBytes, invoker.DefaultMaxResolvingBytes)
	e.Approval.PreviewBytes = cmp.Or(e.Approval.PreviewBytes, approval.DefaultPreviewBytes)
	e.Approval.MaxPendingBytes = cmp.Or(e.Approval.MaxPendingBytes, approval.DefaultMaxPendingBytes)
	e.Approval.MaxTenantInFlightBytes = cmp.Or(e.Approval.MaxTenantInFlightBytes, invoker.DefaultMaxTenantInFlightBytes)
	e.Approval.ParkTTL = cmp.Or(e.Approval.ParkTTL, Duration(service.DefaultParkTTL))
	e.Approval.MaxWakes = cmp.Or(e.Approval.MaxWakes, service.DefaultMaxWakes)
	e.Approval.MaxParkBytes = cmp.Or(e.Approval.MaxParkBytes, Size(service.DefaultMaxParkBytes))
	e.Approval.MaxParkedPerTenant = cmp.Or(e.Approval.MaxParkedPerTenant, service.DefaultMaxParkedPerTenant)
	e.Fleet.Lease = cmp.Or(e.Fleet.Lease, Duration(15*time.Second))
	e.TenantSecrets.MaxBytes = cmp.Or(e.TenantSecrets.MaxBytes, Size(tenantsecret.DefaultMaxBytes))
	e.Identity.TokenExchange.Timeout = cmp.Or(e.Identity.TokenExchange.Timeout, Duration(tokenexchange.DefaultTimeout))
	e.Identity.TokenExchange.CacheMaxEntries = cmp.Or(e.Identity.TokenExchange.CacheMaxEntries, tokenexchange.DefaultCacheMaxEntries)
	if e.Store.Dir == "" && e.Store.Kind == "fs" {
		e.Store.Dir, _ = fsblob.DefaultDir()
	}
	e.Server.Max = c.Ceiling()
	e.Governance.DedupWindow = cmp.Or(e.Governance.DedupWindow, Duration(govern.DefaultDedupWindow))
	e.Governance.Idempotency = cmp.Or(e.Governance.Idempotency, "on")
	e.Server.LogLevel = cmp.Or(e.Server.LogLevel, "info")
	h := e.Governance.HealthOptions().WithDefaults()
	e.Governance.Health = Health{DegradedAfter: h.DegradedAfter, UnavailableAfter: h.UnavailableAfter, Quiet: Duration(h.Quiet)}
	return e
}

// Ceiling returns the effective request ceiling: Server.Max with each zero
// field replaced by the configured chain value.
func (c *Config) Ceiling() Ceiling {
	m := c.Server.Max
	m.Policy = m.Policy.Or(c.Policy.WithDefaults())
	m.Limits = m.Limits.Or(c.Limits.WithDefaults())
	return m
}

// PolicyKeys are the keys of the policy section, in documentation order.
func PolicyKeys() []string { return docKeys(invoker.PolicySettings()) }

// LimitKeys are the keys of the limits section, in documentation order.
func LimitKeys() []string { return docKeys(sandbox.LimitSettings()) }

func docKeys(ds []setting.Doc) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Key
	}
	return out
}

// Where returns where the value at key (a dotted path such as
// "policy.call_timeout") was last set: "file:line", "flag --name" or
// "env NAME"; "" for a default.
func (c *Config) Where(key string) string { return c.pos[key] }

func (c *Config) clone() *Config {
	e := *c
	e.Tools.Builtin = append([]string(nil), c.Tools.Builtin...)
	e.Tools.HTTP = append([]HTTPTool(nil), c.Tools.HTTP...)
	e.Profiles = make(map[string]Profile, len(c.Profiles))
	for k, v := range c.Profiles {
		e.Profiles[k] = v
	}
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
