package sandbox

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
)

// TestCheckModuleSyntax: module syntax, which esbuild accepts but the guest
// cannot run (it runs a script as a script or as the body of an async
// function, never as a module), is refused by Check (airlock check, the
// server's submission check) at its position, with what to write instead;
// a run fails with the same error. The words alone, in names, strings,
// comments and templates, and TypeScript's type-only declarations are
// not module syntax.
func TestCheckModuleSyntax(t *testing.T) {
	e := engine(t)
	deny := "SyntaxError: " + quickjs.DenyMessage
	tests := []struct {
		name      string
		src       string
		tsOnly    bool
		msg       string // empty: accepted, and runs
		line, col int
	}{
		{name: "export default async function", src: "export default async function () {}", msg: exportMessage, line: 1, col: 1},
		{name: "export default async function with a body", src: "export default async function () {\n  return await tools.a();\n}\n", msg: exportMessage, line: 1, col: 1},
		{name: "export default expression", src: "export default 1", msg: exportMessage, line: 1, col: 1},
		{name: "export default arrow", src: "\n\nexport default async () => 1", msg: exportMessage, line: 3, col: 1},
		{name: "export function, indented", src: "  export async function main() { return 1 }", msg: exportMessage, line: 1, col: 3},
		{name: "export const with a return", src: "export const x = 1;\nreturn x", msg: exportMessage, line: 1, col: 1},
		{name: "export list", src: "const a = 1;\nexport { a };\na", msg: exportMessage, line: 2, col: 1},
		{name: "export star", src: "export * from 'x'", msg: exportMessage, line: 1, col: 1},
		{name: "export after code", src: "const a = await tools.a();\nexport { a as b }", msg: exportMessage, line: 2, col: 1},
		{name: "import without a return", src: "import x from 'y';\nx", msg: deny, line: 1, col: 1},
		{name: "import with a return", src: "import { a } from 'y'\nreturn a", msg: deny, line: 1, col: 1},
		{name: "side-effect import", src: "const n = 1;\n  import 'y'", msg: deny, line: 2, col: 3},
		{name: "import.meta", src: "const u = import.meta.url;\nu", msg: importMetaMessage, line: 1, col: 11},
		{name: "import.meta with a return", src: "\nreturn import.meta.url", msg: importMetaMessage, line: 2, col: 8},
		{name: "export enum", src: "export enum E { A }\nE.A", tsOnly: true, msg: exportMessage, line: 1, col: 1},
		{name: "empty export", src: "export {};\nreturn 1", tsOnly: true, msg: exportMessage, line: 1, col: 1},

		{name: "words as property names", src: "const o = { export: 1, import: 2 };\nreturn o.export + o.import"},
		{name: "words in strings, comments and templates", src: "// export default x\n/* import x from 'y' */\nconst s = 'export default 1' + `\nexport default 2\nimport.meta\n`;\nreturn s.length"},
		{name: "a function named main, called", src: "async function main() { return 1 }\nreturn await main()"},
		{name: "type-only declarations", src: "import type { Row } from './t';\nexport type Id = string;\nexport interface P { id: Id }\nconst r: Row[] = [];\nr.length", tsOnly: true},
	}
	for _, tt := range tests {
		for _, lang := range []Lang{LangJS, LangTS} {
			if tt.tsOnly && lang == LangJS {
				continue
			}
			t.Run(tt.name+"/"+lang.String(), func(t *testing.T) {
				s := Script{Source: tt.src, Lang: lang}
				res, runErr := e.Run(context.Background(), s, okBridge, Limits{})
				for _, err := range []error{e.Check(s), Check(s), runErr} {
					if tt.msg == "" {
						require.NoError(t, err)
						continue
					}
					var xe *ExitError
					require.ErrorAs(t, err, &xe)
					require.Equal(t, ScriptError, xe.Kind)
					require.Equal(t, tt.msg, xe.Message)
					require.Equal(t, [2]int{tt.line, tt.col}, [2]int{xe.Line, xe.Column}, "line and column")
				}
				require.NotNil(t, res)
			})
		}
	}
}
