package assemble

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/internal/mcptool"
	"github.com/airlockrt/airlock/toolbox"
)

// mcpSpecs returns the configured MCP servers as the client takes them,
// each checked at its position.
func mcpSpecs(cfg *config.Config) ([]mcptool.ServerSpec, []error) {
	var specs []mcptool.ServerSpec
	var errs []error
	seen := map[string]int{}
	for i, s := range cfg.MCPServers {
		key := fmt.Sprintf("mcp_servers[%d]", i)
		spec := mcptool.ServerSpec{
			Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers,
			PerTenant: s.PerTenant, Risk: s.Risk, Scopes: s.Scopes, Tools: s.Tools, StartTimeout: time.Duration(s.StartTimeout), KeepAlive: time.Duration(s.KeepAlive),
		}
		if err := spec.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrConfig, &config.Error{Pos: cfg.Where(key), Key: key, Reason: err.Error()}))
			continue
		}
		if j, dup := seen[s.Name]; dup {
			errs = append(errs, fmt.Errorf("%w: %w", ErrConfig, &config.Error{Pos: cfg.Where(key + ".name"), Key: key + ".name",
				Reason: fmt.Sprintf("%q is already the name of mcp_servers[%d]", s.Name, j)}))
			continue
		}
		seen[s.Name] = i
		specs = append(specs, spec)
	}
	return specs, errs
}

// mcpTool reports whether name is (or would be) a tool of a configured
// MCP server: its tools may appear after the configuration is checked.
func mcpTool(cfg *config.Config, name string) bool {
	return slices.ContainsFunc(cfg.MCPServers, func(s config.MCPServer) bool {
		return strings.HasPrefix(name, s.Name+"_")
	})
}

// mcpAdjust applies the operator's per-tool rules (tools.risk,
// governance.tools) to an MCP tool as it is registered.
func mcpAdjust(cfg *config.Config) func(toolbox.Info) toolbox.Info {
	return func(info toolbox.Info) toolbox.Info {
		if r, ok := cfg.Tools.Risk[info.Name]; ok {
			info.Risk = r
			if r != toolbox.Safe && info.Class == toolbox.ReadOnly {
				info.Class = toolbox.ClassUnset
			}
		}
		if rules, ok := cfg.Governance.Tools[info.Name]; ok {
			info = rulesFor(rules)(info)
		}
		return info
	}
}

// startMCP connects to the configured MCP servers and registers their
// tools in box, waiting for their first tool lists up to the longest start
// timeout. The Manager is nil when none is configured. With failFast, a
// server whose first start fails is an error.
func startMCP(ctx context.Context, cfg *config.Config, box *toolbox.Toolbox, lookup func(string) (string, bool), log *slog.Logger, failFast bool) (*mcptool.Manager, error) {
	specs, errs := mcpSpecs(cfg)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	if len(specs) == 0 {
		return nil, nil
	}
	if lookup == nil {
		lookup = os.LookupEnv
	}
	wait := time.Duration(0)
	for _, s := range specs {
		wait = max(wait, cmp.Or(s.StartTimeout, mcptool.DefaultStartTimeout))
	}
	return mcptool.Start(ctx, box, specs, mcptool.Options{
		Secrets: httptool.EnvSecrets(lookup), Adjust: mcpAdjust(cfg), Logger: log, Wait: wait, FailFast: failFast,
	})
}

// Catalog builds the configured toolbox with the MCP servers' tools (for
// `airlock tools` and `types`); stop ends the MCP sessions.
func Catalog(ctx context.Context, cfg *config.Config, log *slog.Logger) (box *toolbox.Toolbox, stop func(), err error) {
	box, _, _, err = tools(cfg, nil)
	if err != nil {
		return nil, nil, err
	}
	m, err := startMCP(ctx, cfg, box, nil, log, false)
	if err != nil {
		return nil, nil, err
	}
	stop = func() {}
	if m != nil {
		stop = func() { _ = m.Close() }
	}
	return box, stop, nil
}
