package service

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/toolbox"
)

// ToolInfo describes one tool as the faces list it (GET /v1/tools,
// `airlock tools --json`).
type ToolInfo struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Risk        toolbox.Risk `json:"risk"`
	// Kind is local, hosted, provider_defined or chain; only local tools are
	// callable from a chain.
	Kind         string             `json:"kind"`
	InputSchema  *jsonschema.Schema `json:"input_schema,omitempty"`
	OutputSchema *jsonschema.Schema `json:"output_schema,omitempty"`
	// Guidance, Examples, Class, Scopes and ActionRisk are the tool's
	// declaration as the invoker enforces it (operator overrides
	// included); see docs/governance.md.
	Guidance   string                  `json:"guidance,omitempty"`
	Examples   []ToolExample           `json:"examples,omitempty"`
	Class      string                  `json:"class,omitempty"`
	Scopes     []string                `json:"scopes,omitempty"`
	ActionRisk map[string]toolbox.Risk `json:"action_risk,omitempty"`
	// Audience is the audience of the delegated credential the tool acts
	// with (docs/identity.md): a chain calling it needs an identity.
	Audience string `json:"audience,omitempty"`
	// Health is the tool's health for the caller's tenant in this
	// process: healthy, degraded or unavailable (with until: when it may be
	// tried again). Failures count per tenant; an upstream's rate limit
	// for every tenant. Local tools only.
	Health *govern.ToolHealth `json:"health,omitempty"`
}

// ToolExample is one worked call of a tool.
type ToolExample struct {
	Description string          `json:"description,omitempty"`
	Input       json.RawMessage `json:"input"`
	Output      json.RawMessage `json:"output,omitempty"`
}

// DescribeTools lists box's tools in registration order, with their
// health as health reports it (nil: every tool healthy, as in a process
// that made no call yet).
func DescribeTools(box *toolbox.Toolbox, health func(tool string) govern.ToolHealth) []ToolInfo {
	out := []ToolInfo{}
	for _, e := range box.Entries() {
		info := e.Info()
		ti := ToolInfo{
			Name: info.Name, Description: info.Description, Risk: info.Risk, Kind: info.Kind.String(),
			InputSchema: info.InputSchema, OutputSchema: info.OutputSchema,
			Guidance: info.Guidance, Scopes: info.Scopes, ActionRisk: info.ActionRisk, Audience: info.Audience,
		}
		for _, ex := range info.Examples {
			ti.Examples = append(ti.Examples, ToolExample{Description: ex.Description, Input: ex.Input, Output: ex.Output})
		}
		if info.Kind == toolbox.KindLocal {
			ti.Class = info.EffectiveClass().String()
			th := govern.ToolHealth{Status: govern.Healthy}
			if health != nil {
				th = health(info.Name)
			}
			ti.Health = &th
		}
		out = append(out, ti)
	}
	return out
}

// Tools lists the tools with their health for c's tenant in this process.
func (s *Service) Tools(c Caller) []ToolInfo {
	return DescribeTools(s.box, func(tool string) govern.ToolHealth { return s.ToolHealth(c, tool) })
}

// ToolHealth is tool's health for c's tenant in this process.
func (s *Service) ToolHealth(c Caller, tool string) govern.ToolHealth {
	return s.runner.Invoker().Governor().Health().For(c.Tenant, tool)
}

// TypeScript is the declaration of every tool, as tools.d.ts.
func (s *Service) TypeScript() string { return s.box.TypeScript() }

// Declarations is the TypeScript declaration (as tools.d.ts) of the tools
// a chain submitted with tools and callers would have: the configured
// tools tools selects (names or tool sets; nil: every one) and the caller
// tools. A refused selection or declaration is a *SubmitError, as Submit
// refuses it.
func (s *Service) Declarations(tools []string, callers []CallerTool) (string, error) {
	box := s.box
	if tools != nil || len(callers) > 0 {
		box = s.box.Clone()
	}
	if tools != nil {
		picked, rerr := s.subset(tools)
		if rerr != nil {
			return "", rerr
		}
		var drop []string
		for _, n := range box.Names() {
			if !slices.Contains(picked, n) {
				drop = append(drop, n)
			}
		}
		box.Remove(drop...)
	}
	made, _, rerr := s.callerTools(callers)
	if rerr != nil {
		return "", rerr
	}
	for _, t := range made {
		if err := box.Add(t); err != nil {
			return "", refuse(ReasonInvalidCallerTools, "caller_tools: %s", strings.TrimPrefix(err.Error(), "toolbox: "))
		}
	}
	return box.TypeScript(), nil
}
