package toolbox

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Bounds of a tool's definition, checked by Toolbox.Add.
const (
	// MaxGuidanceChars bounds Info.Guidance.
	MaxGuidanceChars = 2000
	// MaxExamples bounds Info.Examples.
	MaxExamples = 8
	// MaxExampleBytes bounds an example's Input and its Output.
	MaxExampleBytes = 16 << 10
	// MaxScopes bounds Info.Scopes.
	MaxScopes = 32
)

// checkDefinition checks the fields of info beyond name, description and
// schemas.
func checkDefinition(info Info) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: tool %q: %s", ErrInvalidDefinition, info.Name, fmt.Sprintf(format, args...))
	}
	if n := utf8.RuneCountInString(info.Guidance); n > MaxGuidanceChars {
		return bad("guidance has %d characters; use at most %d", n, MaxGuidanceChars)
	}
	if len(info.Examples) > MaxExamples {
		return bad("%d examples; give at most %d", len(info.Examples), MaxExamples)
	}
	if !info.Class.Valid() {
		return bad("class %d is not a capability class", int(info.Class))
	}
	if len(info.Scopes) > MaxScopes {
		return bad("%d scopes; require at most %d", len(info.Scopes), MaxScopes)
	}
	for i, s := range info.Scopes {
		if !validScope(s) {
			return bad("scopes[%d] (%q) must be 1 to 64 of a-z, 0-9, '_', ':', '.' and '-'", i, s)
		}
	}
	for action, r := range info.ActionRisk {
		if len(action) < 1 || len(action) > 64 {
			return bad("action_risk: action %q must be 1 to 64 bytes", action)
		}
		if !r.Valid() {
			return bad("action_risk[%q]: risk %d is not SAFE, HIGH or CRITICAL", action, int(r))
		}
	}
	if info.ActionRisk != nil && !declaresAction(info.InputSchema) {
		return bad("has per-action risks, so its input schema must declare a string property %q", ActionArg)
	}
	if info.MaxOutputChars < 0 {
		return bad("max_output_chars %d must not be negative", info.MaxOutputChars)
	}
	if info.LatencyBudget < 0 {
		return bad("latency budget %s must not be negative", time.Duration(info.LatencyBudget))
	}
	return nil
}

func validScope(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == ':' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// declaresAction reports whether s declares a string "action" property.
func declaresAction(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	p, ok := s.Properties[ActionArg]
	return ok && p != nil && (p.Type == "string" || p.Enum != nil || p.Const != nil)
}

// checkExamples validates each example against the tool's schemas.
func (e *Entry) checkExamples() error {
	name := e.info.Name
	var out *jsonschema.Resolved
	for i, ex := range e.info.Examples {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: tool %q: examples[%d]: %s", ErrInvalidDefinition, name, i, fmt.Sprintf(format, args...))
		}
		if n := utf8.RuneCountInString(ex.Description); n > 200 {
			return bad("description has %d characters; use at most 200", n)
		}
		if len(ex.Input) == 0 {
			return bad("input is required")
		}
		if len(ex.Input) > MaxExampleBytes || len(ex.Output) > MaxExampleBytes {
			return bad("input and output must each be at most %d bytes", MaxExampleBytes)
		}
		if err := e.Validate(ex.Input); err != nil {
			return bad("input does not match the input schema: %v", err)
		}
		if len(ex.Output) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(ex.Output, &v); err != nil {
			return bad("output is not valid JSON: %v", err)
		}
		if e.info.OutputSchema == nil {
			continue
		}
		if out == nil {
			r, err := e.info.OutputSchema.Resolve(nil)
			if err != nil {
				return bad("output schema: %v", err)
			}
			out = r
		}
		if err := out.Validate(v); err != nil {
			return bad("output does not match the output schema: %v", err)
		}
	}
	return nil
}
