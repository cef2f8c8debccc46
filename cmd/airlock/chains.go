package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/service"
)

const chainsUsage = `airlock chains list|show ID|approve APPROVAL|deny APPROVAL|resume ID|cancel ID [--tenant T] [--config FILE]`

// chains handles `airlock chains`: the chains of a fleet's store
// (docs/durability.md), read and acted on from this process.
func (c *cli) chains(ctx context.Context, args []string) error {
	fs := newFlagSet("chains", "list|show ID|approve APPROVAL|deny APPROVAL|resume ID|cancel ID [flags]",
		"Lists, shows, decides, resumes and cancels the chains in the fleet's store (fleet.key must be set). "+
			"approve and deny record the decision and resume the chain in this process; resume continues a chain "+
			"whose calls were decided (or whose park expired) here; cancel ends a parked chain.", c.stderr)
	storeFlags(fs)
	tenant := fs.String("tenant", service.DefaultTenant, "the `tenant` whose chains to act on")
	asJSON := fs.Bool("json", false, "print list as JSON")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fail(exitUsage, "usage: %s", chainsUsage)
	}
	verb, rest := pos[0], pos[1:]
	want := 1
	if verb == "list" {
		want = 0
	}
	if len(rest) != want {
		return fail(exitUsage, "usage: %s", chainsUsage)
	}
	cfg, err := fs.load(c.env)
	if err != nil {
		return err
	}
	if cfg.Fleet.Key == "" {
		return fail(exitUsage, "airlock chains reads the fleet's store: set fleet.key (the key the serve processes use) in the configuration")
	}
	log := c.logger(cfg, "warn")
	// The service is not started: this process does no fleet upkeep, it
	// only acts on what it is asked to.
	p, err := c.serviceProcess(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeProcess(p)
	svc := p.Service
	switch verb {
	case "list":
		return c.listChains(ctx, svc, *tenant, *asJSON)
	case "show":
		v, err := svc.Chain(ctx, *tenant, rest[0])
		if err != nil {
			return chainsErr(err)
		}
		return c.printJSON(v)
	case "approve", "deny":
		a, err := svc.Approval(ctx, *tenant, rest[0])
		if err != nil {
			return chainsErr(err)
		}
		out, err := svc.Decide(ctx, *tenant, rest[0], service.Decision{Approve: verb == "approve", ArgsHash: a.ArgsHash, Hold: true})
		already := errors.Is(err, approval.ErrAlreadyDecided)
		if err != nil && !already {
			return chainsErr(err)
		}
		fmt.Fprintf(c.stderr, "airlock: %s's call %s is %s\n", a.SessionID, a.Tool, out.Decision)
		if already {
			return c.resumeChain(ctx, svc, *tenant, a.SessionID)
		}
		// This decision is the one recorded: resume the chain here, or, when
		// a serve process's upkeep claimed it first, follow it there to the
		// end of its stretch.
		v, err := svc.Resume(ctx, *tenant, a.SessionID)
		if errors.Is(err, service.ErrNotResumable) {
			v, err = awaitStretch(ctx, svc, *tenant, a.SessionID, a.ID)
		}
		if err != nil {
			return chainsErr(err)
		}
		return c.printJSON(v)
	case "resume":
		return c.resumeChain(ctx, svc, *tenant, rest[0])
	case "cancel":
		v, err := svc.Cancel(ctx, *tenant, rest[0])
		if err != nil {
			return chainsErr(err)
		}
		return c.printJSON(v)
	}
	return fail(exitUsage, "unknown chains command %q; usage: %s", verb, chainsUsage)
}

func (c *cli) resumeChain(ctx context.Context, svc *service.Service, tenant, id string) error {
	v, err := svc.Resume(ctx, tenant, id)
	if err != nil {
		return chainsErr(err)
	}
	return c.printJSON(v)
}

func (c *cli) listChains(ctx context.Context, svc *service.Service, tenant string, asJSON bool) error {
	var list []service.ChainView
	if err := svc.StoredChains(ctx, tenant, func(v service.ChainView) error {
		list = append(list, v)
		return nil
	}); err != nil {
		return fail(exitRuntime, "listing the fleet's chains: %v", err)
	}
	if asJSON {
		return c.printJSON(map[string][]service.ChainView{"chains": list})
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHAIN\tSTATUS\tCREATED\tPENDING")
	for _, v := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", v.ID, v.Status, v.Created.UTC().Format(time.RFC3339), len(v.Pending))
	}
	return tw.Flush()
}

func (c *cli) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s\n", b)
	return nil
}

// awaitStretch waits until the tenant's chain id, resumed by another
// process after approval decided was decided, ends or parks again on
// other calls, reading it from the fleet's store.
func awaitStretch(ctx context.Context, svc *service.Service, tenant, id, decided string) (service.ChainView, error) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		v, err := svc.Chain(ctx, tenant, id)
		if err != nil {
			return v, err
		}
		waiting := slices.ContainsFunc(v.Pending, func(p durable.Approval) bool { return p.ID == decided })
		if st := chain.Status(v.Status); st.Final() || st == chain.StatusParked && !waiting {
			return v, nil
		}
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-t.C:
		}
	}
}

// chainsErr words a store error for the command line.
func chainsErr(err error) error {
	if errors.Is(err, service.ErrNotFound) {
		return fail(exitUsage, "no such chain or approval for this tenant (--tenant)")
	}
	return fail(exitRuntime, "%v", err)
}
