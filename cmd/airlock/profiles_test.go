package main_test

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

const profilesDir = "../../examples/profiles/"

// The keys the example's config reads from the environment.
var profileKeys = []string{"REVIEWER_KEY=reviewer-key-0123456789", "RELEASE_KEY=release-key-0123456789"}

// profileOutcomes is what examples/profiles/chain.js returns under each
// profile (examples/profiles/README.md has the same table).
var profileOutcomes = map[string]string{
	"read-only-reviewer": `{"announce_early":"scope_violation","search":"ok","read":"ok",
		"write_other_key":"scope_violation","write":"scope_violation","announce":"scope_violation"}`,
	"release-helper": `{"announce_early":"dependency_unmet","search":"ok","read":"ok",
		"write_other_key":"argument_pattern_mismatch","write":"ok","announce":"ok"}`,
}

// profileTrace is the reason of each of the chain's six calls.
var profileTrace = map[string][]string{
	"read-only-reviewer": {"scope_violation", "", "", "scope_violation", "scope_violation", "scope_violation"},
	"release-helper":     {"dependency_unmet", "", "", "argument_pattern_mismatch", "", ""},
}

// TestProfilesExampleThroughTheCLI: the same script under the two
// profiles of examples/profiles gives the outcomes of its README.
func TestProfilesExampleThroughTheCLI(t *testing.T) {
	for profile, want := range profileOutcomes {
		t.Run(profile, func(t *testing.T) {
			r := airlock(t, "", profileKeys, "run", "--json", "--config", profilesDir+"airlock.yaml",
				"--profile", profile, profilesDir+"chain.js")
			require.Equal(t, 0, r.code, r.stderr)
			var res runResult
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
			require.JSONEq(t, want, string(res.Value))
			require.Len(t, res.Trace, 6)
			for i, reason := range profileTrace[profile] {
				require.Equal(t, reason, res.Trace[i].Reason, "call %d", i+1)
			}
		})
	}
	// The config's default profile is the reviewer.
	r := airlock(t, "", profileKeys, "run", "--json", "--config", profilesDir+"airlock.yaml", profilesDir+"chain.js")
	require.Equal(t, 0, r.code, r.stderr)
	var res runResult
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	require.JSONEq(t, profileOutcomes["read-only-reviewer"], string(res.Value))
	// An unknown profile is a usage error naming the known ones.
	r = airlock(t, "", profileKeys, "run", "--config", profilesDir+"airlock.yaml", "--profile", "admin", profilesDir+"chain.js")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `no profile named "admin" (profiles: read-only-reviewer, release-helper)`)
}

// TestProfilesExampleThroughHTTP: the same script submitted with each API
// key runs under the key's profile.
func TestProfilesExampleThroughHTTP(t *testing.T) {
	cfg, err := os.ReadFile(profilesDir + "airlock.yaml")
	require.NoError(t, err)
	s := serve(t, string(cfg), profileKeys...)
	c := api{t: t, url: s.url}
	src, err := os.ReadFile(profilesDir + "chain.js")
	require.NoError(t, err)
	for profile, key := range map[string]string{"read-only-reviewer": "reviewer-key-0123456789", "release-helper": "release-key-0123456789"} {
		a := c.json("POST", "/v1/chains", key, map[string]any{"script": string(src)})
		require.Equal(t, http.StatusOK, a.code, "%s", a.body)
		var view struct {
			Result struct {
				Status string
				Value  json.RawMessage
				Trace  []struct {
					Reason, Gate, Rule string
					DecisionID         string `json:"decision_id"`
				}
			}
		}
		require.NoError(t, json.Unmarshal(a.body, &view))
		res := view.Result
		require.Equal(t, "ok", res.Status, "%s", a.body)
		require.JSONEq(t, profileOutcomes[profile], string(res.Value), profile)
		for i, reason := range profileTrace[profile] {
			require.Equal(t, reason, res.Trace[i].Reason, "%s call %d", profile, i+1)
			require.Regexp(t, `^pd_[0-9a-f]{16}$`, res.Trace[i].DecisionID)
			require.NotEmpty(t, res.Trace[i].Gate)
		}
	}
}
