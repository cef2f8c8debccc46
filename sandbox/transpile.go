package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/airlockrt/airlock/sandbox/internal/nesting"
	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
	"github.com/airlockrt/airlock/sandbox/internal/srcmap"
)

// MaxNestingDepth is how deeply a script may nest: brackets, and the
// constructs that nest without them (prefix operators, assignments,
// conditionals, arrows, member and call chains, braceless if/else/while/for
// bodies, labels). Run and Check measure it in one linear pass before any
// parser sees the script: the host's parser (esbuild) recurses once or more
// per level, and Go cannot recover from a stack overflow. A deeper script is
// a ScriptError ("nesting deeper than 128 levels at …") at the first
// construct past the cap. The scan counts conservatively: a construct may
// count as a level where a parser does not recurse (a function declaration
// counts one level more than its body), never the reverse.
//
// 128 is well above what people write, keeps esbuild under 1 MiB of stack,
// and is below where QuickJS's own parser runs out of its default stack
// (about 155 nested brackets with the default Limits.MaxStackBytes), so a
// script too deep to compile fails here, with its position, rather than
// with the parser's RangeError. A smaller Limits.MaxStackBytes can still
// make QuickJS's parser fail first.
const MaxNestingDepth = 128

// Parse-time budgets, so that no script costs esbuild more than a few times
// a normal parse of its size (about 0.2 s per MiB); both are estimates the
// scan computes in the same pass, and a script over one is a ScriptError at
// the token that crossed it. Each is base + perByte × len(source).
//
// Depth work is the sum over tokens of their nesting depth: esbuild's time
// is quadratic in the depth for some shapes (destructuring patterns,
// TypeScript types, arrows), so many groups of moderately deep code cost it
// far more than their size. Ordinary code sums to 2–5 per byte.
//
// TypeScript's renamer work: esbuild's number renamer, which TypeScript
// stripping cannot turn off (it keeps the names error messages show), is
// cubic in the depth of functions that declare the same name again and
// quadratic in numbered names (a, a2, a3, …). The scan estimates the scopes
// it visits; ordinary code estimates 4–10 per byte.
const (
	depthWorkBase    = 4 << 20
	depthWorkPerByte = 16
	tsWorkBase       = 4 << 20
	tsWorkPerByte    = 32
)

// scanNesting applies MaxNestingDepth and, for TypeScript, the transpile
// budget.
func scanNesting(s Script) error {
	cfg := nesting.Config{MaxDepth: MaxNestingDepth, MaxDepthWork: depthWorkBase + depthWorkPerByte*uint64(len(s.Source))}
	if s.Lang == LangTS {
		cfg.TS = true
		cfg.MaxWork = tsWorkBase + tsWorkPerByte*uint64(len(s.Source))
	}
	r := nesting.Scan(s.Source, cfg)
	if !r.Over() {
		return nil
	}
	line, col := position(s.Source, r.Offset)
	xe := &ExitError{Kind: ScriptError, Line: line, Column: col}
	switch r.Limit {
	case nesting.Work:
		xe.Message = fmt.Sprintf("SyntaxError: the script is too costly to transpile at %d:%d: "+
			"too many names declared again in nested functions, or numbered names (a2, a3, …) that shadow each other; "+
			"rename them or flatten the nesting", line, col)
	case nesting.DepthWork:
		xe.Message = fmt.Sprintf("SyntaxError: too much deeply nested code to parse at %d:%d; "+
			"flatten the nesting or move parts of it into separate functions", line, col)
	default:
		xe.Message = fmt.Sprintf("SyntaxError: nesting deeper than %d levels at %d:%d (%q); "+
			"flatten the expression or move parts of it into separate functions", MaxNestingDepth, line, col, r.Token)
	}
	return xe
}

// Lang is the language of a Script.
type Lang int

// Script languages. The zero value is LangJS.
const (
	// LangJS is JavaScript (ES2023 as QuickJS-NG implements it).
	LangJS Lang = iota
	// LangTS is TypeScript; types are stripped on the host by esbuild and
	// nothing is type-checked.
	LangTS
)

// String returns "js" or "ts".
func (l Lang) String() string {
	switch l {
	case LangJS:
		return "js"
	case LangTS:
		return "ts"
	}
	return fmt.Sprintf("Lang(%d)", int(l))
}

// Script is one chain script. It is either a body, which may use top-level
// await and return (its return value is the result), or a single expression:
// when the whole source parses as one expression its value is the result,
// called first if it is a function and awaited if it is a promise, so
// `async () => { … }` works as is. guest-sdk/js/README.md has examples.
type Script struct {
	// Source is the script text. It must not contain a NUL byte.
	Source string
	// Filename names the script in error messages; default "script.js" or
	// "script.ts".
	Filename string
	// Lang is the script's language, default LangJS.
	Lang Lang
	// Guest is the clock and randomness the script sees; the zero value
	// is the real clock and fresh randomness. Modules ignore it.
	Guest Guest
	// Artifacts reads the artifacts the script was handed, for their
	// text(), json() and bytes() methods; nil refuses every read
	// (reason artifact_not_found).
	Artifacts ArtifactReader
	// Park lets the run park: when its Bridge answers calls with *Pending
	// and nothing else is left to run, Run returns a Result whose Parked
	// holds the run's state, for Resume. Unset, a *Pending answer is a
	// Bridge failure.
	Park bool
	// Tenant is whose parse slot the script takes: a source over 64 KiB
	// parses while holding one of the process's few large-parse slots, at
	// most one per tenant at a time, and a second large script of a tenant
	// whose first still parses is refused (docs/limits.md, "Parse
	// budget"). Scripts with no Tenant share the slot of the empty tenant.
	// It is not part of a Program's or a parked run's identity.
	Tenant string
}

func (s Script) filename() string {
	if s.Filename != "" {
		return s.Filename
	}
	if s.Lang == LangTS {
		return "script.ts"
	}
	return "script.js"
}

// prepared is a script ready for the guest: the code the prelude compiles and
// how to map guest positions back to the submitted source.
type prepared struct {
	code     string
	smap     *srcmap.Map // TS: generated JS → the (host-wrapped) TS
	hostWrap int         // TS: lines the host put before the script
	lines    int         // lines in the submitted source
	source   string      // the submitted source
	filename string      // Script.filename()

	codeLines, sourceLines []string // split on first use by mapTS (splitOnce: runs of one Program share it)
	splitOnce              sync.Once
	lang                   Lang
	body                   bool         // JS with a top-level return: the prelude compiles it as a body at once (scriptform.go)
	parse                  *parseBudget // the engine's, for Check on a compile error
	tenant                 string       // Script.Tenant, for that Check
}

// prepare checks s and makes it ready for the guest, parsing it within pb;
// ctx bounds a large parse.
func prepare(ctx context.Context, s Script, pb *parseBudget) (*prepared, error) {
	if i := strings.IndexByte(s.Source, 0); i >= 0 {
		line, col := position(s.Source, i)
		return nil, &ExitError{Kind: ScriptError, Message: "SyntaxError: the source contains a NUL byte", Line: line, Column: col}
	}
	if s.Lang != LangJS && s.Lang != LangTS {
		return nil, fmt.Errorf("%w: unknown Lang %d", ErrInvalidScript, int(s.Lang))
	}
	if err := scanNesting(s); err != nil {
		return nil, err
	}
	p := &prepared{lines: strings.Count(s.Source, "\n") + 1, source: s.Source, filename: s.filename(), lang: s.Lang, parse: pb, tenant: s.Tenant}
	switch s.Lang {
	case LangJS:
		p.code = s.Source
		p.body = topLevelReturn(s.Source)
		return p, nil
	case LangTS:
		code, m, wrapped, err := transform(ctx, s, api.LoaderTS, true, pb)
		if err != nil {
			return nil, err
		}
		p.code, p.hostWrap = code, wrapped
		if p.smap, err = srcmap.Parse(m); err != nil {
			return nil, fmt.Errorf("sandbox: reading esbuild's source map: %w", err)
		}
		return p, nil
	}
	return nil, fmt.Errorf("%w: unknown Lang %d", ErrInvalidScript, int(s.Lang))
}

// Check parses (and for TypeScript, transpiles) s with the host parser
// alone, without an engine: a syntax error is an *ExitError of Kind
// ScriptError with the line and column. Module syntax (import and export
// declarations, import.meta) is such an error: a script runs as a script or
// as the body of an async function, never as a module. A source over 64
// KiB takes a parse slot of s.Tenant; its parse budget, not a context,
// bounds the wait.
func Check(s Script) error { return check(context.Background(), s, processParse) }

// check is Check parsing within pb; ctx bounds a large parse.
func check(ctx context.Context, s Script, pb *parseBudget) error {
	if i := strings.IndexByte(s.Source, 0); i >= 0 {
		line, col := position(s.Source, i)
		return &ExitError{Kind: ScriptError, Message: "SyntaxError: the source contains a NUL byte", Line: line, Column: col}
	}
	loader := api.LoaderJS
	switch s.Lang {
	case LangJS:
	case LangTS:
		loader = api.LoaderTS
	default:
		return fmt.Errorf("%w: unknown Lang %d", ErrInvalidScript, int(s.Lang))
	}
	if err := scanNesting(s); err != nil {
		return err
	}
	_, _, _, err := transform(ctx, s, loader, false, pb)
	return err
}

// transform runs esbuild on the script as it is, as the prelude first tries
// JavaScript, and, if that fails (top-level return), on the script wrapped
// in an async function. Syntax errors come back as *ExitError against
// s.Source. wrapped is the number of lines the host put before the script.
//
// esbuild parses a source as a module when it can, but the guest never runs
// one: it evaluates the source as a script, then as the body of an async
// function. A source esbuild accepts that uses module syntax (an import or
// export declaration, import.meta) is refused here, at the position of that
// syntax, rather than failing when it runs.
func transform(ctx context.Context, s Script, loader api.Loader, wantCode bool, pb *parseBudget) (code string, sourceMap []byte, wrapped int, err error) {
	opts := api.TransformOptions{
		Loader:         loader,
		Target:         api.ESNext,
		Sourcefile:     s.filename(),
		LegalComments:  api.LegalCommentsNone,
		SourcesContent: api.SourcesContentExclude,
		// esbuild then warns, with its position, at each import.meta.
		Supported: map[string]bool{"import-meta": false},
	}
	if wantCode {
		opts.Sourcemap = api.SourceMapExternal
	} else {
		// Only the errors matter: minified names take esbuild's linear
		// renamer instead of its number renamer (see tsWorkPerByte), and
		// minified whitespace does not indent every line by its depth.
		opts.MinifyIdentifiers = true
		opts.MinifyWhitespace = true
	}
	r, err := pb.run(ctx, s.Tenant, s.Source, opts)
	if err != nil {
		return "", nil, 0, err
	}
	if len(r.Errors) == 0 {
		if xe := importMeta(r.Warnings, 0); xe != nil {
			return "", nil, 0, xe
		}
		if strings.Contains(s.Source, "export") || strings.Contains(s.Source, "import") {
			// Perhaps a module: the body form fails at its first import or
			// export declaration, as the guest would.
			br, err := pb.run(ctx, s.Tenant, bodyForm(s.Source), opts)
			if err != nil {
				return "", nil, 0, err
			}
			if xe := moduleDecl(s.Source, br.Errors); xe != nil {
				return "", nil, 0, xe
			}
		}
		return string(r.Code), r.Map, 0, nil
	}
	if r, err = pb.run(ctx, s.Tenant, bodyForm(s.Source), opts); err != nil {
		return "", nil, 0, err
	}
	if len(r.Errors) > 0 {
		if xe := moduleDecl(s.Source, r.Errors); xe != nil {
			return "", nil, 0, xe
		}
		e := r.Errors[0]
		xe := &ExitError{Kind: ScriptError, Message: "SyntaxError: " + e.Text}
		if e.Location != nil {
			xe.Line = max(e.Location.Line-1, 1)
			xe.Column = e.Location.Column + 1
		}
		return "", nil, 0, xe
	}
	if xe := importMeta(r.Warnings, 1); xe != nil {
		return "", nil, 0, xe
	}
	return string(r.Code), r.Map, 1, nil
}

// bodyForm is src wrapped in an async function, one line before it, as the
// prelude compiles a script that is not a plain script. Module-level
// TypeScript declarations that only name types (`import type`, `export
// type`) cannot stand inside a function, and are blanked out first (keeping
// every position).
func bodyForm(src string) string { return "(async () => {\n" + blankTypeDecls(src) + "\n})" }

// Messages of the module syntax a script cannot use.
const (
	exportMessage = "SyntaxError: export is not available in chains: a script runs as the body of an async function, not as a module; " +
		"remove the export and write top-level code that returns the result (return await main()), " +
		"or make the whole script one function expression (async () => { … })"
	importMetaMessage = "SyntaxError: import.meta is not available in chains: a script runs as the body of an async function, not as a module, " +
		"and has no module URL; pass what it needs as tool arguments or results"
)

// moduleDecl explains errs, esbuild's errors on the body form of src, when
// they come from an import or export declaration, and returns nil
// otherwise: an import is refused as the guest refuses it, at the keyword;
// an export at its keyword, with what to write instead.
func moduleDecl(src string, errs []api.Message) *ExitError {
	if len(errs) == 0 {
		return nil
	}
	if line, col, ok := staticImport(src); ok {
		return &ExitError{Kind: ScriptError, Message: "SyntaxError: " + quickjs.DenyMessage, Line: line, Column: col}
	}
	loc := errs[0].Location
	if loc == nil || loc.Column < 0 || loc.Column > len(loc.LineText) || !strings.HasPrefix(loc.LineText[loc.Column:], "export") {
		return nil
	}
	return &ExitError{Kind: ScriptError, Message: exportMessage, Line: max(loc.Line-1, 1), Column: loc.Column + 1}
}

// importMeta returns the error for the first import.meta esbuild warned
// about, or nil; wrapped is the number of lines the host put before the
// script.
func importMeta(warnings []api.Message, wrapped int) *ExitError {
	for _, w := range warnings {
		loc := w.Location
		if loc == nil || !strings.Contains(w.Text, "import.meta") || loc.Column < 0 || loc.Column > len(loc.LineText) ||
			!strings.HasPrefix(loc.LineText[loc.Column:], "import") {
			continue
		}
		return &ExitError{Kind: ScriptError, Message: importMetaMessage, Line: max(loc.Line-wrapped, 1), Column: loc.Column + 1}
	}
	return nil
}

// importDecl matches the start of a static import declaration: `import x`,
// `import {`, `import *`, `import "m"` (not `import(` or `import.meta`).
var importDecl = regexp.MustCompile(`(?m)^[ \t]*import[ \t]*(?:[\p{L}_$*{]|["'])`)

// typeImport matches a whole type-only import declaration at the start of
// its text: `import type … from "m";`, or `import { type A, type B } from
// "m";` where every name is a type.
var typeImport = regexp.MustCompile(`^[ \t]*import(?:[ \t]+type[ \t]*[\p{L}_$*{][^;'"]*?|[ \t]*\{(?:[ \t\r\n]*type[ \t\r\n]+[\p{L}_$][\p{L}\p{N}_$]*(?:[ \t\r\n]+as[ \t\r\n]+[\p{L}_$][\p{L}\p{N}_$]*)?[ \t\r\n]*,?)*[ \t\r\n]*\}[ \t\r\n]*)from[ \t]*(?:"[^"\n]*"|'[^'\n]*')[ \t]*;?`)

// exportType matches `export` before a type or interface declaration.
var exportType = regexp.MustCompile(`(?m)^[ \t]*export[ \t]+(?:type|interface|declare)\b`)

// typeOnlyImport reports whether the import declaration at the start of
// stmt names only types.
func typeOnlyImport(stmt string) bool { return typeImport.MatchString(stmt) }

// blankTypeDecls blanks out type-only import declarations and the `export`
// of type and interface declarations with spaces, keeping newlines, so
// that positions in the result are those of src.
func blankTypeDecls(src string) string {
	b := []byte(src)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' && b[i] != '\r' {
				b[i] = ' '
			}
		}
	}
	for _, loc := range importDecl.FindAllStringIndex(src, -1) {
		if m := typeImport.FindStringIndex(src[loc[0]:]); m != nil {
			blank(loc[0], loc[0]+m[1])
		}
	}
	for _, loc := range exportType.FindAllStringIndex(src, -1) {
		at := loc[0] + strings.Index(src[loc[0]:loc[1]], "export")
		blank(at, at+len("export"))
	}
	return string(b)
}

// Parse budgets. esbuild cannot be cancelled, and some sources cost it far
// more than their size suggests: each semantic error it recovers from
// (a name declared twice, a legacy octal in strict code) computes the line
// of a note that points back into the source, so a 1 MiB storm of them takes
// minutes. The nesting scan bounds recursion, not that. Small sources parse
// inline: their worst case is about a second. A larger one parses in a
// worker process (parseInWorker) under a time budget, holding one of a few
// parse slots, at most one per tenant; a parse over its budget, or whose
// caller's context ends, is killed, which frees its slot and its core at
// once (RATIONALE.md, "Why parse large scripts in a worker process?").
// Where no worker can run (RunParseWorker was not called) a large source
// parses in process on a goroutine of its own: over budget it is abandoned
// but runs on, holding its slot, until esbuild returns.
//
// parseBudget holds those rules. Every engine uses processParse, the
// process's one budget; tests give an engine noParseBudget, so that a test
// that checks a large source is accepted does not race a wall-clock budget
// on a busy machine, and test the budget itself with a parseBudget of their
// own whose clock and parser they control.
type parseBudget struct {
	// inline is the largest source parsed without the budget, in bytes.
	inline int
	// base and perByte give the budget of a larger source: base +
	// perByte × its length.
	base, perByte time.Duration
	// slots is how many large parses may run in the process at once.
	slots int
	// after starts the budget's timer: it returns the channel the timer
	// fires on and a function that stops it. Nil means time.NewTimer.
	after func(time.Duration) (<-chan time.Time, func() bool)
	// transform is the in-process parser. Nil means esbuild's
	// api.Transform.
	transform func(string, api.TransformOptions) api.TransformResult
	// worker parses a large source where it can be stopped, and returns
	// once it has stopped when its context ends; it returns errNoWorker,
	// having started nothing, when it cannot run. Nil parses every source
	// in process.
	worker func(context.Context, string, api.TransformOptions) (api.TransformResult, error)

	mu      sync.Mutex
	running int                 // large parses holding a slot, abandoned in-process ones included
	tenants map[string]struct{} // the tenants of those parses
}

// processParse is the parse budget of every engine and of Check: about 25
// times an ordinary parse of a source's size, for sources over 64 KiB, and
// as many large parses at once as the machine has cores (at least two, so
// that one tenant never holds them all).
var processParse = &parseBudget{
	inline:  64 << 10,
	base:    time.Second,
	perByte: 2 * time.Microsecond,
	slots:   max(runtime.NumCPU(), 2),
	worker: func(ctx context.Context, src string, opts api.TransformOptions) (api.TransformResult, error) {
		return parseInWorker(ctx, src, opts, nil)
	},
}

// noParseBudget parses every source inline, without a budget: for tests.
var noParseBudget = &parseBudget{inline: math.MaxInt}

// Refusals of a large source that finds no parse slot.
const (
	tenantBusyMessage = "SyntaxError: the host is parsing another large script of this tenant; retry in a moment, or send a smaller one"
	hostBusyMessage   = "SyntaxError: the host is parsing other large scripts; retry in a moment, or send a smaller one"
)

// acquire takes a large-parse slot for tenant, or returns why it cannot.
func (b *parseBudget) acquire(tenant string) *ExitError {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, busy := b.tenants[tenant]; busy {
		return &ExitError{Kind: ScriptError, Message: tenantBusyMessage}
	}
	if b.running >= max(b.slots, 1) {
		return &ExitError{Kind: ScriptError, Message: hostBusyMessage}
	}
	if b.tenants == nil {
		b.tenants = map[string]struct{}{}
	}
	b.tenants[tenant] = struct{}{}
	b.running++
	return nil
}

// release frees tenant's slot.
func (b *parseBudget) release(tenant string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.tenants, tenant)
	b.running--
}

// busy is the number of slots held.
func (b *parseBudget) busy() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running
}

// run runs the parser on src within the budget, taking tenant's slot for
// a large source. A source over its budget, or one that finds its
// tenant's slot or every slot taken, is refused with a ScriptError saying
// so; ctx ending stops a large parse and returns a Cancelled or Timeout
// ExitError. When run returns, a large parse that ran in a worker is over
// and its slot free.
func (b *parseBudget) run(ctx context.Context, tenant, src string, opts api.TransformOptions) (api.TransformResult, error) {
	transform := b.transform
	if transform == nil {
		transform = api.Transform
	}
	if len(src) <= b.inline {
		return transform(src, opts), nil
	}
	if ctx.Err() != nil {
		return api.TransformResult{}, parseExit(ctx)
	}
	if xe := b.acquire(tenant); xe != nil {
		return api.TransformResult{}, xe
	}
	type parsed struct {
		r   api.TransformResult
		err error
	}
	done := make(chan parsed, 1)
	inProcess := make(chan struct{}) // closed when the parse cannot be stopped
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	go func() {
		var p parsed
		p.err = errNoWorker
		if b.worker != nil {
			p.r, p.err = b.worker(wctx, src, opts)
		}
		if errors.Is(p.err, errNoWorker) {
			close(inProcess)
			p.r, p.err = transform(src, opts), nil
		}
		b.release(tenant) // before the caller has p: its next parse (the body form) may be large too
		done <- p
	}()
	budget := b.base + b.perByte*time.Duration(len(src))
	after := b.after
	if after == nil {
		after = func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		}
	}
	expired, stop := after(budget)
	defer stop()
	// stopParse kills a worker and waits until it is gone (its slot is then
	// free); an in-process parse is abandoned.
	stopParse := func() {
		stopWorker()
		select {
		case <-done:
		case <-inProcess:
		}
	}
	select {
	case p := <-done:
		switch {
		case p.err != nil && ctx.Err() != nil:
			return api.TransformResult{}, parseExit(ctx)
		case p.err != nil:
			return api.TransformResult{}, fmt.Errorf("sandbox: parsing the script: %w", p.err)
		}
		return p.r, nil
	case <-expired:
		stopParse()
		return api.TransformResult{}, &ExitError{Kind: ScriptError, Message: fmt.Sprintf(
			"SyntaxError: the script is too costly to parse (over %s): many repeated errors such as names declared twice; fix the first ones and resubmit",
			budget.Round(time.Millisecond))}
	case <-ctx.Done():
		stopParse()
		return api.TransformResult{}, parseExit(ctx)
	}
}

// parseExit is the ExitError of a parse whose context ended.
func parseExit(ctx context.Context) *ExitError {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &ExitError{Kind: Timeout, Message: "the deadline passed while the host parsed the script", Err: context.DeadlineExceeded}
	}
	return &ExitError{Kind: Cancelled, Message: "the parse of the script was cancelled", Err: context.Canceled}
}

// mapTS maps a 1-based position in the JavaScript esbuild generated from a
// TypeScript script to the script as submitted. esbuild maps the start of
// each token it emits, not every position: between the mapping before col
// and col, where the generated text equals the source (esbuild keeps
// expressions as written, but for quotes and spacing), col moves by the
// same distance in the source.
func (p *prepared) mapTS(line, col int) (srcLine, srcCol int, ok bool) {
	if p.smap == nil {
		return 0, 0, false
	}
	sl, sc, gc, ok := p.smap.Segment(line-1, col-1)
	if !ok {
		return 0, 0, false
	}
	srcLine, srcCol = sl+1-p.hostWrap, sc+1
	if srcLine < 1 || srcLine > p.lines {
		return 0, 0, false
	}
	if d := col - 1 - gc; d > 0 {
		p.splitOnce.Do(func() {
			p.codeLines, p.sourceLines = strings.Split(p.code, "\n"), strings.Split(p.source, "\n")
		})
		if line-1 < len(p.codeLines) {
			// A statement's mapping may start at the indentation esbuild
			// added.
			gen := p.codeLines[line-1]
			for d > 0 && gc < len(gen) && (gen[gc] == ' ' || gen[gc] == '\t') {
				gc++
				d--
			}
			if sameText(gen, gc, p.sourceLines[srcLine-1], sc, d) {
				srcCol += d
			}
		}
	}
	return srcLine, srcCol, true
}

// sameText reports whether the n UTF-16 units of a from column ca equal
// those of b from column cb, quotes of any kind counting as equal.
func sameText(a string, ca int, b string, cb int, n int) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	if ca+n > len(ua) || cb+n > len(ub) {
		return false
	}
	quote := func(c uint16) bool { return c == '"' || c == '\'' || c == '`' }
	for i := 0; i < n; i++ {
		x, y := ua[ca+i], ub[cb+i]
		if x != y && !(quote(x) && quote(y)) {
			return false
		}
	}
	return true
}

// position converts a byte offset into a 1-based line and column.
func position(src string, off int) (line, col int) {
	before := src[:off]
	line = strings.Count(before, "\n") + 1
	col = off - (strings.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// sanitize makes guest text valid UTF-8.
func sanitize(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }
