package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary serve as the density child, as the program
// does.
func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		if err := densityChild(v, os.Stdout); err != nil {
			os.Stderr.WriteString("peerbench: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestTinyRun runs the whole driver with a few samples of each measure, so
// that it cannot rot; it checks what is printed, never a timing.
func TestTinyRun(t *testing.T) {
	dir := filepath.Join("..", "..", "bench", "peer")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "quickjs-emscripten", "package.json")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the peer is not installed in %s; scripts/peer-deps.sh installs it (make test runs it)", dir)
		}
		t.Skip("the peer is not installed (run scripts/peer-deps.sh)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required under CI=true")
		}
		t.Skip("node is not installed")
	}
	var out bytes.Buffer
	err := run(context.Background(), config{peerDir: dir, rounds: 1, starts: 2, calls: 3, loops: 1, chains: 3, out: &out})
	require.NoError(t, err, out.String())
	for _, m := range []string{"start", "call", "loop", "density"} {
		require.Regexp(t, `(?m)^`+m+` .*× .*: (met|missed)$`, out.String())
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		require.Equal(t, tt.want, median(tt.in))
	}
}
