package toolbox_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/toolbox"
)

// FuzzValidate feeds arbitrary arguments to tools of several schemas:
// Validate never panics, and a refusal is an *ArgumentError whose message is
// bounded valid UTF-8 without the validator's internals. Seeds are in
// testdata/fuzz/FuzzValidate.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{`{"city":"Oslo"}`, `{"town":1}`, `{"city":"a","opts":{"limit":"3"}}`, `{"unit":"k"}`, `[1]`, `{"city":`} {
		f.Add(s)
	}
	b := argBox(f)
	entries := b.Entries()
	f.Fuzz(func(t *testing.T, args string) {
		for _, e := range entries {
			err := e.Validate(json.RawMessage(args))
			if err == nil {
				continue
			}
			ae, ok := errors.AsType[*toolbox.ArgumentError](err)
			require.True(t, ok, "%T %v", err, err)
			msg := ae.Message()
			require.LessOrEqual(t, len(msg), 500, msg)
			require.Equal(t, strings.ToValidUTF8(msg, ""), msg)
			require.NotContains(t, msg, "validating ")
		}
	})
}
