// Command airlock runs model-written tool chains in a WebAssembly sandbox,
// from the command line or as an HTTP service.
//
//	airlock run SCRIPT.js|.ts|.wasm [flags]   run one chain and print its result and trace
//	airlock serve [--addr 127.0.0.1:8080]     the HTTP API (docs/http-api.md)
//	airlock tools [--json]                    the configured tools, their risk and schemas
//	airlock types                             the TypeScript declaration of `tools`
//	airlock check SCRIPT                      parse (and strip types) without running
//	airlock config print|keys                 the effective configuration; the keys flags and env set
//
// Configuration comes from a YAML file (--config FILE or AIRLOCK_CONFIG),
// then flags, then AIRLOCK_* environment variables, each overriding the
// one before; `airlock config print` shows the result with secrets
// redacted. docs/cli.md describes every command, flag and exit code.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"golang.org/x/term"

	"github.com/airlockrt/airlock/sandbox"
)

// Exit codes.
const (
	exitOK      = 0 // the chain's status is ok; the command succeeded
	exitFailed  = 1 // the chain ended with another status; check found errors
	exitUsage   = 2 // bad flags, configuration or input; nothing ran
	exitRuntime = 3 // the host failed (store, engine, listener)
)

const usage = `airlock runs model-written tool chains in a WebAssembly sandbox.

Usage:
  airlock run SCRIPT.js|.ts|.wasm [--tools demo] [--config FILE] [--timeout 30s]
              [--max-calls N] [--memory 64MiB] [--approve ask|deny|allow] [--json]
              [--input JSON] [--out DIR] [--progress auto|always|never]
  airlock serve [--addr 127.0.0.1:8080] [--config FILE]
  airlock mcp [--config FILE]
  airlock chains list|show ID|approve APPROVAL|deny APPROVAL|resume ID|cancel ID [--tenant T]
                 [--yes | --args-hash SHA256]
  airlock tools [--json] [--config FILE]
  airlock types [--config FILE]
  airlock check SCRIPT...
  airlock config print|keys [--config FILE]
  airlock version

Run 'airlock COMMAND -h' for a command's flags. See docs/cli.md.
`

// cli is one invocation: its streams and environment.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	env            []string
	// stdinTTY and stderrTTY say whether those streams are terminals.
	stdinTTY, stderrTTY bool
}

// exitError ends a command with a code and a message for stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

func main() {
	sandbox.RunParseWorker() // a parse worker serves its one parse and exits here
	c := &cli{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, env: os.Environ(),
		stdinTTY: isTerminal(os.Stdin), stderrTTY: isTerminal(os.Stderr),
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := c.main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func (c *cli) main(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, usage)
		return exitUsage
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		var code int
		code, err = c.run(ctx, rest)
		if err == nil {
			return code
		}
	case "serve":
		err = c.serve(ctx, rest)
	case "mcp":
		err = c.mcp(ctx, rest)
	case "chains":
		err = c.chains(ctx, rest)
	case "tools":
		err = c.tools(rest)
	case "types":
		err = c.types(rest)
	case "check":
		err = c.check(ctx, rest)
	case "config":
		err = c.config(rest)
	case "version", "--version":
		fmt.Fprintln(c.stdout, version())
	case "help", "-h", "--help":
		fmt.Fprint(c.stdout, usage)
	default:
		fmt.Fprintf(c.stderr, "airlock: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
	if err == nil {
		return exitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.msg != "" {
			fmt.Fprintln(c.stderr, "airlock: "+xe.msg)
		}
		return xe.code
	}
	fmt.Fprintln(c.stderr, "airlock: "+err.Error())
	return exitRuntime
}

func version() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return "airlock " + v
}

// isTerminal reports whether f is a character device (a terminal).
// isTerminal reports whether f is a terminal: a character device such as
// /dev/null is not one.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
