package assemble

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/airlockrt/airlock/internal/config"
)

// Check reports every problem of cfg that shows only once its tools are
// built: a tool definition or MCP server that is refused, a tools.risk or
// governance.tools entry naming no tool, a profile allowing a tool that is
// not configured. It starts nothing (no MCP server, no store). Each
// problem is a *config.Error at the position of the value to change, so
// that config.Load (Sources.Check) reports them with the configuration's
// own, in line order.
func Check(cfg *config.Config) error {
	box, sets, _, err := tools(cfg, nil)
	errs := configErrors(err)
	if box == nil {
		return errors.Join(errs...)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Profiles)) {
		key := "profiles." + name
		for i, t := range cfg.Profiles[name].Tools {
			if sets[t] != nil || box.Has(t) || mcpTool(cfg, t) {
				continue
			}
			k := fmt.Sprintf("%s.tools[%d]", key, i)
			errs = append(errs, &config.Error{Pos: cfg.Where(k), Key: k,
				Reason: fmt.Sprintf("no tool or tool set named %q is configured (tools: %v)", t, box.Names())})
		}
	}
	return errors.Join(errs...)
}

// configErrors flattens err into its single errors, each *config.Error
// without the ErrConfig prefix.
func configErrors(err error) []error {
	if err == nil {
		return nil
	}
	// An errors.Join is its parts a line each; fmt.Errorf("%w: %w", …)
	// unwraps to several errors too, but is one problem.
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts := j.Unwrap()
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.Error()
		}
		if strings.Join(texts, "\n") == err.Error() {
			var out []error
			for _, e := range parts {
				out = append(out, configErrors(e)...)
			}
			return out
		}
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		return []error{ce}
	}
	return []error{err}
}
