package config

import (
	"fmt"
	"slices"

	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/toolbox"
)

// Toolbox builds the configured tools: the built-in sets, then the HTTP
// tools (built with opts), then the risk overrides. The demo State is nil
// unless the demo set is enabled. An override naming a tool that is not
// registered is an error at its position.
func (c *Config) Toolbox(opts httptool.Options) (*toolbox.Toolbox, *demo.State, error) {
	box := &toolbox.Toolbox{}
	var state *demo.State
	if slices.Contains(c.Tools.Builtin, "demo") {
		state = demo.New()
		for _, t := range state.Tools() {
			if err := box.Add(t); err != nil {
				return nil, nil, err
			}
		}
	}
	for i, h := range c.Tools.HTTP {
		key := fmt.Sprintf("tools.http[%d]", i)
		t, err := httptool.New(h.Spec(), opts)
		if err != nil {
			return nil, nil, &Error{Pos: c.Where(key), Key: key, Reason: err.Error()}
		}
		if err := box.Add(t); err != nil {
			return nil, nil, &Error{Pos: c.Where(key), Key: key, Reason: err.Error()}
		}
	}
	names := make([]string, 0, len(c.Tools.Risk))
	for name := range c.Tools.Risk {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		key := "tools.risk." + name
		t, ok := box.Get(name)
		if !ok {
			return nil, nil, &Error{Pos: c.Where(key), Key: key, Reason: fmt.Sprintf("no tool named %q is configured (tools: %v)", name, box.Names())}
		}
		if err := box.Add(withRisk{Tool: t, risk: c.Tools.Risk[name]}); err != nil {
			return nil, nil, err
		}
	}
	return box, state, nil
}

// withRisk overrides a tool's risk level.
type withRisk struct {
	toolbox.Tool
	risk toolbox.Risk
}

func (w withRisk) Info() toolbox.Info {
	info := w.Tool.Info()
	info.Risk = w.risk
	return info
}
