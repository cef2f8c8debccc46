package assemble

import (
	"context"
	"fmt"

	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
)

// approverFor returns the approver of a process that serves chains
// (Options.Service) under the configured approval mode: nil for queue and
// park (the Process's queue decides; parked script chains wait in the
// fleet's store), a fixed answer for allow and deny. Mode ask is for `airlock
// run` alone.
func approverFor(mode config.ApprovalMode) (invoker.ApprovalHandler, error) {
	switch mode {
	case "", config.ApprovalQueue, config.ApprovalPark:
		return nil, nil
	case config.ApprovalAllow:
		return fixed(invoker.Approved), nil
	case config.ApprovalDeny:
		return fixed(invoker.Denied), nil
	}
	return nil, fmt.Errorf("%w: approval mode %q is for `airlock run`; `airlock serve`, `airlock mcp` and `airlock chains` take queue (people decide through the API or MCP elicitation), park (the chain waits in the fleet's store), allow or deny", ErrConfig, mode)
}

// fixed is an approver that always answers d.
func fixed(d invoker.Decision) invoker.ApprovalHandler {
	return invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return d, nil })
}

// buildService builds the process's chain service from the configuration:
// the API keys with their tenants, roles and profiles, the limits and
// ceilings, and the fleet when fleet.key is set (whose store must honour
// create-only writes). It starts nothing.
func (p *Process) buildService(ctx context.Context, cfg *config.Config, opts Options) (*service.Service, error) {
	profiles := p.Profiles
	so := service.Options{
		ToolSets:                 p.ToolSets,
		Limits:                   cfg.Limits,
		MaxPolicy:                cfg.Server.Max.Policy,
		MaxLimits:                cfg.Server.Max.Limits,
		Guest:                    cfg.Guest,
		Queue:                    p.Queue,
		Profiles:                 profiles,
		DefaultProfile:           p.DefaultProfile,
		Registerer:               p.registerer,
		Tracer:                   p.Tracer,
		MaxRequestBytes:          int64(cfg.Server.MaxRequestBytes),
		MaxConcurrentChains:      cfg.Server.MaxConcurrentChains,
		MaxStreamsPerTenant:      cfg.Server.MaxStreamsPerTenant,
		MaxPendingCallsPerTenant: cfg.Server.MaxPendingCalls,
		MaxCallerResultBytes:     int(cfg.Server.MaxCallerResultBytes),
		ResultTTL:                cfg.Server.ResultTTL.D(),
		MaxResults:               cfg.Server.MaxResults,
		MaxResultsBytes:          int64(cfg.Server.MaxResultsBytes),
		Logger:                   opts.Logger,
	}
	if len(cfg.Server.APIKeys) > 0 {
		so.Keys = func(key string) (service.Caller, bool) {
			tenant, ok := cfg.Server.TenantFor(key)
			if !ok {
				return service.Caller{}, false
			}
			return service.Caller{Tenant: tenant, Role: service.Role(cfg.Server.RoleFor(key)), Profile: profiles[cfg.ProfileFor(key)]}, true
		}
	}
	if key := cfg.Fleet.Key.Reveal(); key != "" {
		fo := durable.Options{Blobs: p.Store, Key: []byte(key), Node: cfg.Fleet.Node, Lease: cfg.Fleet.Lease.D(),
			ParkTTL: cfg.Approval.ParkTTL.D(), AllowUnlockedStore: cfg.Fleet.AllowUnlockedStore,
			Logger: opts.Logger, Registerer: p.registerer}
		if prev := cfg.Fleet.PreviousKey.Reveal(); prev != "" {
			fo.PreviousKeys = [][]byte{[]byte(prev)}
		}
		f, err := durable.New(fo)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		if err := f.CheckStore(ctx); err != nil {
			return nil, err
		}
		so.Fleet, so.Park, so.ParkTTL = f, cfg.Approval.Mode == config.ApprovalPark, cfg.Approval.ParkTTL.D()
		so.MaxWakes, so.MaxParkBytes = cfg.Approval.MaxWakes, int64(cfg.Approval.MaxParkBytes)
		so.MaxParkedPerTenant = cfg.Approval.MaxParkedPerTenant
	}
	svc, err := service.New(p.Runner, so)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.closers = append(p.closers, svc.Close)
	return svc, nil
}
