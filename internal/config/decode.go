package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// ErrInvalid is wrapped by every *Error: the configuration was rejected.
var ErrInvalid = errors.New("config: invalid configuration")

// Error is one rejected value: where it was set, its key and why.
type Error struct {
	// Pos is "file:line", "flag --name" or "env NAME"; "" for a default or
	// a cross-field rule with no single source.
	Pos string
	// Key is the dotted key path, e.g. "policy.call_timeout"; "" for the
	// file as a whole.
	Key string
	// Reason says what is wrong and what to write instead.
	Reason string
}

// Error returns "pos: key: reason".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(cmpOr(e.Pos, "config"))
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// maxErrors bounds the errors reported for one file.
const maxErrors = 20

type decoder struct {
	file   string // for "file:line"
	source string // when set (flags, env), the position of every value
	lookup func(string) (string, bool)
	pos    map[string]string
	errs   []error
	at     *yaml.Node // the key of the value being decoded, if any
	cur    *yaml.Node // the value being decoded
}

func (d *decoder) where(n *yaml.Node) string {
	if d.source != "" {
		return d.source
	}
	return fmt.Sprintf("%s:%d", d.file, n.Line)
}

func (d *decoder) fail(n *yaml.Node, key, format string, args ...any) {
	if n == d.cur && d.at != nil && n.Kind != yaml.ScalarNode {
		n = d.at // a mapping or list value: point at its key
	}
	if len(d.errs) < maxErrors {
		d.errs = append(d.errs, &Error{Pos: d.where(n), Key: key, Reason: fmt.Sprintf(format, args...)})
	}
}

var (
	durationType = reflect.TypeFor[Duration]()
	sizeType     = reflect.TypeFor[Size]()
	secretType   = reflect.TypeFor[Secret]()
	modeType     = reflect.TypeFor[ApprovalMode]()
	riskType     = reflect.TypeFor[toolbox.Risk]()
	jsonType     = reflect.TypeFor[JSON]()
)

var envRef = regexp.MustCompile(`^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$`)

// scalar parses a scalar of one of the config's special types.
func (d *decoder) scalar(t reflect.Type, s string) (reflect.Value, error) {
	switch t {
	case durationType:
		v, err := parseDuration(s)
		return reflect.ValueOf(v), err
	case sizeType:
		v, err := parseSize(s)
		return reflect.ValueOf(v), err
	case modeType:
		v, err := parseApprovalMode(s)
		return reflect.ValueOf(v), err
	case riskType:
		v, err := toolbox.ParseRisk(s)
		if err != nil {
			return reflect.Value{}, fmt.Errorf("%q is not a risk level (write SAFE, HIGH or CRITICAL)", s)
		}
		return reflect.ValueOf(v), nil
	case secretType:
		if m := envRef.FindStringSubmatch(s); m != nil {
			v, ok := d.lookup(m[1])
			if !ok || v == "" {
				return reflect.Value{}, fmt.Errorf("environment variable %s is not set", m[1])
			}
			return reflect.ValueOf(Secret(v)), nil
		}
		if strings.Contains(s, "${env:") {
			return reflect.Value{}, errors.New("write the whole value as ${env:NAME} to read it from the environment")
		}
		return reflect.ValueOf(Secret(s)), nil
	}
	return reflect.Value{}, errNotSpecial
}

var errNotSpecial = errors.New("not a special type")

func isSpecial(t reflect.Type) bool {
	switch t {
	case durationType, sizeType, modeType, riskType, secretType:
		return true
	}
	return false
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "single value"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decode stores n into v, recording every key's position and every
// problem. A value's position is the line of its key (the value of a block
// mapping starts on the next line), or its own line for a list item.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	d.decodeAt(n, n, v, path)
}

func (d *decoder) decodeAt(key, n *yaml.Node, v reflect.Value, path string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if path != "" {
		d.pos[path] = d.where(key)
	}
	prevKey, prevVal := d.at, d.cur
	d.at, d.cur = key, n
	defer func() { d.at, d.cur = prevKey, prevVal }()
	if isNull(n) {
		return // null leaves the value as it was (the default)
	}
	t := v.Type()
	if isSpecial(t) {
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "must be a single value, not a %s", kindName(n))
			return
		}
		val, err := d.scalar(t, n.Value)
		if err != nil {
			d.fail(n, path, "%v", err)
			return
		}
		v.Set(val)
		return
	}
	if t == jsonType {
		val, err := toJSONValue(n)
		if err != nil {
			d.fail(n, path, "%v", err)
			return
		}
		b, err := json.Marshal(val)
		if err != nil {
			d.fail(n, path, "cannot be written as JSON: %v", err)
			return
		}
		v.Set(reflect.ValueOf(JSON(b)))
		return
	}
	if ks := ownerKeys(t); ks != nil {
		d.decodeOwner(n, v.Addr().Interface().(owner), ks, path)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		nv := reflect.New(t.Elem())
		before := len(d.errs)
		d.decodeAt(d.at, n, nv.Elem(), path)
		if len(d.errs) == before {
			v.Set(nv)
		}
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Map:
		d.decodeMap(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, path, "must be a list, not a %s", kindName(n))
			return
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "must be a single value, not a %s", kindName(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "must be true or false, not a %s", kindName(n))
			return
		}
		switch strings.ToLower(n.Value) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			d.fail(n, path, "%q must be true or false", n.Value)
		}
	case reflect.Int:
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "must be a whole number, not a %s", kindName(n))
			return
		}
		i, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(n.Value), "_", ""), 10, 64)
		if err != nil || i > math.MaxInt32 {
			d.fail(n, path, "%q is not a whole number (at most %d)", n.Value, math.MaxInt32)
			return
		}
		if i < 0 {
			d.fail(n, path, "%q must not be negative", n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "must be a number, not a %s", kindName(n))
			return
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			d.fail(n, path, "%q is not a number", n.Value)
			return
		}
		v.SetFloat(f)
	default:
		d.fail(n, path, "cannot be set (internal: unsupported type %s)", t)
	}
}

// owner is a section whose keys belong to the package that enforces them
// (invoker.Policy, sandbox.Limits, Ceiling): the config only hands it text.
type owner interface {
	Set(key, text string) error
}

var (
	policyType  = reflect.TypeFor[invoker.Policy]()
	limitsType  = reflect.TypeFor[sandbox.Limits]()
	guestType   = reflect.TypeFor[sandbox.Guest]()
	ceilingType = reflect.TypeFor[Ceiling]()
)

// ownerKeys returns the keys of an owner section type, nil for others.
func ownerKeys(t reflect.Type) []string {
	switch t {
	case policyType:
		return PolicyKeys()
	case limitsType:
		return LimitKeys()
	case guestType:
		return sandbox.GuestKeys()
	case ceilingType:
		return append(PolicyKeys(), LimitKeys()...)
	}
	return nil
}

// decodeOwner hands each key of the mapping n to o, as text.
func (d *decoder) decodeOwner(n *yaml.Node, o owner, keys []string, path string) {
	d.eachKey(n, path, "keys", func(k, val *yaml.Node, key string) {
		for val.Kind == yaml.AliasNode && val.Alias != nil {
			val = val.Alias
		}
		if !slices.Contains(keys, k.Value) {
			d.fail(k, key, "unknown key in %s; known keys: %s", path, strings.Join(keys, ", "))
			return
		}
		d.pos[key] = d.where(k)
		switch {
		case isNull(val):
		case val.Kind != yaml.ScalarNode:
			d.fail(k, key, "must be a single value, not a %s", kindName(val))
		default:
			if err := o.Set(k.Value, val.Value); err != nil {
				d.fail(k, key, "%v", err)
			}
		}
	})
}

// eachKey calls f for each entry of the mapping n whose key is a plain word
// not seen before in it, reporting the others (what says "keys" or
// "names").
func (d *decoder) eachKey(n *yaml.Node, path, what string, f func(k, val *yaml.Node, key string)) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "must be a mapping of %s to values, not a %s", what, kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.fail(k, path, "%s must be plain words, not a %s", what, kindName(k))
			continue
		}
		key := join(path, k.Value)
		if line, dup := seen[k.Value]; dup {
			d.fail(k, key, "appears twice (first on line %d)", line)
			continue
		}
		seen[k.Value] = k.Line
		f(k, val, key)
	}
}

// fields maps a struct type's yaml keys to field indexes.
func fields(t reflect.Type) (map[string]int, []string) {
	m := map[string]int{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		m[name] = i
		names = append(names, name)
	}
	return m, names
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	idx, names := fields(v.Type())
	d.eachKey(n, path, "keys", func(k, val *yaml.Node, key string) {
		fi, ok := idx[k.Value]
		if !ok {
			where := "at the top level"
			if path != "" {
				where = "in " + path
			}
			d.fail(k, key, "unknown key %s; known keys: %s", where, strings.Join(names, ", "))
			return
		}
		d.decodeAt(k, val, v.Field(fi), key)
	})
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	t := v.Type()
	if n.Kind == yaml.MappingNode && v.IsNil() {
		v.Set(reflect.MakeMapWithSize(t, len(n.Content)/2))
	}
	d.eachKey(n, path, "names", func(k, val *yaml.Node, key string) {
		// An entry with a refused value is kept with its other values, so
		// that what names it (a profile by default_profile) is not refused
		// too; the load fails anyway.
		ev := reflect.New(t.Elem()).Elem()
		d.decodeAt(k, val, ev, key)
		v.SetMapIndex(reflect.ValueOf(k.Value).Convert(t.Key()), ev)
	})
}

// toJSONValue converts a YAML node to a value encoding/json can write.
func toJSONValue(n *yaml.Node) (any, error) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: JSON object keys must be strings", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q appears twice", k.Line, k.Value)
			}
			v, err := toJSONValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := toJSONValue(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, nil
		case "!!bool":
			return strings.ToLower(n.Value) == "true", nil
		case "!!int":
			if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
				return i, nil
			}
			return nil, fmt.Errorf("line %d: %q is not a JSON number", n.Line, n.Value)
		case "!!float":
			f, err := strconv.ParseFloat(n.Value, 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("line %d: %q is not a JSON number", n.Line, n.Value)
			}
			return f, nil
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: not a JSON value", n.Line)
}

// parseFile decodes one YAML document into c. syntaxErr is set when data
// is not one YAML document (nothing was decoded); decodeErr joins the
// values refused, the others being decoded.
func (c *Config) parseFile(name string, data []byte) (decodeErr, syntaxErr error) {
	d := &decoder{file: name, lookup: c.lookupEnv(), pos: c.pos}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		return nil, nil // an empty file is the defaults
	}
	if err != nil {
		return nil, &Error{Pos: name + yamlErrorLine(err), Reason: yamlErrorText(err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := ""
		if err == nil {
			line = fmt.Sprintf(":%d", extra.Line)
		}
		return nil, &Error{Pos: name + line, Reason: "holds more than one YAML document; keep one"}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if !isNull(root) {
		d.decodeStruct(root, reflect.ValueOf(c).Elem(), "")
	}
	return errors.Join(d.errs...), nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlErrorLine extracts ":N" from a YAML syntax error.
func yamlErrorLine(err error) string {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		return ":" + m[1]
	}
	return ""
}

func yamlErrorText(err error) string {
	s := yamlLine.ReplaceAllString(err.Error(), "")
	s = strings.TrimPrefix(s, "yaml: ")
	return "not valid YAML: " + s
}

// settable reports whether a value of type t can be set from one string
// (a flag or an environment variable).
func settable(t reflect.Type) bool {
	if isSpecial(t) {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
		return true
	case reflect.Pointer:
		return settable(t.Elem())
	case reflect.Slice:
		return t.Elem().Kind() == reflect.String
	}
	return false
}

// leafKeys lists the settable dotted keys under t.
func leafKeys(t reflect.Type, path string) []string {
	var out []string
	_, names := fields(t)
	idx, _ := fields(t)
	for _, name := range names {
		f := t.Field(idx[name])
		key := join(path, name)
		switch {
		case ownerKeys(f.Type) != nil:
			for _, k := range ownerKeys(f.Type) {
				out = append(out, join(key, k))
			}
		case settable(f.Type):
			out = append(out, key)
		case f.Type.Kind() == reflect.Struct:
			out = append(out, leafKeys(f.Type, key)...)
		}
	}
	return out
}

// fieldAt finds the field of c at a dotted key.
func (c *Config) fieldAt(key string) (reflect.Value, bool) {
	v := reflect.ValueOf(c).Elem()
	for part := range strings.SplitSeq(key, ".") {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		idx, _ := fields(v.Type())
		i, ok := idx[part]
		if !ok {
			return reflect.Value{}, false
		}
		v = v.Field(i)
	}
	return v, true
}

// keyNames are the keys Set accepts, sorted.
var keyNames = func() []string {
	ks := append(leafKeys(reflect.TypeFor[Config](), ""), apiKeysKey)
	slices.Sort(ks)
	return ks
}()
