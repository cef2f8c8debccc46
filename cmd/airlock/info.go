package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/airlockrt/airlock/internal/assemble"
	"github.com/airlockrt/airlock/internal/config"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

func (c *cli) tools(args []string) error {
	fs := newFlagSet("tools", "[flags]", "Lists the configured tools, their risk and their schemas.", c.stderr)
	fs.key("tools", "tools.builtin", "built-in tool `sets`, comma-separated")
	asJSON := fs.Bool("json", false, "print name, description, risk, kind and JSON Schemas as JSON")
	box, err := c.toolboxFor(fs, "tools", args)
	if err != nil {
		return err
	}
	list := service.DescribeTools(box, nil) // a fresh process: every tool healthy
	if *asJSON {
		b, err := json.MarshalIndent(map[string][]service.ToolInfo{"tools": list}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "%s\n", b)
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tRISK\tCLASS\tSCOPES\tHEALTH\tARGUMENTS\tDESCRIPTION")
	for _, t := range list {
		var props []string
		if t.InputSchema != nil {
			for name := range t.InputSchema.Properties {
				props = append(props, name)
			}
		}
		slices.Sort(props)
		health := "-"
		if t.Health != nil {
			health = string(t.Health.Status)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Risk, cmp.Or(t.Class, "-"),
			cmp.Or(strings.Join(t.Scopes, ","), "-"), health, strings.Join(props, ","), t.Description)
	}
	return tw.Flush()
}

func (c *cli) types(args []string) error {
	fs := newFlagSet("types", "[flags]", "Prints the TypeScript declaration of `tools` for the configured tools.", c.stderr)
	fs.key("tools", "tools.builtin", "built-in tool `sets`, comma-separated")
	box, err := c.toolboxFor(fs, "types", args)
	if err != nil {
		return err
	}
	fmt.Fprint(c.stdout, box.TypeScript())
	return nil
}

// toolboxFor parses the flags of a command that takes no arguments and
// builds the toolbox its configuration describes.
func (c *cli) toolboxFor(fs *flagSet, name string, args []string) (*toolbox.Toolbox, error) {
	pos, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	if err := noArgs(name, pos); err != nil {
		return nil, err
	}
	cfg, err := fs.load(c.env)
	if err != nil {
		return nil, err
	}
	box, stop, err := assemble.Catalog(context.Background(), cfg, nil)
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	// Describe the tools as the servers listed them, not as they are once
	// the sessions are closed (which unregisters them).
	snapshot := box.Clone()
	stop()
	return snapshot, nil
}

// check parses each script (transpiling TypeScript) or validates each
// module, and reports errors as FILE:LINE:COL: message.
func (c *cli) check(ctx context.Context, args []string) error {
	fs := flagSetPlain("check", c)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fail(exitUsage, "check takes one or more scripts: airlock check SCRIPT.js|.ts|.wasm...")
	}
	// Scripts are parsed by the host parser alone; the module engine starts
	// only for a .wasm file.
	var modules *sandbox.ModuleEngine
	defer func() {
		if modules != nil {
			_ = modules.Close(context.Background())
		}
	}()
	bad := 0
	for _, file := range pos {
		kind, err := scriptKind(file)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		if kind == "wasm" {
			if modules == nil {
				if modules, err = sandbox.NewModuleEngine(ctx, sandbox.ModuleOptions{CompilationCacheDir: assemble.CacheDir("wazero")}); err != nil {
					return fail(exitRuntime, "starting the module engine: %v", err)
				}
			}
			m, err := modules.Compile(ctx, src)
			if err != nil {
				fmt.Fprintf(c.stdout, "%s: %s\n", file, strings.TrimPrefix(err.Error(), "sandbox: "))
				bad++
				continue
			}
			_ = m.Close(ctx)
			fmt.Fprintf(c.stdout, "%s: ok\n", file)
			continue
		}
		s := sandbox.Script{Source: string(src), Filename: filepath.Base(file)}
		if kind == "ts" {
			s.Lang = sandbox.LangTS
		}
		err = sandbox.Check(s)
		var exit *sandbox.ExitError
		switch {
		case err == nil:
			fmt.Fprintf(c.stdout, "%s: ok\n", file)
		case errors.As(err, &exit):
			fmt.Fprintf(c.stdout, "%s:%d:%d: %s\n", file, exit.Line, exit.Column, exit.Message)
			bad++
		default:
			fmt.Fprintf(c.stdout, "%s: %s\n", file, strings.TrimPrefix(err.Error(), "sandbox: "))
			bad++
		}
	}
	if bad > 0 {
		return &exitError{code: exitFailed}
	}
	return nil
}

func (c *cli) config(args []string) error {
	const configUsage = "usage: airlock config print|keys [flags]\n\n  print  the effective configuration, every default filled in, secrets redacted\n  keys   the keys flags and AIRLOCK_* variables set\n\nRun 'airlock config print -h' for the flags.\n"
	if len(args) == 0 {
		return fail(exitUsage, "config takes a subcommand: print or keys")
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(c.stdout, configUsage)
		return nil
	}
	about := map[string]string{"print": "Prints the effective configuration as YAML, every default filled in, secrets redacted.",
		"keys": "Lists the keys flags and AIRLOCK_* variables set."}[sub]
	fs := newFlagSet("config "+sub, "[flags]", about, c.stderr)
	switch sub {
	case "print":
		// The flags of run and serve, to see their effect.
		runFlags(fs)
		fs.key("addr", "server.addr", "listen `address` host:port")
		pos, err := fs.parse(rest)
		if err != nil {
			return err
		}
		if err := noArgs("config print", pos); err != nil {
			return err
		}
		cfg, err := fs.load(c.env)
		if err != nil {
			return err
		}
		return cfg.Print(c.stdout)
	case "keys":
		pos, err := fs.parse(rest)
		if err != nil {
			return err
		}
		if err := noArgs("config keys", pos); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tENVIRONMENT")
		for _, k := range config.Keys() {
			fmt.Fprintf(tw, "%s\t%s\n", k.Key, k.Env)
		}
		return tw.Flush()
	}
	return fail(exitUsage, "unknown config subcommand %q: use print or keys", sub)
}

// flagSetPlain is a flag set without configuration flags.
func flagSetPlain(name string, c *cli) *flagSet {
	return newFlagSet(name, "SCRIPT.js|.ts|.wasm...", "Parses each script (stripping TypeScript types) with the host parser, or validates each\nmodule, without running anything; reports errors as FILE:LINE:COL: message.", c.stderr)
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
