package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/service"
)

// TestSubjectTokenFile: airlock mcp's --subject-token-file is read at each
// run_chain: its content less one trailing line break, a replaced file
// the next time, an empty or missing file no identity (and a warning that
// holds no token).
func TestSubjectTokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	var logs strings.Builder
	read := subjectTokenFile(path, slog.New(slog.NewTextHandler(&logs, nil)))
	require.Nil(t, read(), "missing: no identity")
	require.Contains(t, logs.String(), "the subject token file cannot be read")
	for content, want := range map[string]string{
		"tok-1\n":    "tok-1",
		"tok-2\r\n":  "tok-2",
		"tok-3":      "tok-3",
		"tok-4\n\n":  "tok-4\n",
		"":           "",
		"\n":         "",
		" tok-5 \n":  " tok-5 ",
		"SECRET-x\n": "SECRET-x",
	} {
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		id := read()
		if want == "" {
			require.Nil(t, id, "%q", content)
			continue
		}
		require.NotNil(t, id, "%q", content)
		require.Equal(t, want, id.SubjectToken)
	}
	require.NotContains(t, logs.String(), "SECRET")
	big := strings.Repeat("x", 64<<10)
	require.NoError(t, os.WriteFile(path, []byte(big), 0o600))
	require.Len(t, read().SubjectToken, service.MaxSubjectTokenBytes+3, "read no further than the bound: the service refuses it by its size")
}
