// Package jsprelude embeds the JavaScript prelude every airlock script runs
// after: the `tools` object, `console` capture, `ToolError`, and the entry
// points of the host-driven event loop. README.md documents what a script
// sees; ../ABI.md specifies the wire format between the prelude and the host.
//
// The prelude is written in parts, prelude/NN-name.js, which share one
// function scope: Source is their concatenation in name order inside one
// strict-mode function, so a part uses what an earlier part declared
// (00-core.js: the host function, the operation codes, the helpers that
// define globals) and none of it is visible to the script.
package jsprelude

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed prelude/*.js
var parts embed.FS

// Source is the prelude's JavaScript source.
var Source = assemble()

// Filename is the name the prelude is evaluated under; it appears in stack
// traces of errors raised inside the prelude.
const Filename = "airlock-prelude.js"

func assemble() string {
	names, err := fs.Glob(parts, "prelude/*.js") // sorted
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	b.WriteString("// airlock guest prelude (guest-sdk/js/prelude/*.js).\n(function () {\n\"use strict\";\n")
	for _, name := range names {
		src, err := parts.ReadFile(name)
		if err != nil {
			panic(err)
		}
		b.WriteString("// ---- " + name + "\n")
		b.Write(src)
	}
	b.WriteString("})();\n")
	return b.String()
}
