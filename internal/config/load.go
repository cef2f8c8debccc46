package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Sources are the layers Load merges, in rising precedence: the file, then
// the flags, then the environment.
type Sources struct {
	// File is the YAML file's path; empty for none.
	File string
	// Flags are command-line values, applied in order.
	Flags []Flag
	// Env is the environment as "NAME=value" pairs (os.Environ()); only the
	// AIRLOCK_* variables listed by Keys are read, and empty values are
	// ignored.
	Env []string
	// LookupEnv resolves ${env:NAME} in secret values (API keys, the S3
	// secret key). Default os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// Edit, when set, changes the values after every layer is applied and
	// before they are checked: values a command takes that no key sets
	// (`airlock run --mcp`). Nil: none.
	Edit func(*Config)
	// Check, when set, runs after Validate on the loaded values, even when
	// some were refused, for the rules that need more than the
	// configuration (the tools internal/assemble builds from it). Its
	// *Error values are reported with the others. Nil: none.
	Check func(*Config) error
}

// Flag is one command-line value for a configuration key.
type Flag struct {
	// Name is the flag as the user typed it, without dashes ("timeout"),
	// for error messages.
	Name string
	// Key is the configuration key it sets, such as "limits.timeout".
	Key string
	// Value is the flag's value.
	Value string
}

// Load builds the configuration: defaults, then src.File, then src.Flags,
// then src.Env, and validates the result (Validate, then src.Check). One
// load reports every problem: a value refused while decoding does not stop
// the checks of the others. Each problem is an *Error naming where the
// value came from ("file:line", "flag --name" or "env NAME"); they are
// joined into one error in line order, then flags, then the environment.
// Only a file that is not YAML stops the load at once.
func Load(src Sources) (*Config, error) {
	c := Default()
	c.lookup = src.LookupEnv
	var errs []error
	if src.File != "" {
		data, err := os.ReadFile(src.File)
		if err != nil {
			return nil, fmt.Errorf("config: reading %w", err)
		}
		decodeErr, syntaxErr := c.parseFile(src.File, data)
		if syntaxErr != nil {
			return nil, syntaxErr
		}
		errs = append(errs, decodeErr)
	}
	for _, f := range src.Flags {
		errs = append(errs, c.Set("flag --"+f.Name, f.Key, f.Value))
	}
	errs = append(errs, c.ApplyEnv(src.Env))
	if src.Edit != nil {
		src.Edit(c)
	}
	// The later checks report only keys no earlier one did: a value refused
	// while decoding keeps its default, which they might refuse again.
	errs = addNew(errs, c.Validate())
	if src.Check != nil {
		errs = addNew(errs, src.Check(c))
	}
	if err := sortErrors(errs); err != nil {
		return nil, err
	}
	return c, nil
}

// Parse returns the defaults overlaid with one YAML document, named name in
// error messages. It does not validate: call Validate once every layer is
// applied.
func Parse(name string, data []byte) (*Config, error) {
	c := Default()
	decodeErr, syntaxErr := c.parseFile(name, data)
	if syntaxErr != nil {
		return nil, syntaxErr
	}
	if decodeErr != nil {
		return nil, decodeErr
	}
	return c, nil
}

func (c *Config) lookupEnv() func(string) (string, bool) {
	if c.lookup != nil {
		return c.lookup
	}
	return os.LookupEnv
}

// apiKeysKey is the key whose one-string form is "tenant:key,tenant:key".
const apiKeysKey = "server.api_keys"

// Set sets the value at key (a dotted path listed by Keys) from one string,
// parsed like the file's value; a list key takes comma-separated items, and
// server.api_keys takes "tenant:key,tenant:key". source ("flag --timeout",
// "env AIRLOCK_LIMITS_TIMEOUT") is where errors and Where say the value came
// from. Set does not validate cross-field rules; Validate does.
func (c *Config) Set(source, key, value string) error {
	if c.pos == nil {
		c.pos = map[string]string{}
	}
	d := &decoder{source: source, lookup: c.lookupEnv(), pos: c.pos}
	if key == apiKeysKey {
		n, err := apiKeysNode(value)
		if err != nil {
			return &Error{Pos: source, Key: key, Reason: err.Error()}
		}
		v, _ := c.fieldAt(key)
		d.decode(n, v, key)
		return errors.Join(d.errs...)
	}
	if section, sub, found := cutLast(key); found {
		if sv, ok := c.fieldAt(section); ok && slices.Contains(ownerKeys(sv.Type()), sub) {
			n := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: sub}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: value},
			}}
			d.decodeOwner(n, sv.Addr().Interface().(owner), ownerKeys(sv.Type()), section)
			return errors.Join(d.errs...)
		}
	}
	v, ok := c.fieldAt(key)
	if !ok || !settable(v.Type()) {
		return &Error{Pos: source, Key: key, Reason: "is not a configuration key that takes one value; run `airlock config keys` for the list"}
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	if v.Kind() == reflect.Slice {
		n = &yaml.Node{Kind: yaml.SequenceNode}
		for item := range strings.SplitSeq(value, ",") {
			if item = strings.TrimSpace(item); item != "" {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: item})
			}
		}
	}
	d.decode(n, v, key)
	return errors.Join(d.errs...)
}

// Value returns the value at key (a key Set accepts) written as text, and
// whether key is one; a secret reads "[REDACTED]".
func (c *Config) Value(key string) (string, bool) {
	if section, sub, found := cutLast(key); found {
		if sv, ok := c.fieldAt(section); ok && slices.Contains(ownerKeys(sv.Type()), sub) {
			type getter interface{ Get(string) (string, bool) }
			if g, ok := sv.Interface().(getter); ok {
				return g.Get(sub)
			}
		}
	}
	v, ok := c.fieldAt(key)
	if !ok || !settable(v.Type()) {
		return "", false
	}
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s.String(), true
	}
	if d, ok := v.Interface().(Duration); ok {
		return d.D().String(), true
	}
	if v.Kind() == reflect.Slice {
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return strings.Join(parts, ","), true
	}
	return fmt.Sprint(v.Interface()), true
}

// cutLast splits "a.b.c" into "a.b" and "c".
func cutLast(key string) (string, string, bool) {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}

// apiKeysNode turns "tenant:key[:role],…" into the file's list form. An
// entry of another shape is refused rather than guessed at: a key holding
// ":" cannot be written in this form (use the file).
func apiKeysNode(value string) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for item := range strings.SplitSeq(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		parts := strings.Split(item, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
			return nil, fmt.Errorf("entry %d is not tenant:key or tenant:key:role (roles: all, submit, approver); write each entry so, separated by commas, or use the config file for keys that contain \":\"",
				len(n.Content)+1)
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "key"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[1]},
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "tenant"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[0]},
		}}
		if len(parts) == 3 {
			m.Content = append(m.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "role"}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[2]})
		}
		n.Content = append(n.Content, m)
	}
	return n, nil
}

// s3Aliases are the variables of s3blob.ConfigFromEnv, read as lower
// precedence aliases of the AIRLOCK_STORE_S3_* variables.
var s3Aliases = map[string]string{
	"AIRLOCK_S3_ENDPOINT":   "store.s3.endpoint",
	"AIRLOCK_S3_BUCKET":     "store.s3.bucket",
	"AIRLOCK_S3_ACCESS_KEY": "store.s3.access_key",
	"AIRLOCK_S3_SECRET_KEY": "store.s3.secret_key",
	"AIRLOCK_S3_USE_TLS":    "store.s3.use_tls",
	"AIRLOCK_S3_REGION":     "store.s3.region",
}

// EnvName returns the environment variable that sets key:
// "AIRLOCK_" + the key upper-cased with dots as underscores.
func EnvName(key string) string {
	return "AIRLOCK_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// ApplyEnv sets every key whose variable (EnvName, or an AIRLOCK_S3_* alias)
// is present and non-empty in environ ("NAME=value" pairs). Other variables
// are ignored.
func (c *Config) ApplyEnv(environ []string) error {
	vars := make(map[string]string, len(environ))
	for _, kv := range environ {
		if name, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(name, "AIRLOCK_") && v != "" {
			vars[name] = v
		}
	}
	var errs []error
	for alias, key := range s3Aliases {
		if v, ok := vars[alias]; ok && vars[EnvName(key)] == "" {
			if err := c.Set("env "+alias, key, v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, key := range keyNames {
		name := EnvName(key)
		if v, ok := vars[name]; ok {
			if err := c.Set("env "+name, key, v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Key describes one key that flags and the environment can set.
type Key struct {
	// Key is the dotted path, e.g. "limits.memory".
	Key string
	// Env is its environment variable, e.g. "AIRLOCK_LIMITS_MEMORY".
	Env string
}

// Keys lists the keys Set and ApplyEnv accept, sorted.
func Keys() []Key {
	out := make([]Key, len(keyNames))
	for i, k := range keyNames {
		out[i] = Key{Key: k, Env: EnvName(k)}
	}
	return out
}
