package main

import (
	"context"
	"errors"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/invoker"
)

// build builds the process through the composition root, mapping its errors
// to exit codes: a configuration the user must change is a usage error.
func build(ctx context.Context, cfg *config.Config, opts assemble.Options) (*assemble.Process, error) {
	p, err := assemble.Build(ctx, cfg, opts)
	switch {
	case errors.Is(err, assemble.ErrConfig):
		return nil, fail(exitUsage, "%v", err)
	case err != nil:
		return nil, fail(exitRuntime, "%v", err)
	}
	return p, nil
}

// decide is an approver that always answers d.
func decide(d invoker.Decision) invoker.ApprovalHandler {
	return invoker.ApprovalFunc(func(context.Context, invoker.ApprovalRequest) (invoker.Decision, error) { return d, nil })
}

// runApprover returns the approver of `airlock run` for mode, and a
// function that releases it. Without a mode it asks on a terminal and
// denies otherwise: standard input that is not a terminal (a pipe, a file,
// /dev/null) is no one to ask. An explicit ask reads answers from standard
// input whatever it is.
func (c *cli) runApprover(mode config.ApprovalMode) (invoker.ApprovalHandler, config.ApprovalMode, func(), error) {
	if mode == "" {
		mode = config.ApprovalDeny
		if c.stdinTTY {
			mode = config.ApprovalAsk
		}
	}
	switch mode {
	case config.ApprovalAsk:
		t := approval.Terminal(c.stdin, c.stderr)
		return t, mode, func() { _ = t.Close() }, nil
	case config.ApprovalAllow:
		return decide(invoker.Approved), mode, func() {}, nil
	case config.ApprovalDeny:
		return decide(invoker.Denied), mode, func() {}, nil
	}
	return nil, mode, nil, fail(exitUsage, "approval mode %q is for `airlock serve`; `airlock run` takes --approve ask, allow or deny", mode)
}
