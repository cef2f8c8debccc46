package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTinyRun runs the whole driver for one round of each workload, so
// that it cannot rot (the outputs of both sides must agree for it to
// print); it checks what is printed, never a timing.
func TestTinyRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every workload on both sides")
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required under CI=true")
		}
		t.Skip("node is not installed")
	}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), config{rounds: 1, out: &out}), out.String())
	for _, w := range workloads {
		require.Regexp(t, `(?m)^`+w.name+` .* ms .* ms .*× +≤ 10×: (met|missed)`, out.String())
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
