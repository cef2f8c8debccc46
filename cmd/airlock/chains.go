package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/visible"
	"github.com/airlockrt/airlock/service"
)

const chainsUsage = `airlock chains list|show ID|approve APPROVAL|deny APPROVAL|resume ID|cancel ID [--tenant T] [--config FILE] [--yes | --args-hash SHA256]`

// chains handles `airlock chains`: the chains of a fleet's store
// (docs/durability.md), read and acted on from this process.
func (c *cli) chains(ctx context.Context, args []string) error {
	fs := newFlagSet("chains", "list|show ID|approve APPROVAL|deny APPROVAL|resume ID|cancel ID [flags]",
		"Lists, shows, decides, resumes and cancels the chains in the fleet's store (fleet.key must be set). "+
			"approve and deny show the call (tool, arguments with invisible characters escaped, their SHA-256), ask to confirm "+
			"on standard input unless --yes or --args-hash, record the decision bound to those arguments "+
			"and resume the chain in this process; resume continues a chain "+
			"whose calls were decided (or whose park expired) here; cancel ends a parked chain.", c.stderr)
	storeFlags(fs)
	tenant := fs.String("tenant", service.DefaultTenant, "the `tenant` whose chains to act on")
	asJSON := fs.Bool("json", false, "print list as JSON")
	yes := fs.Bool("yes", false, "approve or deny without asking, on the arguments shown")
	argsHash := fs.String("args-hash", "", "approve or deny without asking, only if the call's arguments have this `SHA256` (hex; the sha256 shown, or args_hash of GET /v1/approvals/{id})")
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
		hash, err := c.confirmDecision(verb, a, *yes, *argsHash)
		if err != nil {
			return err
		}
		out, err := svc.Decide(ctx, *tenant, rest[0], service.Decision{Approve: verb == "approve", ArgsHash: hash, Hold: true})
		already := errors.Is(err, approval.ErrAlreadyDecided)
		if errors.Is(err, approval.ErrArgsMismatch) {
			return fail(exitUsage, "the call's arguments do not have sha256 %s (those shown above have %s); nothing was decided", hash, a.ArgsHash)
		}
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

// confirmDecision shows the call a decision is about (its tool, the
// approval id, its arguments as internal/visible renders them for the
// HTTP API's args_text and the MCP prompt, and their SHA-256) and returns
// the args hash to bind the decision to: argsHash when given (the decision
// is then refused unless the arguments have it), the one shown with yes,
// else the one shown once the person answers y on standard input. Any
// other answer, or none, decides nothing.
func (c *cli) confirmDecision(verb string, a approval.Request, yes bool, argsHash string) (string, error) {
	if yes && argsHash != "" {
		return "", fail(exitUsage, "give --yes or --args-hash, not both")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "airlock: approval %s of chain %s: tool %s (%s risk)\n", a.ID, a.SessionID, visible.String(a.Tool), a.Risk)
	fmt.Fprintf(&b, "  arguments: %s\n", a.Text())
	fmt.Fprintf(&b, "  sha256:    %s\n", a.ArgsHash)
	// A decided request keeps only its arguments' hash and size; one that
	// reads as undecided again without them (its decision gone from the
	// store) cannot be approved on what is shown, since nothing is.
	unseen := verb == "approve" && a.Args == nil && a.ArgsSize > 0
	switch {
	case argsHash != "":
		fmt.Fprintf(&b, "%s on the arguments with sha256 %s\n", verb, argsHash)
		fmt.Fprint(c.stderr, b.String())
		return argsHash, nil
	case unseen:
		fmt.Fprint(c.stderr, b.String())
		return "", fail(exitUsage, "the request's arguments (%d bytes) are not in the store to be shown; nothing was decided (approve with --args-hash only if you saw them elsewhere)", a.ArgsSize)
	case yes:
		fmt.Fprint(c.stderr, b.String())
		return a.ArgsHash, nil
	}
	fmt.Fprintf(&b, "%s? [y/N] ", verb)
	fmt.Fprint(c.stderr, b.String())
	answer, err := bufio.NewReader(io.LimitReader(c.stdin, 64)).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return a.ArgsHash, nil
	}
	if answer == "" && err != nil {
		return "", fail(exitUsage, "no answer on standard input; nothing was decided (pass --yes to %s on the arguments shown, or --args-hash SHA256)", verb)
	}
	return "", fail(exitUsage, "not confirmed; nothing was decided")
}
