package assemble

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/toolbox"
)

// Tools builds the configured toolbox and the tool sets a request may name,
// without starting anything else (for `airlock tools` and `types`).
func Tools(cfg *config.Config) (*toolbox.Toolbox, map[string][]string, error) {
	box, sets, _, err := tools(cfg, nil)
	return box, sets, err
}

// tools builds the configured tools: the built-in sets, then the HTTP tools
// (whose secrets lookup resolves at call time), then the risk overrides. The
// demo State is nil unless the demo set is enabled. A problem is a
// *config.Error at the position of the value to change, wrapped in
// ErrConfig; the toolbox and sets then hold the tools that were built.
func tools(cfg *config.Config, lookup func(string) (string, bool)) (*toolbox.Toolbox, map[string][]string, *demo.State, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	// Tools receive the secrets provider at construction and ask it at call
	// time (docs/governance.md, "Secrets").
	secrets := httptool.EnvSecrets(lookup)
	at := func(key, format string, args ...any) error {
		return fmt.Errorf("%w: %w", ErrConfig, &config.Error{Pos: cfg.Where(key), Key: key, Reason: fmt.Sprintf(format, args...)})
	}
	// ${tenant:NAME} references read the calling chain's tenant's secrets
	// (docs/identity.md); nil when none is configured.
	tenantSecrets, err := cfg.TenantSecrets.Options(lookup).Source()
	if err != nil {
		return nil, nil, nil, at("tenant_secrets", "%v", err)
	}
	// Tools with an audience exchange the chain's subject token at the
	// token service (docs/identity.md); nil when none is configured.
	var exchanger httptool.Exchanger
	if te := cfg.Identity.TokenExchange; te.On() {
		ex, err := tokenexchange.New(te.Options())
		if err != nil {
			return nil, nil, nil, at("identity.token_exchange", "%v", err)
		}
		exchanger = ex
	}
	box := &toolbox.Toolbox{}
	sets := map[string][]string{}
	taken := map[string]string{}
	var state *demo.State
	if slices.Contains(cfg.Tools.Builtin, "demo") {
		state = demo.New()
		for _, t := range state.Tools() {
			if err := box.Add(t); err != nil {
				return nil, nil, nil, err
			}
			taken[t.Info().Name] = "a demo tool"
		}
		sets["demo"] = slices.Clone(demo.Names)
	}
	var errs []error
	for i, h := range cfg.Tools.HTTP {
		key := fmt.Sprintf("tools.http[%d]", i)
		t, err := httptool.New(spec(h), httptool.Options{Secrets: secrets, TenantSecrets: tenantSecrets, Exchanger: exchanger})
		if err != nil {
			errs = append(errs, at(key, "%v", err))
			continue
		}
		if other, dup := taken[h.Name]; dup {
			errs = append(errs, at(key+".name", "%q is already %s; choose another name", h.Name, other))
			continue
		}
		taken[h.Name] = fmt.Sprintf("the name of tools.http[%d]", i)
		if err := box.Add(t); err != nil {
			errs = append(errs, at(key, "%v", err))
			continue
		}
		sets["http"] = append(sets["http"], h.Name)
	}
	_, mcpErrs := mcpSpecs(cfg)
	errs = append(errs, mcpErrs...)
	names := make([]string, 0, len(cfg.Tools.Risk))
	for name := range cfg.Tools.Risk {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		key := "tools.risk." + name
		t, ok := box.Get(name)
		if !ok && mcpTool(cfg, name) {
			continue // applied when the MCP server registers it
		}
		if !ok {
			errs = append(errs, at(key, "no tool named %q is configured (tools: %v)", name, box.Names()))
			continue
		}
		risk := cfg.Tools.Risk[name]
		if err := box.Replace(override(t, func(info toolbox.Info) toolbox.Info { info.Risk = risk; return info })); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Governance.Tools)) {
		key := "governance.tools." + name
		t, ok := box.Get(name)
		if !ok && mcpTool(cfg, name) {
			continue
		}
		if !ok {
			errs = append(errs, at(key, "no tool named %q is configured (tools: %v)", name, box.Names()))
			continue
		}
		if err := box.Replace(override(t, rulesFor(cfg.Governance.Tools[name]))); err != nil {
			errs = append(errs, at(key, "%v", err))
		}
	}
	if len(errs) > 0 {
		// The toolbox of the tools that were built, for Check.
		return box, sets, state, errors.Join(errs...)
	}
	return box, sets, state, nil
}

// spec returns h as an httptool.Spec, with the risk default applied.
func spec(h config.HTTPTool) httptool.Spec {
	return httptool.Spec{
		Name: h.Name, Description: h.Description, URL: h.URL, Method: h.Method,
		InputSchema: []byte(h.InputSchema), Risk: h.RiskLevel(), Timeout: time.Duration(h.Timeout),
		MaxResponseBytes: int64(h.MaxResponseBytes), Headers: h.Headers, Audience: h.Audience, Scopes: h.Scopes,
	}
}
