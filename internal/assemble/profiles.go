package assemble

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/internal/metrics"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
	"github.com/prometheus/client_golang/prometheus"
)

// profiles builds every configured profile: its governance, its limits
// tightened into the configured policy (Policy nil when it sets none) and
// its tool allow-list with set names expanded. The configuration was
// validated; a tool the allow-list names that is not configured is an
// error at its position.
func profiles(cfg *config.Config, box *toolbox.Toolbox, sets map[string][]string) (map[string]*service.Profile, error) {
	out := map[string]*service.Profile{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Profiles)) {
		p := cfg.Profiles[name]
		key := "profiles." + name
		gov, err := p.Spec().Build(name)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, &config.Error{Pos: cfg.Where(key), Key: key, Reason: err.Error()})
		}
		pol, err := cfg.Policy.Tighten(p.Limits, invoker.Policy{})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, &config.Error{Pos: cfg.Where(key + ".limits"), Key: key + ".limits", Reason: err.Error()})
		}
		prof := &service.Profile{Name: name, Governance: gov}
		if p.Limits != (invoker.Policy{}) {
			prof.Policy = &pol
		}
		if p.Tools != nil {
			prof.Tools = []string{}
			for i, t := range p.Tools {
				switch {
				case sets[t] != nil:
					prof.Tools = append(prof.Tools, sets[t]...)
				case box.Has(t), mcpTool(cfg, t):
					prof.Tools = append(prof.Tools, t)
				default:
					k := fmt.Sprintf("%s.tools[%d]", key, i)
					return nil, fmt.Errorf("%w: %w", ErrConfig, &config.Error{Pos: cfg.Where(k), Key: k,
						Reason: fmt.Sprintf("no tool or tool set named %q is configured (tools: %v)", t, box.Names())})
				}
			}
		}
		out[name] = prof
	}
	return out, nil
}

// governor builds the process's Governor from the governance section.
// storeOutcomes keeps the idempotency records in the store: with a fleet
// key, authenticated with it (fleet.previous_key accepted), so that a
// bucket writer without the key cannot answer a call from a record; without
// one, as they are.
func storeOutcomes(cfg *config.Config, store *blobstore.Store, log *slog.Logger, reg prometheus.Registerer) (govern.Outcomes, error) {
	opts := govern.StoreOutcomesOptions{Logger: log}
	if key := cfg.Fleet.Key.Reveal(); key != "" {
		opts.Keys = [][]byte{[]byte(key)}
		if prev := cfg.Fleet.PreviousKey.Reveal(); prev != "" {
			opts.Keys = append(opts.Keys, []byte(prev))
		}
		count, err := metrics.NewIdempotencyRefusals(reg)
		if err != nil {
			return nil, fmt.Errorf("registering metrics: %w", err)
		}
		opts.OnRefused = count
	}
	o, err := govern.NewStoreOutcomes(store, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return o, nil
}

func governor(cfg *config.Config, outcomes govern.Outcomes) *govern.Governor {
	g := cfg.Governance
	opts := govern.Options{Rates: g.Rates(), Health: g.HealthOptions(), DedupWindow: time.Duration(g.DedupWindow)}
	if g.IdempotencyOn() {
		opts.Outcomes = outcomes
	}
	return govern.New(opts)
}

// rulesFor returns info with an operator's rules applied.
func rulesFor(r config.ToolRules) func(toolbox.Info) toolbox.Info {
	return func(info toolbox.Info) toolbox.Info {
		if r.LatencyBudget > 0 {
			info.LatencyBudget = time.Duration(r.LatencyBudget)
		}
		if r.MaxOutputChars > 0 {
			info.MaxOutputChars = r.MaxOutputChars
		}
		if r.Scopes != nil {
			info.Scopes = slices.Clone(r.Scopes)
		}
		if r.Class != "" {
			info.Class, _ = toolbox.ParseClass(r.Class)
		}
		if r.ActionRisk != nil {
			info.ActionRisk = maps.Clone(r.ActionRisk)
		}
		return info
	}
}

// overridden is a tool whose Info an operator changed.
type overridden struct {
	toolbox.Tool
	info toolbox.Info
}

func (o overridden) Info() toolbox.Info { return o.info }

// overriddenPreviewer keeps the wrapped tool's Preview.
type overriddenPreviewer struct {
	overridden
	toolbox.Previewer
}

// override returns t with its Info changed by f, keeping its Preview.
func override(t toolbox.Tool, f func(toolbox.Info) toolbox.Info) toolbox.Tool {
	o := overridden{Tool: t, info: f(t.Info())}
	if p, ok := t.(toolbox.Previewer); ok {
		return overriddenPreviewer{o, p}
	}
	return o
}
