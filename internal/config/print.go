package config

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
)

// Print writes the effective configuration (every default filled in) as
// YAML. Secrets are redacted: API keys, the S3 secret key, and header values
// other than ${env:NAME} and ${tenant:NAME} references and headers that
// never carry secrets.
func (c *Config) Print(w io.Writer) error {
	e := c.Effective()
	var doc yaml.Node
	if err := doc.Encode(e); err != nil {
		return err
	}
	// The owner sections print under their own keys, as written in a file.
	m := e.Server.Max
	for path, section := range map[string]map[string]any{
		"policy":     policyText(e.Policy),
		"limits":     limitsText(e.Limits),
		"guest":      guestText(e.Guest),
		"server.max": mergeText(policyText(m.Policy), limitsText(m.Limits)),
	} {
		if err := replaceAt(&doc, strings.Split(path, "."), section); err != nil {
			return err
		}
	}
	for name, p := range e.Profiles {
		if err := replaceAt(&doc, []string{"profiles", name, "limits"}, setPolicyText(p.Limits)); err != nil {
			return err
		}
	}
	// A key left empty shows what empty means, as a comment.
	for key, means := range unsetMeaning {
		if v, ok := e.Value(key); ok && v == "" {
			if n := nodeAt(&doc, strings.Split(key, ".")); n != nil {
				n.LineComment = means
			}
		}
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	return enc.Close()
}

func policyText(p invoker.Policy) map[string]any {
	out := map[string]any{}
	for _, k := range PolicyKeys() {
		v, _ := p.Get(k)
		out[k] = number(v)
	}
	return out
}

// setPolicyText is the fields of p that are set: a profile's limits.
func setPolicyText(p invoker.Policy) map[string]any {
	out := map[string]any{}
	zero := invoker.Policy{}
	for _, k := range PolicyKeys() {
		v, _ := p.Get(k)
		if z, _ := zero.Get(k); v != z {
			out[k] = number(v)
		}
	}
	return out
}

func limitsText(l sandbox.Limits) map[string]any {
	out := map[string]any{}
	for _, k := range LimitKeys() {
		v, _ := l.Get(k)
		out[k] = number(v)
	}
	return out
}

func guestText(g sandbox.Guest) map[string]any {
	out := map[string]any{}
	for _, k := range sandbox.GuestKeys() {
		v, _ := g.Get(k)
		out[k] = number(v)
	}
	return out
}

// number returns a plain whole number as an int, so it prints unquoted.
func number(v string) any {
	if n, err := strconv.Atoi(v); err == nil {
		return n
	}
	return v
}

func mergeText(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// unsetMeaning says what an empty value of a key means, where that is a
// default and not nothing: `airlock config print` shows it as a comment
// and docs/config.md as the default.
var unsetMeaning = map[string]string{
	"approval.mode":                         "ask on a terminal, else deny (airlock run); queue (serve, mcp)",
	"default_profile":                       "none: no scopes, supervised, the default gates",
	"fleet.key":                             "none: the fleet is off",
	"fleet.node":                            "a random name per process",
	"fleet.previous_key":                    "none: only fleet.key's objects are accepted",
	"server.api_keys":                       "none: loopback only, one tenant",
	"server.metrics_addr":                   "none: /metrics on the API address",
	"server.metrics_key":                    "none: with API keys, any API key",
	"store.dir":                             "the user cache directory's airlock/blobs",
	"store.s3.access_key":                   "none: anonymous",
	"store.s3.secret_key":                   "none: anonymous",
	"store.s3.region":                       "asked of the server",
	"store.s3.endpoint":                     "none: required for kind s3",
	"store.s3.bucket":                       "none: required for kind s3",
	"store.s3.prefix":                       "none",
	"tracing.endpoint":                      "none: required for the otlp exporter",
	"tracing.exporter":                      "off",
	"tenant_secrets.dir":                    "none",
	"tenant_secrets.env_prefix":             "none",
	"identity.token_exchange.token_url":     "none: delegated credentials are off",
	"identity.token_exchange.client_id":     "none: required with token_url",
	"identity.token_exchange.client_secret": "none: a public client",
}

// nodeAt returns the value at path in the mapping n, or nil.
func nodeAt(n *yaml.Node, path []string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != path[0] {
			continue
		}
		if len(path) > 1 {
			return nodeAt(n.Content[i+1], path[1:])
		}
		return n.Content[i+1]
	}
	return nil
}

// replaceAt replaces the value at path in the mapping n with v.
func replaceAt(n *yaml.Node, path []string, v any) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != path[0] {
			continue
		}
		if len(path) > 1 {
			return replaceAt(n.Content[i+1], path[1:], v)
		}
		return n.Content[i+1].Encode(v)
	}
	return nil
}

// MarshalYAML implements yaml.Marshaler with the redaction described on
// Headers.
func (h Headers) MarshalYAML() (any, error) {
	out := make(map[string]string, len(h))
	for k, v := range h {
		switch {
		case strings.Contains(v, "${env:"), strings.Contains(v, "${tenant:"), httptool.PublicHeader(k):
			out[k] = v
		default:
			out[k] = redacted
		}
	}
	return out, nil
}

// MarshalYAML writes the JSON value as YAML.
func (j JSON) MarshalYAML() (any, error) {
	if len(j) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		return nil, err
	}
	return v, nil
}
