// Package nesting measures, in one linear pass and before any recursive
// parser sees it, how deeply a JavaScript or TypeScript source nests, so
// that a hostile script cannot overflow the host's stack (Go cannot recover
// from that) or make the host parser go super-linear.
//
// The scanner is a tokenizer, not a parser: it knows strings, template
// literals, comments and regular expressions (told from division by the
// previous significant token), and counts as one level each bracket and each
// construct that makes esbuild recurse without brackets: prefix operators
// (`!`, `-`, `typeof`, `await`, `new`, …), `=`, `?`, `=>`, `**`, `yield`,
// `extends`, member and call chains, and braceless statement bodies (`if`,
// `else`, `while`, `for`, `with`, `do`, labels). A count lasts as long as the
// construct can: a prefix operator or a chain until the next binary
// operator, an assignment, conditional or arrow until the end of the
// expression (`,`), and a statement body until the end of the statement (`;`,
// a block's `}` or a line break where JavaScript inserts a semicolon). When
// it cannot tell, it counts: it may report a script deeper than it is, never
// shallower, for the shapes above.
//
// For TypeScript, whose types esbuild strips with its renamer on, Scan also
// estimates the renamer's work (see Report.Work): esbuild renames a symbol
// that shadows one of the same name in an enclosing scope, or collides with
// a numbered name (a, a2, a3, …), by trying numbered names one by one, which
// is cubic in the nesting depth of shadowing functions and quadratic in the
// number of numbered names.
//
// Scan allocates O(Config.MaxDepth) memory (and a fixed 48 KiB for the work
// estimate), runs in time linear in the source and never recurses:
//
//	r := nesting.Scan(src, nesting.Config{MaxDepth: 128})
//	if r.Over() { … r.Offset, r.Token … }
//
// # Concurrency
//
// Scan is safe for concurrent use; it keeps no state between calls.
//
// # Errors
//
// Scan returns no error: any byte string is scanned, and a violation is
// reported in Report.
package nesting
