package sandbox

import (
	"context"

	"github.com/evanw/esbuild/pkg/api"
)

// Program is a script compiled once: checked as Check checks it (syntax,
// module syntax, nesting, the parse budget) and, for TypeScript, transpiled
// with its source map. ScriptEngine.Compile makes one; RunProgram runs it
// any number of times without parsing or transpiling it again, as wazero's
// CompileModule and InstantiateModule split the work. A Program is
// immutable and safe for concurrent use.
type Program struct {
	script Script
	prep   *prepared
}

// Compile checks s and prepares it for RunProgram. It returns what Check
// returns for a script Check refuses: a *ExitError of Kind ScriptError
// with the position of the first error, or ErrInvalidScript for an unknown
// Lang. ctx bounds the parse of a source over 64 KiB, which takes a parse
// slot of s.Tenant: when ctx ends the parse is stopped and Compile returns
// a *ExitError of Kind Cancelled or Timeout. A parse worker that fails
// (killed from outside, out of memory) is a plain error.
func (e *ScriptEngine) Compile(ctx context.Context, s Script) (*Program, error) {
	prep, err := compile(ctx, s, e.parse)
	if err != nil {
		return nil, err
	}
	return &Program{script: s, prep: prep}, nil
}

// compile is Check and prepare in one: TypeScript is transpiled once (the
// transpilation finds its errors), JavaScript is parsed once by esbuild for
// its errors and handed to the engine as it is.
func compile(ctx context.Context, s Script, pb *parseBudget) (*prepared, error) {
	prep, err := prepare(ctx, s, pb)
	if err != nil {
		return nil, err
	}
	if s.Lang == LangJS {
		if _, _, _, err := transform(ctx, s, api.LoaderJS, false, pb); err != nil {
			return nil, err
		}
	}
	return prep, nil
}

// Script returns the script p was compiled from, with the run fields With
// set.
func (p *Program) Script() Script { return p.script }

// With returns a copy of p whose runs read artifacts through artifacts and
// may park (Script.Artifacts, Script.Park). p itself is unchanged.
func (p *Program) With(artifacts ArtifactReader, park bool) *Program {
	q := *p
	q.script.Artifacts, q.script.Park = artifacts, park
	return &q
}
