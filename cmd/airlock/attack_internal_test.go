package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/toolbox"
)

// Attacks on what `airlock chains approve|deny` shows before it decides
// (THREATS.md invariant 6: what a person approves is what they see).

// TestAttackApproveWithArgumentsNotShown — a parked
// call's request loses its arguments once decided (durable.Store.Decide
// keeps only their hash and size). A bucket writer (T3) who then deletes
// the decision makes the call undecided again with no arguments to show:
// confirmDecision prints "arguments: " (empty) beside the SHA-256 and
// binds an approval to arguments the person never saw, on "y" or --yes.
// It refuses to confirm a call whose arguments it cannot show (only
// --args-hash, from a source that showed them, may decide it).
func TestAttackApproveWithArgumentsNotShown(t *testing.T) {
	sum := sha256.Sum256([]byte(`{"to":"attacker","amount":1000000}`))
	hash := hex.EncodeToString(sum[:])
	req := approval.Request{ID: "pk_x", SessionID: "ch_x", Tool: "send", Risk: toolbox.High,
		ArgsHash: hash, ArgsSize: 34} // Args nil: stripped after an earlier decision
	for _, tc := range []struct {
		name, stdin string
		yes         bool
	}{{"answered y", "y\n", false}, {"--yes", "", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			c := &cli{stdin: strings.NewReader(tc.stdin), stderr: &stderr}
			got, err := c.confirmDecision("approve", req, tc.yes, "")
			t.Logf("shown:\n%s", stderr.String())
			assert.ErrorContains(t, err, "are not in the store to be shown; nothing was decided", "arguments not shown: nothing may be decided on them (it bound %q)", got)
			assert.Empty(t, got)
		})
	}
}

// TestAttackApproveShowsWholeEscapedArguments (passes) — arguments built
// to hide part of themselves from the person deciding (terminal escapes
// that erase the line, a carriage return, bidirectional overrides,
// zero-width characters, and a long run of spaces pushing the rest off
// screen) are shown escaped and whole, and the decision binds their hash.
func TestAttackApproveShowsWholeEscapedArguments(t *testing.T) {
	args := `{"to":"ops` + "\x1b[2K\r" + `ok","note":"` + "\u202e" + `evil` + "\u200b" + `","pad":"` +
		strings.Repeat(" ", 64<<10) + `","amount":1000000}`
	sum := sha256.Sum256([]byte(args))
	req := approval.Request{ID: "pk_x", SessionID: "ch_x", Tool: "send\u202e", Risk: toolbox.High,
		Args: []byte(args), ArgsHash: hex.EncodeToString(sum[:]), ArgsSize: len(args)}
	var stderr strings.Builder
	c := &cli{stdin: strings.NewReader("y\n"), stderr: &stderr}
	got, err := c.confirmDecision("approve", req, false, "")
	require.NoError(t, err)
	require.Equal(t, req.ArgsHash, got)
	out := stderr.String()
	for _, bad := range []string{"\x1b", "\r", "\u202e", "\u200b"} {
		require.NotContains(t, out, bad)
	}
	require.Contains(t, out, `"amount":1000000}`, "the end of long arguments is shown")
}
