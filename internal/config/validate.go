package config

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/internal/setting"
	"github.com/airlockrt/airlock/internal/tenantsecret"
	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/toolbox"
)

// BuiltinSets are the names Tools.Builtin accepts.
var BuiltinSets = []string{"demo"}

// Validate checks the rules that span fields or need every layer applied:
// ApprovalTimeout shorter than CallTimeout, the store's required fields,
// API keys and tenants, ceilings not below the chain values, and so on.
// HTTP tool definitions are checked where the tools are built
// (internal/assemble), at their positions. Each problem is an *Error at the
// position of the value to change; all of them are joined.
func (c *Config) Validate() error {
	v := &validator{c: c}

	// Policy and limits, each checked by its owner.
	v.owner("policy", c.Policy.Validate())
	v.owner("limits", c.Limits.Validate())
	v.owner("guest", c.Guest.Validate())

	// Tools.
	for i, name := range c.Tools.Builtin {
		if !slices.Contains(BuiltinSets, name) {
			v.fail(fmt.Sprintf("tools.builtin[%d]", i), "%q is not a built-in tool set (known: %v)", name, BuiltinSets)
		}
	}
	for name := range c.Tools.Risk {
		if !toolbox.ValidName(name) {
			v.fail("tools.risk."+name, "%q is not a tool name", name)
		}
	}
	// Store.
	switch c.Store.Kind {
	case "fs":
	case "s3":
		if c.Store.S3.Endpoint == "" {
			v.fail("store.s3.endpoint", "is required for an s3 store (or set AIRLOCK_S3_ENDPOINT)")
		}
		if c.Store.S3.Bucket == "" {
			v.fail("store.s3.bucket", "is required for an s3 store (or set AIRLOCK_S3_BUCKET)")
		}
	default:
		v.fail("store.kind", "%q must be fs or s3", c.Store.Kind)
	}

	// Server.
	if _, port, err := net.SplitHostPort(c.Server.Addr); err != nil {
		v.fail("server.addr", "%q is not host:port (write e.g. 127.0.0.1:8080)", c.Server.Addr)
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		v.fail("server.addr", "port %q is not a number from 0 to 65535", port)
	}
	keys := map[string]int{}
	for i, k := range c.Server.APIKeys {
		key := fmt.Sprintf("server.api_keys[%d]", i)
		if len(k.Key) < 16 {
			v.fail(key+".key", "an API key must be at least 16 characters")
		} else if j, dup := keys[string(k.Key)]; dup {
			v.fail(key+".key", "is the same key as server.api_keys[%d]", j)
		}
		keys[string(k.Key)] = i
		if !blobstore.ValidTenant(k.Tenant) {
			v.fail(key+".tenant", "%q is not a tenant id (1 to 64 of a-z, 0-9, _ and -, starting with a letter or digit)", k.Tenant)
		}
		switch k.Role {
		case "", RoleAll, RoleSubmit, RoleApprover:
		default:
			v.fail(key+".role", "%q must be all (the default), submit or approver", k.Role)
		}
	}
	for _, key := range positiveKeys {
		if f, ok := c.fieldAt(key); ok && f.Int() <= 0 {
			v.fail(key, "must be greater than zero")
		}
	}
	if k := c.Server.MetricsKey; k != "" && len(k) < 16 {
		v.fail("server.metrics_key", "the metrics key must be at least 16 characters")
	}
	if a := c.Server.MetricsAddr; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			v.fail("server.metrics_addr", "%q is not host:port (write e.g. 127.0.0.1:9090)", a)
		}
	}
	if k := c.Fleet.Key; k != "" && len(k) < 32 {
		v.fail("fleet.key", "the fleet key must be at least 32 characters (write ${env:NAME} to read it from the environment)")
	}
	switch k := c.Fleet.PreviousKey; {
	case k == "":
	case len(k) < 32:
		v.fail("fleet.previous_key", "the previous fleet key must be at least 32 characters (write ${env:NAME} to read it from the environment)")
	case c.Fleet.Key == "":
		v.fail("fleet.previous_key", "is accepted besides fleet.key: set fleet.key too")
	}
	if c.Fleet.Lease != 0 && c.Fleet.Lease.D() < time.Second {
		v.fail("fleet.lease", "%s is too short: at least 1s", c.Fleet.Lease.D())
	}
	if ttl := c.Approval.ParkTTL.D(); ttl < 0 || ttl >= blobstore.DefaultRecordTTL {
		v.fail("approval.park_ttl", "%s must be positive and shorter than the %s the store keeps records after their last write", ttl, blobstore.DefaultRecordTTL)
	}
	for key, n := range map[string]int64{"approval.max_wakes": int64(c.Approval.MaxWakes),
		"approval.max_park_bytes": int64(c.Approval.MaxParkBytes), "approval.max_parked_per_tenant": int64(c.Approval.MaxParkedPerTenant)} {
		if n < 0 {
			v.fail(key, "%d must not be negative (0 or unset: the default)", n)
		}
	}
	if c.Approval.Mode == ApprovalPark && c.Fleet.Key == "" {
		v.fail("approval.mode", "park keeps chains in the fleet's store: set fleet.key too")
	}
	if d := c.Server.MCPTaskAfter.D(); d < 0 {
		v.fail("server.mcp_task_after", "%s must not be negative (0 or unset: the default)", d)
	}
	switch c.Server.LogLevel {
	case "", "debug", "info", "warn", "error":
	default:
		v.fail("server.log_level", "%q must be debug, info (the default), warn or error", c.Server.LogLevel)
	}
	c.validateCeiling(v)
	v.owner("tenant_secrets", c.TenantSecrets.Options(nil).Validate())
	if c.Identity.TokenExchange.On() {
		v.owner("identity.token_exchange", c.Identity.TokenExchange.Options().Validate())
	}

	c.validateGovernance(v)

	// Tracing.
	switch c.Tracing.Exporter {
	case "", "stdout":
	case "otlp":
		if c.Tracing.Endpoint == "" {
			v.fail("tracing.endpoint", "is required for the otlp exporter (write e.g. 127.0.0.1:4318)")
		}
	default:
		v.fail("tracing.exporter", "%q must be otlp, stdout or empty (off)", c.Tracing.Exporter)
	}
	if r := c.Tracing.SampleRatio; r < 0 || r > 1 {
		v.fail("tracing.sample_ratio", "%g must be between 0 and 1", r)
	}
	return errors.Join(v.errs...)
}

// validateCeiling rejects a ceiling below the chain value it caps: every
// chain submitted with the configured values would be refused.
func (c *Config) validateCeiling(v *validator) {
	m := c.Server.Max
	v.owner("server.max", c.Policy.CheckCeiling(m.Policy))
	v.owner("server.max", c.Limits.CheckCeiling(m.Limits))
	v.owner("server.max", m.Limits.Validate())
}

type validator struct {
	c    *Config
	errs []error
}

// fail records a problem with the value at key, at the position of key or
// of the nearest section above it that was set.
func (v *validator) fail(key, format string, args ...any) {
	v.errs = append(v.errs, &Error{Pos: v.c.nearest(key), Key: key, Reason: fmt.Sprintf(format, args...)})
}

// owner records an owner's validation error at the position of the key it
// names under section; why, when set, is appended to its message.
func (v *validator) owner(section string, err error, why ...string) {
	if err == nil {
		return
	}
	var ke *setting.KeyError
	if !errors.As(err, &ke) {
		v.fail(section, "%s", strings.Join(append([]string{err.Error()}, why...), " "))
		return
	}
	key := section + "." + ke.Key
	if ke.Key == "approval_timeout" && v.c.Where(key) == "" && v.c.Where(section+".call_timeout") != "" {
		key = section + ".call_timeout" // the value the user set is the one to change
	}
	v.errs = append(v.errs, &Error{Pos: v.c.nearest(key), Key: key, Reason: strings.Join(append([]string{ke.Msg}, why...), " ")})
}

// nearest returns where the value at key was set or, for a key never set,
// where the nearest section above it was ("store.s3.endpoint": "store.s3",
// then "store"); "" when none was.
func (c *Config) nearest(key string) string {
	for key != "" {
		if pos := c.Where(key); pos != "" {
			return pos
		}
		if i := strings.LastIndexAny(key, ".["); i >= 0 {
			key = key[:i]
		} else {
			key = ""
		}
	}
	return ""
}

// positiveKeys are the keys whose value must be greater than zero.
var positiveKeys = []string{
	"server.max_request_bytes", "server.shutdown_timeout", "server.max_concurrent_chains", "server.max_streams_per_tenant",
	"server.max_pending_calls", "server.max_caller_result_bytes",
	"server.result_ttl", "server.max_results", "server.max_results_bytes", "server.body_timeout",
}

// keyBounds describes the bounds Validate checks on keys outside the
// owners' tables, for docs/config.md.
func keyBounds() map[string]string {
	b := map[string]string{
		"fleet.lease":                               "at least 1s",
		"fleet.key":                                 "at least 32 characters",
		"fleet.previous_key":                        "at least 32 characters",
		"server.metrics_key":                        "at least 16 characters",
		"tracing.sample_ratio":                      "0 to 1",
		"approval.park_ttl":                         "above 0, below " + blobstore.DefaultRecordTTL.String(),
		"approval.max_wakes":                        "0 or more (0: the default)",
		"approval.max_park_bytes":                   "0 or more (0: the default)",
		"approval.max_parked_per_tenant":            "0 or more (0: the default)",
		"governance.dedup_window":                   "at most " + blobstore.DefaultRecordTTL.String(),
		"server.mcp_task_after":                     "0 or more (0: the default)",
		"tenant_secrets.dir":                        "an absolute path; not with env_prefix",
		"tenant_secrets.env_prefix":                 "1 to 64 of A-Z, 0-9 and _, starting with a letter",
		"tenant_secrets.max_bytes":                  fmt.Sprintf("0 (the default) to %s", setting.FormatSize(tenantsecret.MaxMaxBytes)),
		"identity.token_exchange.token_url":         "an absolute http or https URL without credentials",
		"identity.token_exchange.client_id":         "required with token_url",
		"identity.token_exchange.timeout":           "0 (the default) to " + tokenexchange.MaxTimeout.String(),
		"identity.token_exchange.cache_max_entries": fmt.Sprintf("0 (the default) to %d", tokenexchange.MaxCacheMaxEntries),
	}
	for _, k := range positiveKeys {
		b[k] = "above 0"
	}
	return b
}
