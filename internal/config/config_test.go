package config_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

func write(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "airlock.yaml")
	require.NoError(t, os.WriteFile(p, []byte(yaml), 0o600))
	return p
}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

const full = `# every section
policy:
  max_tool_calls: 20
  call_timeout: 30s
  approval_timeout: 20s
  max_risk_unapproved: high
  max_inline_result_bytes: 8KiB
  preview_chars: 100
  max_argument_bytes: 512KiB
  max_resolved_bytes: 32MiB
tools:
  builtin: [demo]
  risk:
    send_message: CRITICAL
    kv_set: HIGH
  http:
    - name: forecast
      description: Weather forecast of a city
      url: https://api.example.com/v1/forecast/{city}
      method: GET
      timeout: 5s
      max_response_bytes: 64KiB
      input_schema:
        type: object
        properties:
          city: {type: string, description: city name}
        required: [city]
      headers:
        Authorization: Bearer ${env:WEATHER_TOKEN}
        X-Team: platform-secret-literal
        Accept: application/json
    - name: notify
      description: Post a notification
      url: http://127.0.0.1:9/notify
approval:
  mode: queue
store:
  kind: s3
  ttl: 2h
  max_blob_bytes: 512MiB
  s3:
    endpoint: https://s3.example.com
    bucket: artifacts
    access_key: AKIAEXAMPLE
    secret_key: ${env:S3_SECRET}
    use_tls: true
    region: eu-west-1
    prefix: airlock/
limits:
  timeout: 2m
  memory: 128MiB
  max_log_bytes: 256KiB
  max_result_bytes: 2MiB
  max_in_flight: 8
  max_args_bytes: 512KiB
server:
  addr: 0.0.0.0:9090
  api_keys:
    - key: ${env:ACME_KEY}
      tenant: acme
    - key: globex-key-0123456789
      tenant: globex
      role: approver
  max_request_bytes: 2MiB
  shutdown_timeout: 10s
  max_concurrent_chains: 16
  result_ttl: 1h
  max:
    max_tool_calls: 100
    call_timeout: 1m
    max_risk_unapproved: CRITICAL
    timeout: 5m
    memory: 256MiB
    max_log_bytes: 1MiB
    max_result_bytes: 4MiB
tracing:
  exporter: otlp
  endpoint: 127.0.0.1:4318
  insecure: true
  sample_ratio: 0.5
  service_name: airlock-test
`

var fullEnv = map[string]string{"S3_SECRET": "s3-secret-value-xyz", "ACME_KEY": "acme-key-from-env-0123"}

func TestLoadFull(t *testing.T) {
	c, err := config.Load(config.Sources{File: write(t, full), LookupEnv: env(fullEnv)})
	require.NoError(t, err)

	require.Equal(t, invoker.Policy{
		MaxToolCalls: 20, CallTimeout: 30 * time.Second, ApprovalTimeout: 20 * time.Second,
		MaxRiskUnapproved: toolbox.High, MaxInlineResultBytes: 8 << 10, PreviewChars: 100,
		MaxArgumentBytes: 512 << 10, MaxResolvedBytes: 32 << 20,
	}, c.Policy)
	require.Equal(t, sandbox.Limits{
		Timeout: 2 * time.Minute, MemoryBytes: 128 << 20, MaxLogBytes: 256 << 10,
		MaxResultBytes: 2 << 20, MaxInFlight: 8, MaxArgsBytes: 512 << 10,
	}, c.Limits)
	require.Equal(t, config.ApprovalQueue, c.Approval.Mode)
	require.Equal(t, map[string]toolbox.Risk{"send_message": toolbox.Critical, "kv_set": toolbox.High}, c.Tools.Risk)
	require.Len(t, c.Tools.HTTP, 2)
	require.Equal(t, toolbox.Safe, c.Tools.HTTP[0].RiskLevel(), "GET defaults to SAFE")
	require.Equal(t, toolbox.High, c.Tools.HTTP[1].RiskLevel(), "POST defaults to HIGH")
	require.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string","description":"city name"}},"required":["city"]}`,
		string(c.Tools.HTTP[0].InputSchema))
	require.Equal(t, "s3-secret-value-xyz", c.Store.S3.SecretKey.Reveal())
	require.Equal(t, 2*time.Hour, c.Store.TTL.D())
	require.True(t, c.Store.S3.UseTLS)

	tenant, ok := c.Server.TenantFor("acme-key-from-env-0123")
	require.True(t, ok)
	require.Equal(t, "acme", tenant)
	tenant, ok = c.Server.TenantFor("globex-key-0123456789")
	require.True(t, ok)
	require.Equal(t, "globex", tenant)
	_, ok = c.Server.TenantFor("nope")
	require.False(t, ok)
	_, ok = c.Server.TenantFor("")
	require.False(t, ok)
	require.Equal(t, config.RoleAll, c.Server.RoleFor("acme-key-from-env-0123"))
	require.Equal(t, config.RoleApprover, c.Server.RoleFor("globex-key-0123456789"))
	require.Equal(t, "", c.Server.RoleFor("nope"))

	require.Equal(t, 0.5, c.Tracing.SampleRatio)
	require.True(t, strings.HasSuffix(c.Where("policy.call_timeout"), "airlock.yaml:4"), c.Where("policy.call_timeout"))
	require.True(t, strings.HasSuffix(c.Where("tools.http[0].url"), "airlock.yaml:19"), c.Where("tools.http[0].url"))
	require.Empty(t, c.Where("approval.nothing"))
}

func TestDefaults(t *testing.T) {
	c, err := config.Load(config.Sources{})
	require.NoError(t, err)
	require.Equal(t, invoker.Policy{}, c.Policy, "zero: the invoker's defaults")
	require.Equal(t, sandbox.Limits{}, c.Limits, "zero: the sandbox's defaults")
	require.Equal(t, []string{"demo"}, c.Tools.Builtin)
	require.Equal(t, "fs", c.Store.Kind)
	require.Equal(t, "127.0.0.1:8080", c.Server.Addr)
	require.Empty(t, c.Tracing.Exporter)

	e := c.Effective()
	require.Equal(t, 50, e.Policy.MaxToolCalls)
	require.Equal(t, 55*time.Second, e.Policy.ApprovalTimeout)
	require.Equal(t, uint64(64<<20), e.Limits.MemoryBytes)
	require.Equal(t, 300*time.Second, e.Limits.Timeout)
	require.Equal(t, 50, e.Server.Max.Policy.MaxToolCalls)

	for _, empty := range []string{"", "# nothing\n", "---\n", "null\n"} {
		c, err := config.Parse("empty.yaml", []byte(empty))
		require.NoError(t, err, "%q", empty)
		require.Equal(t, []string{"demo"}, c.Tools.Builtin)
	}

	c, err = config.Parse("x.yaml", []byte("tools:\n  builtin: []\npolicy:\n  call_timeout:\n"))
	require.NoError(t, err)
	require.Empty(t, c.Tools.Builtin, "an explicit empty list turns the demo tools off")
	require.Zero(t, c.Policy.CallTimeout, "an empty value keeps the default")
}

// TestRejections checks that every kind of bad value is refused with the
// file, the line and a reason.
func TestRejections(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		// Structure.
		{"syntax error", "policy:\n  call_timeout: a: b\n", `airlock.yaml:2: not valid YAML: mapping values are not allowed in this context`},
		{"tab indentation", "policy:\n\tcall_timeout: 30s\n", `airlock.yaml:2: not valid YAML`},
		{"two documents", "policy: {}\n---\nlimits: {}\n", `airlock.yaml:2: holds more than one YAML document`},
		{"top level not a mapping", "- a\n- b\n", `airlock.yaml:1: must be a mapping`},
		{"unknown top-level key", "polcy:\n  call_timeout: 30s\n", `airlock.yaml:1: polcy: unknown key at the top level; known keys: policy, tools`},
		{"unknown nested key", "policy:\n  call_timout: 30s\n", `airlock.yaml:2: policy.call_timout: unknown key in policy`},
		{"unknown key in list item", "tools:\n  http:\n    - name: a\n      urll: x\n", `airlock.yaml:4: tools.http[0].urll: unknown key in tools.http[0]`},
		{"unknown key in api key", "server:\n  api_keys:\n    - key: 0123456789abcdef\n      tenant: a\n      scope: admin\n", `airlock.yaml:5: server.api_keys[0].scope: unknown key`},
		{"unknown role", "server:\n  api_keys:\n    - key: 0123456789abcdef\n      tenant: a\n      role: admin\n", `airlock.yaml:5: server.api_keys[0].role: "admin" must be all (the default), submit or approver`},
		{"duplicate key", "policy:\n  call_timeout: 30s\n  call_timeout: 40s\n", `airlock.yaml:3: policy.call_timeout: appears twice (first on line 2)`},
		{"duplicate map key", "tools:\n  risk:\n    a: HIGH\n    a: SAFE\n", `airlock.yaml:4: tools.risk.a: appears twice`},
		{"section is a scalar", "policy: strict\n", `airlock.yaml:1: policy: must be a mapping of keys to values, not a single value`},
		{"list expected", "tools:\n  builtin: demo\n", `airlock.yaml:2: tools.builtin: must be a list`},
		{"scalar expected", "server:\n  addr: [a, b]\n", `airlock.yaml:2: server.addr: must be a single value, not a list`},
		{"complex key", "policy:\n  ? [a]\n  : 1\n", `airlock.yaml:2: policy: keys must be plain words`},
		{"map expected", "tools:\n  risk: [a]\n", `airlock.yaml:2: tools.risk: must be a mapping of names to values`},

		// Values.
		{"bad duration", "policy:\n  call_timeout: 30\n", `airlock.yaml:2: policy.call_timeout: "30" is not a duration (write e.g. 30s`},
		{"negative duration", "limits:\n  timeout: -5s\n", `airlock.yaml:2: limits.timeout: "-5s" must not be negative`},
		{"duration as list", "limits:\n  timeout: [5s]\n", `airlock.yaml:2: limits.timeout: must be a single value, not a list`},
		{"bad size", "limits:\n  memory: 64 megs\n", `airlock.yaml:2: limits.memory: "64 megs" is not a size (write e.g. 4096, 512KiB or 64MiB)`},
		{"negative size", "limits:\n  memory: -1MiB\n", `airlock.yaml:2: limits.memory: "-1MiB" must not be negative`},
		{"huge size", "limits:\n  memory: 99999999999GiB\n", `airlock.yaml:2: limits.memory: "99999999999GiB" is too large`},
		{"fractional size", "limits:\n  memory: 1.5MiB\n", `airlock.yaml:2: limits.memory: "1.5MiB" is not a size`},
		{"bad int", "policy:\n  max_tool_calls: many\n", `airlock.yaml:2: policy.max_tool_calls: "many" is not a whole number`},
		{"float for int", "policy:\n  max_tool_calls: 2.5\n", `airlock.yaml:2: policy.max_tool_calls: "2.5" is not a whole number`},
		{"negative int", "policy:\n  max_tool_calls: -1\n", `airlock.yaml:2: policy.max_tool_calls: "-1" must not be negative`},
		{"int too large", "limits:\n  max_in_flight: 99999999999\n", `airlock.yaml:2: limits.max_in_flight: "99999999999" is not a whole number`},
		{"bad bool", "store:\n  s3:\n    use_tls: yes\n", `airlock.yaml:3: store.s3.use_tls: "yes" must be true or false`},
		{"bad float", "tracing:\n  sample_ratio: half\n", `airlock.yaml:2: tracing.sample_ratio: "half" is not a number`},
		{"nan float", "tracing:\n  sample_ratio: .nan\n", `airlock.yaml:2: tracing.sample_ratio: ".nan" is not a number`},
		{"bad risk", "policy:\n  max_risk_unapproved: medium\n", `airlock.yaml:2: policy.max_risk_unapproved: "medium" is not a risk level (write SAFE, HIGH or CRITICAL)`},
		{"bad risk override", "tools:\n  risk:\n    send_message: extreme\n", `airlock.yaml:3: tools.risk.send_message: "extreme" is not a risk level`},
		{"bad approval mode", "approval:\n  mode: maybe\n", `airlock.yaml:2: approval.mode: "maybe" must be ask, deny, allow, queue or park`},
		{"unset secret env", "server:\n  api_keys:\n    - key: ${env:NO_SUCH_VAR}\n      tenant: a\n", `airlock.yaml:3: server.api_keys[0].key: environment variable NO_SUCH_VAR is not set`},
		{"partial env secret", "store:\n  s3:\n    secret_key: pre${env:S3_SECRET}\n", `airlock.yaml:3: store.s3.secret_key: write the whole value as ${env:NAME}`},
		{"bad json in schema", "tools:\n  http:\n    - name: a\n      input_schema:\n        type: object\n        minimum: .inf\n", `airlock.yaml:4: tools.http[0].input_schema: line 6: ".inf" is not a JSON number`},

		// Cross-field rules (Validate).
		{"tenant secrets dir relative", "tenant_secrets:\n  dir: secrets\n", `airlock.yaml:2: tenant_secrets.dir: dir "secrets" must be an absolute path`},
		{"tenant secrets both", "tenant_secrets:\n  dir: /run/secrets\n  env_prefix: AIRLOCK_SECRET_\n", `airlock.yaml:3: tenant_secrets.env_prefix: env_prefix and dir are both set: choose one source`},
		{"tenant secrets bad prefix", "tenant_secrets:\n  env_prefix: secret_\n", `airlock.yaml:2: tenant_secrets.env_prefix: env_prefix "secret_" must be 1 to 64 of A-Z`},
		{"tenant secrets too large", "tenant_secrets:\n  dir: /run/secrets\n  max_bytes: 2MiB\n", `airlock.yaml:3: tenant_secrets.max_bytes: max_bytes 2097152 must be 0 (the default, 16384) to 1048576`},
		{"token exchange without client", "identity:\n  token_exchange:\n    token_url: https://sts.example.com/token\n", `airlock.yaml:2: identity.token_exchange.client_id: client_id is required: airlock's client at the token service`},
		{"token exchange without url", "identity:\n  token_exchange:\n    client_id: airlock\n", `airlock.yaml:2: identity.token_exchange.token_url: token_url is required: the token service's token endpoint`},
		{"token exchange bad url", "identity:\n  token_exchange:\n    token_url: sts.example.com\n    client_id: airlock\n", `airlock.yaml:3: identity.token_exchange.token_url: token_url "sts.example.com" must be an absolute http or https URL`},
		{"token exchange long timeout", "identity:\n  token_exchange:\n    token_url: https://sts.example.com/token\n    client_id: airlock\n    timeout: 5m\n", `airlock.yaml:5: identity.token_exchange.timeout: timeout 5m0s must be 0 (the default, 10s) to 1m0s`},
		{"token exchange huge cache", "identity:\n  token_exchange:\n    token_url: https://sts.example.com/token\n    client_id: airlock\n    cache_max_entries: 2000000\n", `airlock.yaml:5: identity.token_exchange.cache_max_entries: cache_max_entries 2000000 must be 0 (the default, 10000) to 1000000`},
		{"short fleet key", "fleet:\n  key: short\n", `airlock.yaml:2: fleet.key: the fleet key must be at least 32 characters`},
		{"short previous fleet key", "fleet:\n  key: fleet-key-0123456789abcdef-0123456789\n  previous_key: short\n", `airlock.yaml:3: fleet.previous_key: the previous fleet key must be at least 32 characters`},
		{"previous fleet key alone", "fleet:\n  previous_key: fleet-key-0123456789abcdef-0123456789\n", `airlock.yaml:2: fleet.previous_key: is accepted besides fleet.key: set fleet.key too`},
		{"short lease", "fleet:\n  key: fleet-key-0123456789abcdef-0123456789\n  lease: 100ms\n", `airlock.yaml:3: fleet.lease: 100ms is too short: at least 1s`},
		{"park ttl past the records", "approval:\n  park_ttl: 200h\n", `airlock.yaml:2: approval.park_ttl: 200h0m0s must be positive and shorter than the 168h0m0s the store keeps records`},
		{"park without fleet", "approval:\n  mode: park\n", `airlock.yaml:2: approval.mode: park keeps chains in the fleet's store: set fleet.key too`},
		{"approval not shorter", "policy:\n  call_timeout: 30s\n  approval_timeout: 30s\n", `airlock.yaml:3: policy.approval_timeout: approval_timeout (30s) must be shorter than call_timeout (30s)`},
		{"approval above default call", "policy:\n  approval_timeout: 90s\n", `airlock.yaml:2: policy.approval_timeout: approval_timeout (1m30s) must be shorter than call_timeout (1m0s)`},
		{"unknown builtin", "tools:\n  builtin: [demo, extras]\n", `airlock.yaml:2: tools.builtin[1]: "extras" is not a built-in tool set`},
		{"bad tool name in risk", "tools:\n  risk:\n    Send Message: HIGH\n", `airlock.yaml:3: tools.risk.Send Message: "Send Message" is not a tool name`},
		{"bad store kind", "store:\n  kind: gcs\n", `airlock.yaml:2: store.kind: "gcs" must be fs or s3`},
		{"s3 without endpoint", "store:\n  kind: s3\n  s3:\n    bucket: b\n", `airlock.yaml:3: store.s3.endpoint: is required for an s3 store`},
		{"s3 without bucket", "store:\n  kind: s3\n  s3:\n    endpoint: x:9000\n", `airlock.yaml:3: store.s3.bucket: is required`},
		{"memory too small", "limits:\n  memory: 4KiB\n", `airlock.yaml:2: limits.memory: memory (4KiB) must be at least 1MiB`},
		{"memory too large", "limits:\n  memory: 4GiB\n", `airlock.yaml:2: limits.memory: memory (4GiB) must be at most 3GiB`},
		{"bad addr", "server:\n  addr: localhost\n", `airlock.yaml:2: server.addr: "localhost" is not host:port`},
		{"bad port", "server:\n  addr: 127.0.0.1:http\n", `airlock.yaml:2: server.addr: port "http" is not a number`},
		{"short api key", "server:\n  api_keys:\n    - {key: short, tenant: a}\n", `airlock.yaml:3: server.api_keys[0].key: an API key must be at least 16 characters`},
		{"duplicate api key", "server:\n  api_keys:\n    - {key: 0123456789abcdef, tenant: a}\n    - {key: 0123456789abcdef, tenant: b}\n", `airlock.yaml:4: server.api_keys[1].key: is the same key as server.api_keys[0]`},
		{"bad tenant", "server:\n  api_keys:\n    - {key: 0123456789abcdef, tenant: Acme Corp}\n", `airlock.yaml:3: server.api_keys[0].tenant: "Acme Corp" is not a tenant id`},
		{"missing tenant", "server:\n  api_keys:\n    - {key: 0123456789abcdef}\n", `airlock.yaml:3: server.api_keys[0].tenant: "" is not a tenant id`},
		{"zero request size", "server:\n  max_request_bytes: 0\n", `airlock.yaml:2: server.max_request_bytes: must be greater than zero`},
		{"zero chains", "server:\n  max_concurrent_chains: 0\n", `airlock.yaml:2: server.max_concurrent_chains: must be greater than zero`},
		{"zero shutdown", "server:\n  shutdown_timeout: 0s\n", `airlock.yaml:2: server.shutdown_timeout: must be greater than zero`},
		{"zero result ttl", "server:\n  result_ttl: 0\n", `airlock.yaml:2: server.result_ttl: must be greater than zero`},
		{"ceiling below calls", "server:\n  max:\n    max_tool_calls: 10\n", `airlock.yaml:3: server.max.max_tool_calls: max_tool_calls 10 is below the configured value 50; raise it or lower the configured value`},
		{"ceiling below timeout", "limits:\n  timeout: 2m\nserver:\n  max:\n    timeout: 1m\n", `airlock.yaml:5: server.max.timeout: timeout 1m0s is below the configured value 2m0s`},
		{"ceiling below call timeout", "server:\n  max:\n    call_timeout: 10s\n", `server.max.call_timeout: call_timeout 10s is below the configured value 1m0s`},
		{"ceiling below memory", "server:\n  max:\n    memory: 32MiB\n", `airlock.yaml:3: server.max.memory: memory 32MiB is below the configured value 64MiB`},
		{"ceiling memory too large", "server:\n  max:\n    memory: 4GiB\n", `airlock.yaml:3: server.max.memory: memory (4GiB) must be at most 3GiB`},
		{"ceiling below logs", "server:\n  max:\n    max_log_bytes: 1KiB\n", `server.max.max_log_bytes: max_log_bytes 1KiB is below the configured value 1MiB`},
		{"ceiling below result", "server:\n  max:\n    max_result_bytes: 1KiB\n", `server.max.max_result_bytes: max_result_bytes 1KiB is below the configured value 1MiB`},
		{"bad clock", "guest:\n  clock: sundial\n", `airlock.yaml:2: guest.clock: sandbox: invalid guest setting: clock: "sundial" is not "real" or "virtual"`},
		{"bad seed", "guest:\n  seed: -4\n", `airlock.yaml:2: guest.seed: sandbox: invalid guest setting: seed: "-4" is not a whole number`},
		{"unknown guest key", "guest:\n  speed: 2\n", `airlock.yaml:2: guest.speed: unknown key in guest; known keys: clock, seed`},
		{"bad exporter", "tracing:\n  exporter: jaeger\n", `airlock.yaml:2: tracing.exporter: "jaeger" must be otlp, stdout or empty (off)`},
		{"otlp without endpoint", "tracing:\n  exporter: otlp\n", `airlock.yaml:1: tracing.endpoint: is required for the otlp exporter`},
		{"sample ratio above one", "tracing:\n  sample_ratio: 1.5\n", `airlock.yaml:2: tracing.sample_ratio: 1.5 must be between 0 and 1`},

		// Governance.
		{"bad autonomy", "profiles:\n  r:\n    autonomy: yolo\n", `airlock.yaml:3: profiles.r.autonomy: govern: invalid profile: autonomy:`},
		{"bad gate", "profiles:\n  r:\n    gates: {supervised: {HIGH: maybe}}\n", `airlock.yaml:3: profiles.r.gates: govern: invalid profile: gates.supervised.HIGH: govern: unknown gate "maybe"`},
		{"bad scope", "profiles:\n  r:\n    scopes: [Repo Read]\n", `airlock.yaml:3: profiles.r.scopes: govern: invalid profile: profile "r": scopes[0]`},
		{"bad policy kind", "profiles:\n  r:\n    policies:\n      - {kind: vibes}\n", `airlock.yaml:4: profiles.r.policies[0]: policies[0]: govern: invalid call policy: kind "vibes"`},
		{"bad policy pattern", "profiles:\n  r:\n    policies:\n      - {kind: argument, tool: x, arg: a, pattern: \"(\"}\n", `airlock.yaml:4: profiles.r.policies[0]: policies[0]: govern: invalid call policy: argument "a": pattern`},
		{"unknown policy key", "profiles:\n  r:\n    policies:\n      - {kind: call_limit, tool: x, maximum: 3}\n", `airlock.yaml:4: profiles.r.policies[0].maximum: unknown key`},
		{"profile loosens limits", "profiles:\n  r:\n    limits: {max_tool_calls: 100}\n", `airlock.yaml:3: profiles.r.limits.max_tool_calls: max_tool_calls 100 is above this server's value of 50 (a profile may only tighten the policy section)`},
		{"unknown default profile", "default_profile: admin\n", `airlock.yaml:1: default_profile: no profile named "admin" (profiles: none)`},
		{"unknown key profile", "profiles:\n  r: {}\nserver:\n  api_keys:\n    - {key: 0123456789abcdef, tenant: a, profile: w}\n", `airlock.yaml:5: server.api_keys[0].profile: no profile named "w" (profiles: r)`},
		{"dedup window too long", "governance:\n  dedup_window: 200h\n", `airlock.yaml:2: governance.dedup_window: 200h0m0s is longer than the store keeps idempotency records (168h0m0s)`},
		{"bad idempotency", "governance:\n  idempotency: maybe\n", `airlock.yaml:2: governance.idempotency: "maybe" must be on or off`},
		{"bad health", "governance:\n  health: {degraded_after: 5, unavailable_after: 2}\n", `airlock.yaml:2: governance.health:`},
		{"bad rate", "governance:\n  tools:\n    send: {rate: fast}\n", `airlock.yaml:3: governance.tools.send.rate: govern: invalid rate "fast"`},
		{"bad class", "governance:\n  tools:\n    send: {class: big}\n", `airlock.yaml:3: governance.tools.send.class: toolbox: unknown class "big"`},
		{"bad rules tool name", "governance:\n  tools:\n    Send It: {rate: 1/s}\n", `airlock.yaml:3: governance.tools.Send It: "Send It" is not a tool name`},
		{"bad log level", "server:\n  log_level: loud\n", `airlock.yaml:2: server.log_level: "loud" must be debug, info (the default), warn or error`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.yaml)
			_, err := config.Load(config.Sources{File: path, LookupEnv: env(fullEnv)})
			require.Error(t, err)
			require.ErrorIs(t, err, config.ErrInvalid)
			msg := strings.ReplaceAll(err.Error(), path, "airlock.yaml")
			require.Contains(t, msg, tc.want)
		})
	}
}

func TestGuestSection(t *testing.T) {
	c, err := config.Load(config.Sources{File: write(t, "guest:\n  clock: virtual\n  seed: 42\n")})
	require.NoError(t, err)
	require.Equal(t, sandbox.Guest{Clock: sandbox.ClockVirtual, Seed: 42}, c.Guest)
	c, err = config.Load(config.Sources{Flags: []config.Flag{{Name: "seed", Key: "guest.seed", Value: "9"}}})
	require.NoError(t, err)
	require.Equal(t, sandbox.Guest{Seed: 9}, c.Guest)
	var out strings.Builder
	require.NoError(t, c.Print(&out))
	require.Contains(t, out.String(), "guest:\n  clock: real\n  seed: 9\n")
}

func TestManyErrorsReportedTogether(t *testing.T) {
	_, err := config.Parse("x.yaml", []byte("policy:\n  call_timeout: soon\n  max_tool_calls: lots\nlimits:\n  memory: big\nbogus: 1\n"))
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Equal(t, []string{
		`x.yaml:2: policy.call_timeout: "soon" is not a duration (write e.g. 30s, 1m30s or 250ms)`,
		`x.yaml:3: policy.max_tool_calls: "lots" is not a whole number (at most 2147483647)`,
		`x.yaml:5: limits.memory: "big" is not a size (write e.g. 4096, 512KiB or 64MiB)`,
		`x.yaml:6: bogus: unknown key at the top level; known keys: policy, tools, approval, store, limits, guest, server, tracing, profiles, default_profile, governance, mcp_servers, fleet, tenant_secrets, identity`,
	}, lines)
	var ce *config.Error
	require.True(t, errors.As(err, &ce))
	require.Equal(t, "x.yaml:2", ce.Pos)
	require.Equal(t, "policy.call_timeout", ce.Key)
}

func TestMissingFile(t *testing.T) {
	_, err := config.Load(config.Sources{File: filepath.Join(t.TempDir(), "nope.yaml")})
	require.ErrorIs(t, err, os.ErrNotExist)
	require.ErrorContains(t, err, "nope.yaml")
}

func TestPrecedence(t *testing.T) {
	path := write(t, "limits:\n  timeout: 10s\n  memory: 32MiB\n  max_in_flight: 4\napproval:\n  mode: deny\n")
	c, err := config.Load(config.Sources{
		File: path,
		Flags: []config.Flag{
			{Name: "timeout", Key: "limits.timeout", Value: "20s"},
			{Name: "memory", Key: "limits.memory", Value: "48MiB"},
			{Name: "approve", Key: "approval.mode", Value: "ask"},
			{Name: "tools", Key: "tools.builtin", Value: "demo"},
		},
		Env: []string{
			"AIRLOCK_LIMITS_MEMORY=96MiB",
			"AIRLOCK_POLICY_MAX_TOOL_CALLS=7",
			"AIRLOCK_APPROVAL_MODE=", // empty: ignored
			"AIRLOCK_UNRELATED_THING=1",
			"PATH=/bin",
		},
	})
	require.NoError(t, err)
	require.Equal(t, 20*time.Second, c.Limits.Timeout, "flag over file")
	require.Equal(t, uint64(96<<20), c.Limits.MemoryBytes, "env over flag")
	require.Equal(t, 4, c.Limits.MaxInFlight, "file over default")
	require.Equal(t, 7, c.Policy.MaxToolCalls, "env over default")
	require.Equal(t, config.ApprovalAsk, c.Approval.Mode)
	require.Equal(t, "flag --timeout", c.Where("limits.timeout"))
	require.Equal(t, "env AIRLOCK_LIMITS_MEMORY", c.Where("limits.memory"))
	require.True(t, strings.HasSuffix(c.Where("limits.max_in_flight"), "airlock.yaml:4"))
}

func TestFlagAndEnvRejections(t *testing.T) {
	tests := []struct {
		name string
		src  config.Sources
		want string
	}{
		{"bad flag duration", config.Sources{Flags: []config.Flag{{Name: "timeout", Key: "limits.timeout", Value: "soon"}}},
			`flag --timeout: limits.timeout: "soon" is not a duration`},
		{"bad flag size", config.Sources{Flags: []config.Flag{{Name: "memory", Key: "limits.memory", Value: "64M"}}},
			`flag --memory: limits.memory: "64M" is not a size`},
		{"bad flag int", config.Sources{Flags: []config.Flag{{Name: "max-calls", Key: "policy.max_tool_calls", Value: "-2"}}},
			`flag --max-calls: policy.max_tool_calls: "-2" must not be negative`},
		{"bad flag mode", config.Sources{Flags: []config.Flag{{Name: "approve", Key: "approval.mode", Value: "yes"}}},
			`flag --approve: approval.mode: "yes" must be ask, deny, allow, queue or park`},
		{"unknown flag key", config.Sources{Flags: []config.Flag{{Name: "x", Key: "limits.nope", Value: "1"}}},
			`flag --x: limits.nope: is not a configuration key`},
		{"section flag key", config.Sources{Flags: []config.Flag{{Name: "x", Key: "limits", Value: "1"}}},
			`flag --x: limits: is not a configuration key`},
		{"bad env", config.Sources{Env: []string{"AIRLOCK_LIMITS_TIMEOUT=forever"}},
			`env AIRLOCK_LIMITS_TIMEOUT: limits.timeout: "forever" is not a duration`},
		{"bad env bool", config.Sources{Env: []string{"AIRLOCK_S3_USE_TLS=maybe"}},
			`env AIRLOCK_S3_USE_TLS: store.s3.use_tls: "maybe" must be true or false`},
		{"bad env api keys", config.Sources{Env: []string{"AIRLOCK_SERVER_API_KEYS=justakey"}},
			`env AIRLOCK_SERVER_API_KEYS: server.api_keys: entry 1 is not tenant:key or tenant:key:role`},
		{"env api key with a bad role", config.Sources{Env: []string{"AIRLOCK_SERVER_API_KEYS=acme:0123456789abcdef:boss"}},
			`env AIRLOCK_SERVER_API_KEYS: server.api_keys[0].role: "boss" must be all (the default), submit or approver`},
		{"env api key with too many colons", config.Sources{Env: []string{"AIRLOCK_SERVER_API_KEYS=acme:0123:4567:89abcdef:submit"}},
			`env AIRLOCK_SERVER_API_KEYS: server.api_keys: entry 1 is not tenant:key or tenant:key:role`},
		{"cross-field from flags", config.Sources{Flags: []config.Flag{{Name: "call-timeout", Key: "policy.call_timeout", Value: "10s"}, {Name: "approval-timeout", Key: "policy.approval_timeout", Value: "15s"}}},
			`flag --approval-timeout: policy.approval_timeout: approval_timeout (15s) must be shorter than call_timeout (10s)`},
		{"bad builtin from flag", config.Sources{Flags: []config.Flag{{Name: "tools", Key: "tools.builtin", Value: "demo,weather"}}},
			`flag --tools: tools.builtin[1]: "weather" is not a built-in tool set`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(tc.src)
			require.ErrorIs(t, err, config.ErrInvalid)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestEnvAliasesAndAPIKeys(t *testing.T) {
	c, err := config.Load(config.Sources{Env: []string{
		"AIRLOCK_STORE_KIND=s3",
		"AIRLOCK_S3_ENDPOINT=127.0.0.1:9000",
		"AIRLOCK_S3_BUCKET=alias-bucket",
		"AIRLOCK_STORE_S3_BUCKET=canonical-bucket",
		"AIRLOCK_S3_SECRET_KEY=minio-secret",
		"AIRLOCK_S3_USE_TLS=false",
		"AIRLOCK_SERVER_API_KEYS=acme:acme-key-0123456789, globex:globex-key-0123456789",
	}})
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9000", c.Store.S3.Endpoint)
	require.Equal(t, "canonical-bucket", c.Store.S3.Bucket, "the canonical name wins over the alias")
	require.Equal(t, "minio-secret", c.Store.S3.SecretKey.Reveal())
	require.Len(t, c.Server.APIKeys, 2)
	tenant, ok := c.Server.TenantFor("globex-key-0123456789")
	require.True(t, ok)
	require.Equal(t, "globex", tenant)
}

func TestKeys(t *testing.T) {
	keys := config.Keys()
	byKey := map[string]string{}
	for _, k := range keys {
		byKey[k.Key] = k.Env
	}
	for key, envName := range map[string]string{
		"limits.timeout":        "AIRLOCK_LIMITS_TIMEOUT",
		"limits.memory":         "AIRLOCK_LIMITS_MEMORY",
		"policy.max_tool_calls": "AIRLOCK_POLICY_MAX_TOOL_CALLS",
		"approval.mode":         "AIRLOCK_APPROVAL_MODE",
		"server.api_keys":       "AIRLOCK_SERVER_API_KEYS",
		"store.s3.secret_key":   "AIRLOCK_STORE_S3_SECRET_KEY",
		"tools.builtin":         "AIRLOCK_TOOLS_BUILTIN",
	} {
		require.Equal(t, envName, byKey[key], key)
	}
	require.NotContains(t, byKey, "tools.risk", "maps are file-only")
	require.NotContains(t, byKey, "tools.http")
	for _, k := range keys {
		c := config.Default()
		err := c.Set("test", k.Key, "")
		if err != nil {
			require.NotContains(t, err.Error(), "is not a configuration key", "every listed key is settable: %s", k.Key)
		}
	}
}

func TestPrintRedactsSecrets(t *testing.T) {
	c, err := config.Load(config.Sources{File: write(t, full), LookupEnv: env(fullEnv)})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, c.Print(&buf))
	out := buf.String()
	for _, secret := range []string{"s3-secret-value-xyz", "acme-key-from-env-0123", "globex-key-0123456789", "platform-secret-literal"} {
		require.NotContains(t, out, secret)
	}
	require.Contains(t, out, "secret_key: '[REDACTED]'")
	require.Contains(t, out, "Authorization: Bearer ${env:WEATHER_TOKEN}", "an env reference is not a secret")
	require.Contains(t, out, "X-Team: '[REDACTED]'")
	require.Contains(t, out, "Accept: application/json")
	require.Contains(t, out, "tenant: acme")
	require.Contains(t, out, "call_timeout: 30s")
	require.Contains(t, out, "memory: 128MiB")
	require.Contains(t, out, "max_risk_unapproved: HIGH")

	// The printed configuration is itself a valid configuration (secrets
	// aside, which print redacted).
	reparsed := strings.ReplaceAll(out, "'[REDACTED]'", "redacted-0123456789abcdef")
	_, err = config.Parse("printed.yaml", []byte(reparsed))
	require.NoError(t, err)

	// Other ways of printing do not leak either.
	for _, s := range []string{fmt.Sprint(c.Store.S3), fmt.Sprintf("%+v", c.Server.APIKeys), fmt.Sprintf("%#v", c.Store.S3.SecretKey)} {
		require.NotContains(t, s, "s3-secret-value-xyz")
		require.NotContains(t, s, "acme-key-from-env-0123")
	}
	js, _ := json.Marshal(c.Server)
	require.NotContains(t, string(js), "acme-key-from-env-0123")

	var def bytes.Buffer
	require.NoError(t, config.Default().Print(&def))
	require.Contains(t, def.String(), "max_tool_calls: 50", "defaults are printed filled in")
	require.Contains(t, def.String(), "approval_timeout: 55s")
}

// TestEnvAPIKeyRoles: the environment form of server.api_keys expresses
// roles; a role is not silently glued onto the key.
func TestEnvAPIKeyRoles(t *testing.T) {
	c, err := config.Load(config.Sources{Env: []string{
		"AIRLOCK_SERVER_API_KEYS=acme:0123456789abcdef:submit, acme:fedcba9876543210:approver ,beta:0123456789abcdeX",
	}})
	require.NoError(t, err)
	require.Len(t, c.Server.APIKeys, 3)
	tenant, ok := c.Server.TenantFor("0123456789abcdef")
	require.True(t, ok)
	require.Equal(t, "acme", tenant)
	require.Equal(t, config.RoleSubmit, c.Server.RoleFor("0123456789abcdef"))
	require.Equal(t, config.RoleApprover, c.Server.RoleFor("fedcba9876543210"))
	require.Equal(t, config.RoleAll, c.Server.RoleFor("0123456789abcdeX"))
	_, ok = c.Server.TenantFor("0123456789abcdef:submit")
	require.False(t, ok, "the role is not part of the key")
}

func TestSizeAndDuration(t *testing.T) {
	sizes := map[string]int{
		"0": 0, "4096": 4096, "1_000": 1000, "10B": 10, "1KB": 1000, "2KiB": 2048, "64MiB": 64 << 20,
		"1 GiB": 1 << 30, "3MB": 3e6, "1GB": 1e9,
	}
	for in, want := range sizes {
		c, err := config.Parse("x", []byte("limits:\n  max_log_bytes: "+in+"\n"))
		require.NoError(t, err, in)
		require.Equal(t, want, c.Limits.MaxLogBytes, in)
	}
	require.Equal(t, "64MiB", config.Size(64<<20).String())
	require.Equal(t, "1536KiB", config.Size(1536<<10).String())
	require.Equal(t, "1000", config.Size(1000).String())
	require.Equal(t, "0", config.Size(0).String())

	for in, want := range map[string]time.Duration{"0": 0, "250ms": 250 * time.Millisecond, "1m30s": 90 * time.Second, "2h": 2 * time.Hour} {
		c, err := config.Parse("x", []byte("limits:\n  timeout: "+in+"\n"))
		require.NoError(t, err, in)
		require.Equal(t, want, c.Limits.Timeout, in)
	}
}

// TestCeilingCheck: the configured ceiling bounds what a request may ask
// for, through the owners' Tighten; unset ceiling fields are the chain value.
func TestCeilingCheck(t *testing.T) {
	c, err := config.Load(config.Sources{File: write(t, "server:\n  max:\n    max_tool_calls: 80\n    memory: 128MiB\n    approval_timeout: 58s\n")})
	require.NoError(t, err)
	ceil := c.Ceiling()
	require.Equal(t, 80, ceil.Policy.MaxToolCalls)
	require.Equal(t, time.Minute, ceil.Policy.CallTimeout, "unset: the chain value")
	require.Equal(t, toolbox.Safe, ceil.Policy.MaxRiskUnapproved)

	tests := []struct {
		name string
		p    invoker.Policy
		l    sandbox.Limits
		want string
	}{
		{"defaults pass", invoker.Policy{}, sandbox.Limits{}, ""},
		{"within", invoker.Policy{MaxToolCalls: 80}, sandbox.Limits{MemoryBytes: 100 << 20}, ""},
		{"lower passes", invoker.Policy{CallTimeout: time.Second, ApprovalTimeout: 500 * time.Millisecond}, sandbox.Limits{Timeout: time.Second}, ""},
		{"calls", invoker.Policy{MaxToolCalls: 81}, sandbox.Limits{}, "max_tool_calls 81 is above the operator's limit of 80"},
		{"call timeout", invoker.Policy{CallTimeout: 2 * time.Minute}, sandbox.Limits{}, "call_timeout 2m0s is above this server's value of 1m0s"},
		{"approval timeout", invoker.Policy{ApprovalTimeout: 59 * time.Second}, sandbox.Limits{}, "approval_timeout 59s is above the operator's limit of 58s"},
		{"risk", invoker.Policy{MaxRiskUnapproved: toolbox.High}, sandbox.Limits{}, "max_risk_unapproved HIGH is above this server's value of SAFE"},
		{"timeout", invoker.Policy{}, sandbox.Limits{Timeout: time.Hour}, "timeout 1h0m0s is above this server's value of 5m0s"},
		{"memory", invoker.Policy{}, sandbox.Limits{MemoryBytes: 256 << 20}, "memory 256MiB is above the operator's limit of 128MiB"},
		{"logs", invoker.Policy{}, sandbox.Limits{MaxLogBytes: 2 << 20}, "max_log_bytes"},
		{"result", invoker.Policy{}, sandbox.Limits{MaxResultBytes: 2 << 20}, "max_result_bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, perr := c.Policy.Tighten(tc.p, c.Server.Max.Policy)
			_, lerr := c.Limits.Tighten(tc.l, c.Server.Max.Limits)
			err := errors.Join(perr, lerr)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestPrintShowsDefaults: a key whose default is not written as a value
// shows it: the log level as its value, an empty key with a default
// meaning as a comment, not a bare "".
func TestPrintShowsDefaults(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, config.Default().Print(&out))
	for _, want := range []string{
		"\n  log_level: info\n",
		"\n  mode: \"\" # ask on a terminal, else deny (airlock run); queue (serve, mcp)\n",
		"\n  exporter: \"\" # off\n",
		"\n  node: \"\" # a random name per process\n",
	} {
		require.Contains(t, out.String(), want)
	}
	// A value that is set prints without the comment.
	c, err := config.Parse("airlock.yaml", []byte("approval: {mode: deny}\nserver: {log_level: warn}\n"))
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, c.Print(&out))
	require.Contains(t, out.String(), "\n  mode: deny\n")
	require.Contains(t, out.String(), "\n  log_level: warn\n")
}

// TestPrintShowsTenantRefs: a ${tenant:NAME} reference is not a secret
// (the value lives in the tenant secret source) and prints as written;
// the source's settings print with their defaults.
func TestPrintShowsTenantRefs(t *testing.T) {
	c, err := config.Parse("airlock.yaml", []byte(`
tenant_secrets: {env_prefix: AIRLOCK_SECRET_}
tools:
  http:
    - name: crm
      description: the CRM
      url: https://crm.example/api
      headers: {Authorization: "Bearer ${tenant:crm_token}", X-Literal: literal-secret-value}
`))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, c.Print(&buf))
	out := buf.String()
	require.Contains(t, out, "Authorization: Bearer ${tenant:crm_token}")
	require.NotContains(t, out, "literal-secret-value")
	require.Contains(t, out, "env_prefix: AIRLOCK_SECRET_")
	require.Contains(t, out, "max_bytes: 16KiB")
}
