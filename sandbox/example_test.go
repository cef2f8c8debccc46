package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/airlockrt/airlock/sandbox"
)

func Example() {
	ctx := context.Background()
	// A compilation cache on disk spares the next process compiling the
	// engine again (about a second).
	var opts sandbox.ScriptOptions
	if dir, err := os.UserCacheDir(); err == nil {
		opts.CompilationCacheDir = filepath.Join(dir, "airlock", "wazero")
	}
	e, err := sandbox.NewScriptEngine(ctx, opts)
	if err != nil {
		panic(err)
	}
	defer e.Close(ctx)

	// The host side of every tool call: here, a fake tool that doubles n.
	bridge := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		var n int
		fmt.Sscanf(string(args), `{"n":%d}`, &n)
		return []byte(fmt.Sprintf(`{"status":"ok","value":%d}`, 2*n)), nil
	}
	res, err := e.Run(ctx, sandbox.Script{Source: `
		const [a, b] = await Promise.all([tools.double({n: 1}), tools.double({n: 20})]);
		console.log("sum", a + b);
		return {sum: a + b};`}, bridge, sandbox.Limits{Timeout: 10 * time.Second})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Value), res.Logs[0].Text, res.Stats.Calls)

	_, err = e.Run(ctx, sandbox.Script{Source: "const x: number = 1;\n\nx.foo.bar", Lang: sandbox.LangTS}, bridge, sandbox.Limits{})
	var xe *sandbox.ExitError
	if errors.As(err, &xe) {
		fmt.Println(xe.Kind, xe.Line, xe.Message)
	}
	// Output:
	// {"sum":42} sum 42 2
	// script_error 3 TypeError: Cannot read properties of undefined (reading 'bar')
}

// A Bridge learns which line of the script made each call from its
// context: for TypeScript, a line of the TypeScript as written.
func ExampleCallSiteOf() {
	ctx := context.Background()
	var opts sandbox.ScriptOptions
	if dir, err := os.UserCacheDir(); err == nil {
		opts.CompilationCacheDir = filepath.Join(dir, "airlock", "wazero")
	}
	e, err := sandbox.NewScriptEngine(ctx, opts)
	if err != nil {
		panic(err)
	}
	defer e.Close(ctx)
	bridge := func(ctx context.Context, tool string, args []byte) ([]byte, error) {
		if site, ok := sandbox.CallSiteOf(ctx); ok {
			fmt.Printf("tools.%s at line %d, column %d\n", tool, site.Line, site.Column)
		}
		return []byte(`{"status":"ok","value":null}`), nil
	}
	src := "type Note = {text: string};\nconst n: Note = {text: \"hi\"};\n\nawait tools.save(n);\nawait tools.save(\n  {text: \"again\"});"
	if _, err := e.Run(ctx, sandbox.Script{Source: src, Lang: sandbox.LangTS}, bridge, sandbox.Limits{}); err != nil {
		panic(err)
	}
	// Output:
	// tools.save at line 4, column 13
	// tools.save at line 5, column 13
}
