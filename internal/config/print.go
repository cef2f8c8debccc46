package config

import (
	"encoding/json"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/airlockrt/airlock/internal/httptool"
)

// Print writes the effective configuration (every default filled in) as
// YAML. Secrets are redacted: API keys, the S3 secret key, and header values
// other than ${env:NAME} references and headers that never carry secrets.
func (c *Config) Print(w io.Writer) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(c.Effective()); err != nil {
		return err
	}
	return enc.Close()
}

// MarshalYAML implements yaml.Marshaler with the redaction described on
// Headers.
func (h Headers) MarshalYAML() (any, error) {
	out := make(map[string]string, len(h))
	for k, v := range h {
		switch {
		case strings.Contains(v, "${env:"), httptool.PublicHeader(k):
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
