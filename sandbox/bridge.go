package sandbox

import "context"

// Bridge carries one tool call from the guest to the host. tool is the name
// the guest called (1 to 256 bytes of UTF-8 without control characters) and
// args the JSON value it passed ("{}" when it passed nothing). The returned
// envelope is handed to the guest verbatim and must be one JSON object with a
// string "status" member:
//
//	{"status":"ok","value":<any JSON>}
//	{"status":"error"|"denied","reason":"<code>","message":"<text>"}
//
// A non-nil error is a host failure: it ends the run with a HostError.
// ctx is cancelled when the run ends; the engines may call a Bridge from
// several goroutines at once (up to Limits.MaxInFlight). For a script's
// call, ctx also says where in the script the call was made, when the
// engine could tell (CallSiteOf).
type Bridge func(ctx context.Context, tool string, args []byte) ([]byte, error)
