// Package jsprelude embeds the JavaScript prelude every airlock script runs
// after: the `tools` object, `console` capture, `ToolError`, and the entry
// points of the host-driven event loop. README.md documents what a script
// sees; ../ABI.md specifies the wire format between the prelude and the host.
package jsprelude

import _ "embed"

// Source is the prelude's JavaScript source (prelude.js).
//
//go:embed prelude.js
var Source string

// Filename is the name the prelude is evaluated under; it appears in stack
// traces of errors raised inside the prelude.
const Filename = "airlock-prelude.js"
