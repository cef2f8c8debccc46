package govern

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/airlockrt/airlock/toolbox"
)

// Sequential returns a policy that lets tool run only after every tool in
// after succeeded in the same chain ("deploy only after run_tests"); it
// refuses with ReasonDependencyUnmet, naming the first missing tool.
func Sequential(tool string, after ...string) (CallPolicy, error) {
	if !toolbox.ValidName(tool) || len(after) == 0 {
		return nil, fmt.Errorf("%w: sequential: tool (%q) must be a tool name and after must name at least one tool", ErrInvalidPolicy, tool)
	}
	for _, a := range after {
		if !toolbox.ValidName(a) {
			return nil, fmt.Errorf("%w: sequential: after: %q is not a tool name", ErrInvalidPolicy, a)
		}
	}
	return &sequential{tool: tool, after: slices.Clone(after)}, nil
}

type sequential struct {
	tool  string
	after []string
}

func (s *sequential) Name() string { return "sequential" }

func (s *sequential) Check(c Call, h *HistoryView) *Denial {
	if c.Tool != s.tool {
		return nil
	}
	for _, a := range s.after {
		if h.Succeeded(a) == 0 {
			return &Denial{Reason: ReasonDependencyUnmet,
				Message: fmt.Sprintf("tool %q may run only after %q succeeded in this chain; call %q first", s.tool, a, a)}
		}
	}
	return nil
}

func (s *sequential) Observe(Call, *HistoryView) {}

// ReadBeforeWrite returns a policy that lets write run with argument arg =
// p only after read succeeded with arg = p in the same chain. Values that
// look like paths (contain '/') are compared after path.Clean. A write
// whose arg is missing or not a string is refused; the refusal is
// ReasonReadBeforeWrite. arg is a top-level argument name or a JSON
// pointer ("/target/path").
func ReadBeforeWrite(read, write, arg string) (CallPolicy, error) {
	if !toolbox.ValidName(read) || !toolbox.ValidName(write) {
		return nil, fmt.Errorf("%w: read_before_write: read (%q) and write (%q) must be tool names", ErrInvalidPolicy, read, write)
	}
	ptr, err := parsePointer(arg)
	if err != nil {
		return nil, fmt.Errorf("%w: read_before_write: arg: %w", ErrInvalidPolicy, err)
	}
	return &readBeforeWrite{read: read, write: write, arg: arg, ptr: ptr}, nil
}

type readBeforeWrite struct {
	read, write, arg string
	ptr              []string
}

func (r *readBeforeWrite) Name() string { return "read_before_write" }

func (r *readBeforeWrite) fact(v string) string {
	if strings.Contains(v, "/") {
		v = path.Clean(v)
	}
	sum := sha256.Sum256([]byte(v))
	return "read:" + r.read + ":" + hex.EncodeToString(sum[:16])
}

func (r *readBeforeWrite) Check(c Call, h *HistoryView) *Denial {
	if c.Tool != r.write {
		return nil
	}
	v, ok := stringArg(c.Args, r.ptr)
	if !ok || h.Count(r.fact(v)) == 0 {
		return &Denial{Reason: ReasonReadBeforeWrite,
			Message: fmt.Sprintf("tool %q may change %s only after %q read it in this chain; call %q with the same %s first", r.write, r.arg, r.read, r.read, r.arg)}
	}
	return nil
}

func (r *readBeforeWrite) Observe(c Call, h *HistoryView) {
	if c.Tool != r.read {
		return
	}
	if v, ok := stringArg(c.Args, r.ptr); ok {
		h.Add(r.fact(v))
	}
}

// CallLimit returns a policy that lets tool ("*": every tool, each
// counted on its own) succeed at most max times in one chain, calls in
// flight included; the refusal is ReasonCallLimit.
func CallLimit(tool string, max int) (CallPolicy, error) {
	if tool != "*" && !toolbox.ValidName(tool) || max < 1 {
		return nil, fmt.Errorf("%w: call_limit: tool (%q) must be a tool name or \"*\" and max (%d) at least 1", ErrInvalidPolicy, tool, max)
	}
	return &callLimit{tool: tool, max: max}, nil
}

type callLimit struct {
	tool string
	max  int
}

func (l *callLimit) Name() string { return "call_limit" }

func (l *callLimit) Check(c Call, h *HistoryView) *Denial {
	if l.tool != "*" && c.Tool != l.tool {
		return nil
	}
	if h.Succeeded(c.Tool)+h.InFlight(c.Tool) >= l.max {
		return &Denial{Reason: ReasonCallLimit,
			Message: fmt.Sprintf("tool %q may be called %d times in one chain under this profile", c.Tool, l.max)}
	}
	return nil
}

func (l *callLimit) Observe(Call, *HistoryView) {}

// ArgRule constrains one argument of a tool's calls: see ArgConstraint.
type ArgRule struct {
	// Tool is the tool name, or "*" for every tool that has the argument.
	Tool string
	// Arg is a top-level argument name or a JSON pointer ("/a/b").
	Arg string
	// Allow, when non-empty, lists the values allowed.
	Allow []string
	// Pattern, when set, is an RE2 expression the whole value must match.
	Pattern string
	// MaxLen, when positive, caps the value's length in characters.
	MaxLen int
	// Required refuses a call without the argument; otherwise a missing
	// argument passes.
	Required bool
}

// ArgConstraint returns a policy checking r on every call of r.Tool. A
// string value is checked as it is, a number or boolean as its JSON text,
// an array element by element; an object or null value, and a missing
// required argument, are refused with ReasonArgumentNotAllowed. The
// refusals are ReasonArgumentNotAllowed, ReasonArgumentPattern and
// ReasonArgumentTooLong.
func ArgConstraint(r ArgRule) (CallPolicy, error) {
	if r.Tool != "*" && !toolbox.ValidName(r.Tool) {
		return nil, fmt.Errorf("%w: argument: tool %q must be a tool name or \"*\"", ErrInvalidPolicy, r.Tool)
	}
	ptr, err := parsePointer(r.Arg)
	if err != nil {
		return nil, fmt.Errorf("%w: argument: arg: %w", ErrInvalidPolicy, err)
	}
	if r.MaxLen < 0 || len(r.Allow) == 0 && r.Pattern == "" && r.MaxLen == 0 && !r.Required {
		return nil, fmt.Errorf("%w: argument %q: set allow, pattern, max_length or required", ErrInvalidPolicy, r.Arg)
	}
	a := &argConstraint{r: r, ptr: ptr}
	a.r.Allow = slices.Clone(r.Allow)
	if r.Pattern != "" {
		if len(r.Pattern) > 1024 {
			return nil, fmt.Errorf("%w: argument %q: pattern is longer than 1024 bytes", ErrInvalidPolicy, r.Arg)
		}
		re, err := regexp.Compile("^(?:" + r.Pattern + ")$")
		if err != nil {
			return nil, fmt.Errorf("%w: argument %q: pattern: %w", ErrInvalidPolicy, r.Arg, err)
		}
		a.re = re
	}
	return a, nil
}

type argConstraint struct {
	r   ArgRule
	ptr []string
	re  *regexp.Regexp
}

func (a *argConstraint) Name() string { return "argument" }

func (a *argConstraint) Check(c Call, _ *HistoryView) *Denial {
	if a.r.Tool != "*" && c.Tool != a.r.Tool {
		return nil
	}
	vals, ok := lookupAll(c.Args, a.ptr)
	if !ok {
		return a.deny(ReasonArgumentNotAllowed, "cannot be read unambiguously")
	}
	if len(vals) == 0 {
		if a.r.Required {
			return a.deny(ReasonArgumentNotAllowed, "is required")
		}
		return nil
	}
	for _, raw := range vals {
		if d := a.value(raw); d != nil {
			d.Message = strings.Replace(d.Message, fmt.Sprintf("of tool %q", a.r.Tool), fmt.Sprintf("of tool %q", c.Tool), 1)
			return d
		}
	}
	return nil
}

// value checks one value of the argument: a list element by element.
func (a *argConstraint) value(raw json.RawMessage) *Denial {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return a.deny(ReasonArgumentNotAllowed, "is not a list of values")
		}
		for _, it := range items {
			if d := a.one(it); d != nil {
				return d
			}
		}
		return nil
	}
	return a.one(raw)
}

func (a *argConstraint) one(raw json.RawMessage) *Denial {
	raw = bytes.TrimSpace(raw)
	var v string
	switch {
	case len(raw) == 0 || raw[0] == '{' || raw[0] == '[' || string(raw) == "null":
		return a.deny(ReasonArgumentNotAllowed, "must be a string, number or boolean")
	case raw[0] == '"':
		if json.Unmarshal(raw, &v) != nil {
			return a.deny(ReasonArgumentNotAllowed, "is not a valid string")
		}
	default:
		v = string(raw)
	}
	if a.r.MaxLen > 0 && utf8.RuneCountInString(v) > a.r.MaxLen {
		return a.deny(ReasonArgumentTooLong, fmt.Sprintf("is longer than %d characters", a.r.MaxLen))
	}
	if len(a.r.Allow) > 0 && !slices.Contains(a.r.Allow, v) {
		return a.deny(ReasonArgumentNotAllowed, fmt.Sprintf("must be one of %s", quoteList(a.r.Allow)))
	}
	if a.re != nil && !a.re.MatchString(v) {
		return a.deny(ReasonArgumentPattern, fmt.Sprintf("must match %s", strconv.Quote(a.r.Pattern)))
	}
	return nil
}

func (a *argConstraint) deny(reason, what string) *Denial {
	return &Denial{Reason: reason, Message: fmt.Sprintf("argument %s of tool %q %s under this profile", a.r.Arg, a.r.Tool, what)}
}

func (a *argConstraint) Observe(Call, *HistoryView) {}

func quoteList(vs []string) string {
	if len(vs) > 8 {
		vs = append(slices.Clone(vs[:8]), "…")
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// parsePointer parses a top-level argument name or a JSON pointer
// (RFC 6901) of at most 16 segments.
func parsePointer(arg string) ([]string, error) {
	if arg == "" || len(arg) > 256 {
		return nil, fmt.Errorf("%q must be an argument name or a JSON pointer of at most 256 bytes", arg)
	}
	if arg[0] != '/' {
		return []string{arg}, nil
	}
	segs := strings.Split(arg[1:], "/")
	if len(segs) > 16 {
		return nil, fmt.Errorf("%q has more than 16 segments", arg)
	}
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, nil
}

// maxCandidates bounds the values lookupAll follows.
const maxCandidates = 64

// lookup returns the raw JSON at ptr in args when exactly one member
// matches each segment (see lookupAll).
func lookup(args json.RawMessage, ptr []string) (json.RawMessage, bool) {
	vs, ok := lookupAll(args, ptr)
	if !ok || len(vs) != 1 {
		return nil, false
	}
	return vs[0], true
}

// lookupAll returns every raw JSON value at ptr in args. An object member
// matches a segment exactly or, as Go's encoding/json decodes a struct
// field, case-insensitively: a tool may read {"Branch": …} as its branch,
// so a policy must see that value too. It decodes one level per segment,
// so its work is bounded by the pointer and maxCandidates, not by the
// arguments' depth; more candidates than that is not ok (the policy then
// refuses: fail closed).
func lookupAll(args json.RawMessage, ptr []string) ([]json.RawMessage, bool) {
	cur := []json.RawMessage{args}
	for _, seg := range ptr {
		var next []json.RawMessage
		for _, c := range cur {
			c = bytes.TrimSpace(c)
			if len(c) == 0 {
				continue
			}
			switch c[0] {
			case '{':
				var m map[string]json.RawMessage
				if json.Unmarshal(c, &m) != nil {
					return nil, false
				}
				for k, v := range m {
					if k == seg || strings.EqualFold(k, seg) {
						next = append(next, v)
					}
				}
			case '[':
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 {
					continue
				}
				var l []json.RawMessage
				if json.Unmarshal(c, &l) != nil {
					return nil, false
				}
				if i < len(l) {
					next = append(next, l[i])
				}
			}
			if len(next) > maxCandidates {
				return nil, false
			}
		}
		cur = next
	}
	return cur, true
}

// stringArg returns the string at ptr in args.
func stringArg(args json.RawMessage, ptr []string) (string, bool) {
	raw, ok := lookup(args, ptr)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
