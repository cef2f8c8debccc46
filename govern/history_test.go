package govern_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/toolbox"
)

// TestHistoryStateRoundTrip: a chain's history, exported, sent through
// JSON and restored into a fresh Chain, lets Sequential and
// ReadBeforeWrite policies allow what they allowed before, and nothing in
// flight comes along.
func TestHistoryStateRoundTrip(t *testing.T) {
	must := mustPolicy(t)
	prof := &govern.Profile{Scopes: []string{"*"}, Policies: []govern.CallPolicy{
		must(govern.Sequential("deploy", "run_tests")),
		must(govern.ReadBeforeWrite("read_file", "write_file", "path")),
	}}
	g := govern.New(govern.Options{})
	ch := govern.NewChain(prof)
	for _, c := range []govern.Call{call("run_tests", toolbox.Info{}, `{}`), call("read_file", toolbox.Info{}, `{"path":"/w/a.go"}`)} {
		require.Nil(t, g.Admit(ch, c))
		g.Done(ch, c, true)
	}
	busy := call("read_file", toolbox.Info{}, `{"path":"/w/b.go"}`)
	require.Nil(t, g.Admit(ch, busy)) // in flight: not exported

	b, err := json.Marshal(ch.History().State())
	require.NoError(t, err)
	var st govern.HistoryState
	require.NoError(t, json.Unmarshal(b, &st))
	require.Equal(t, map[string]int{"run_tests": 1, "read_file": 1}, st.Succeeded)
	require.Len(t, st.Facts, 1)

	fresh := govern.NewChain(prof)
	deploy, write := call("deploy", toolbox.Info{}, `{}`), call("write_file", toolbox.Info{}, `{"path":"/w/a.go"}`)
	require.Equal(t, govern.ReasonDependencyUnmet, g.Admit(fresh, deploy).Reason, "a fresh chain has no history")
	require.NoError(t, fresh.RestoreHistory(st))
	for _, c := range []govern.Call{deploy, write} {
		require.Nil(t, g.Admit(fresh, c), c.Tool)
		g.Done(fresh, c, false)
	}
	other := call("write_file", toolbox.Info{}, `{"path":"/w/b.go"}`)
	require.Equal(t, govern.ReasonReadBeforeWrite, g.Admit(fresh, other).Reason, "the in-flight read was not carried")
	require.Equal(t, st, fresh.History().State())
	require.Equal(t, govern.HistoryState{}, govern.NewChain(nil).History().State(), "an empty history exports nil maps")
}

// TestRestoreHistoryRefusesBadStates: states no History could hold are
// refused with ErrInvalidHistory and leave the chain as it was.
func TestRestoreHistoryRefusesBadStates(t *testing.T) {
	tooMany := map[string]int{}
	for i := 0; i <= govern.MaxFacts; i++ {
		tooMany[fmt.Sprint("f", i)] = 1
	}
	tests := []struct {
		name string
		st   govern.HistoryState
		want string
	}{
		{"too many facts", govern.HistoryState{Facts: tooMany}, "at most 4096"},
		{"too many tools", govern.HistoryState{Succeeded: tooMany}, "at most 4096"},
		{"empty fact", govern.HistoryState{Facts: map[string]int{"": 1}}, "empty"},
		{"zero count", govern.HistoryState{Facts: map[string]int{"a": 0}}, "count 0"},
		{"negative count", govern.HistoryState{Facts: map[string]int{"a": -3}}, "count -3"},
		{"success as a fact", govern.HistoryState{Facts: map[string]int{govern.SucceededFact("x"): 1}}, "Succeeded"},
		{"empty tool", govern.HistoryState{Succeeded: map[string]int{"": 1}}, "non-empty"},
		{"negative successes", govern.HistoryState{Succeeded: map[string]int{"t": -1}}, "at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ch := govern.NewChain(nil)
			require.NoError(t, ch.RestoreHistory(govern.HistoryState{Facts: map[string]int{"keep": 2}}))
			err := ch.RestoreHistory(tc.st)
			require.ErrorIs(t, err, govern.ErrInvalidHistory)
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, map[string]int{"keep": 2}, ch.History().State().Facts, "a refused state changes nothing")
		})
	}
	full := govern.HistoryState{Facts: map[string]int{}}
	for i := 0; i < govern.MaxFacts; i++ {
		full.Facts[strings.Repeat("x", 3)+fmt.Sprint(i)] = 1
	}
	require.NoError(t, govern.NewChain(nil).RestoreHistory(full), "exactly MaxFacts fits")
}
