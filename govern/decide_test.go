package govern_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/toolbox"
)

func call(tool string, info toolbox.Info, args string) govern.Call {
	info.Name = tool
	a := json.RawMessage(args)
	return govern.Call{Tool: tool, Info: info, Action: govern.ActionOf(info, a), Args: a, ChainID: "s_1", Seq: 1, Tenant: "acme"}
}

func TestDecide(t *testing.T) {
	git := toolbox.Info{Risk: toolbox.Safe, Scopes: []string{"repo:read"},
		ActionRisk: map[string]toolbox.Risk{"push": toolbox.High, "force_push": toolbox.Critical}}
	outside := govern.RiskAdjuster{Name: "outside_workspace", Adjust: func(c govern.Call, r toolbox.Risk) toolbox.Risk {
		if strings.Contains(string(c.Args), `"/etc`) {
			return toolbox.Critical
		}
		return r
	}}
	lower := govern.RiskAdjuster{Name: "lower", Adjust: func(govern.Call, toolbox.Risk) toolbox.Risk { return toolbox.Safe }}
	boom := govern.RiskAdjuster{Name: "boom", Adjust: func(govern.Call, toolbox.Risk) toolbox.Risk { panic("x") }}
	bogus := govern.RiskAdjuster{Name: "bogus", Adjust: func(govern.Call, toolbox.Risk) toolbox.Risk { return 7 }}
	read := &govern.Profile{Name: "r", Scopes: []string{"repo:read"}}
	tests := []struct {
		name    string
		profile *govern.Profile
		c       govern.Call
		gate    govern.Gate
		risk    toolbox.Risk
		reason  string
		rule    string
	}{
		{"scope granted, safe action", read, call("git", git, `{"action":"status"}`), govern.Allow, toolbox.Safe, "", "matrix[supervised][SAFE]"},
		{"scope missing", &govern.Profile{Name: "none"}, call("git", git, `{}`), govern.Deny, toolbox.Safe, govern.ReasonScopeViolation, "scope"},
		{"star grants all", &govern.Profile{Scopes: []string{"*"}}, call("git", git, `{}`), govern.Allow, toolbox.Safe, "", "matrix[supervised][SAFE]"},
		{"risk map high", read, call("git", git, `{"action":"push"}`), govern.Confirm, toolbox.High, "", "matrix[supervised][HIGH] risk_map[push]"},
		{"risk map critical", read, call("git", git, `{"action":"force_push"}`), govern.Confirm, toolbox.Critical, "", "matrix[supervised][CRITICAL] risk_map[force_push]"},
		{"action not a string", read, call("git", git, `{"action":7}`), govern.Allow, toolbox.Safe, "", "matrix[supervised][SAFE]"},
		{"restricted denies high", &govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Restricted}, call("git", git, `{"action":"push"}`), govern.Deny, toolbox.High, govern.ReasonGateDenied, "matrix[restricted][HIGH] risk_map[push]"},
		{"autonomous allows high", &govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Autonomous}, call("git", git, `{"action":"push"}`), govern.Allow, toolbox.High, "", "matrix[autonomous][HIGH] risk_map[push]"},
		{"adjuster raises", &govern.Profile{Scopes: []string{"*"}, Adjusters: []govern.RiskAdjuster{outside}}, call("write", toolbox.Info{Risk: toolbox.High}, `{"path":"/etc/passwd"}`), govern.Confirm, toolbox.Critical, "", "matrix[supervised][CRITICAL] adjuster:outside_workspace"},
		{"adjuster cannot lower", &govern.Profile{Scopes: []string{"*"}, Adjusters: []govern.RiskAdjuster{lower}}, call("write", toolbox.Info{Risk: toolbox.High}, `{}`), govern.Confirm, toolbox.High, "", "matrix[supervised][HIGH]"},
		{"panicking adjuster fails closed", &govern.Profile{Scopes: []string{"*"}, Adjusters: []govern.RiskAdjuster{boom}}, call("read", toolbox.Info{}, `{}`), govern.Confirm, toolbox.Critical, "", "matrix[supervised][CRITICAL] adjuster:boom"},
		{"invalid adjuster answer fails closed", &govern.Profile{Scopes: []string{"*"}, Adjusters: []govern.RiskAdjuster{bogus}}, call("read", toolbox.Info{}, `{}`), govern.Confirm, toolbox.Critical, "", "matrix[supervised][CRITICAL] adjuster:bogus"},
		{"custom matrix preview", &govern.Profile{Scopes: []string{"*"}, Matrix: govern.Matrix{govern.Supervised: {govern.Allow, govern.Preview, govern.Deny}}}, call("write", toolbox.Info{Risk: toolbox.High}, `{}`), govern.Preview, toolbox.High, "", "matrix[supervised][HIGH]"},
		{"custom matrix missing row uses default", &govern.Profile{Scopes: []string{"*"}, Autonomy: govern.Autonomous, Matrix: govern.Matrix{govern.Supervised: {govern.Deny, govern.Deny, govern.Deny}}}, call("write", toolbox.Info{Risk: toolbox.High}, `{}`), govern.Allow, toolbox.High, "", "matrix[autonomous][HIGH]"},
	}
	g := govern.New(govern.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := g.Decide(govern.NewChain(tt.profile), tt.c)
			require.Equal(t, tt.gate, d.Gate)
			require.Equal(t, tt.risk, d.Risk)
			require.Equal(t, tt.reason, d.Reason)
			require.Equal(t, tt.rule, d.Rule)
			require.Regexp(t, `^pd_[0-9a-f]{16}$`, d.ID)
			require.Equal(t, d.ID, g.Decide(govern.NewChain(tt.profile), tt.c).ID, "the id is deterministic")
			require.Equal(t, tt.reason != "" || tt.gate == govern.Deny, d.Denied())
		})
	}
	c2 := call("git", git, `{}`)
	c2.Seq = 2
	require.NotEqual(t, g.Decide(govern.NewChain(read), call("git", git, `{}`)).ID, g.Decide(govern.NewChain(read), c2).ID)
}

// TestDefaultMatrix pins all nine cells.
func TestDefaultMatrix(t *testing.T) {
	want := map[govern.Autonomy][3]govern.Gate{
		govern.Restricted: {govern.Allow, govern.Deny, govern.Deny},
		govern.Supervised: {govern.Allow, govern.Confirm, govern.Confirm},
		govern.Autonomous: {govern.Allow, govern.Allow, govern.Confirm},
	}
	for a, row := range want {
		for r, g := range row {
			got, rule := govern.Matrix(nil).Gate(a, toolbox.Risk(r))
			require.Equal(t, g, got, "%s/%s", a, toolbox.Risk(r))
			require.Equal(t, fmt.Sprintf("matrix[%s][%s]", a, toolbox.Risk(r)), rule)
		}
	}
	got, _ := govern.Matrix(nil).Gate(govern.Autonomy(9), toolbox.Safe)
	require.Equal(t, govern.Deny, got, "an unknown level denies")
}

func mustPolicy(t *testing.T) func(govern.CallPolicy, error) govern.CallPolicy {
	return func(p govern.CallPolicy, err error) govern.CallPolicy {
		t.Helper()
		require.NoError(t, err)
		return p
	}
}

// TestPolicies drives each stock policy through Admit and Done.
func TestPolicies(t *testing.T) {
	must := mustPolicy(t)
	seq := must(govern.Sequential("deploy", "run_tests", "build"))
	rbw := must(govern.ReadBeforeWrite("read_file", "write_file", "path"))
	limit := must(govern.CallLimit("send", 2))
	branch := must(govern.ArgConstraint(govern.ArgRule{Tool: "git", Arg: "/target/branch", Allow: []string{"main", "dev"}, Required: true}))
	pattern := must(govern.ArgConstraint(govern.ArgRule{Tool: "*", Arg: "tag", Pattern: `v[0-9]+`, MaxLen: 5}))
	type step struct {
		tool, args string
		ok         bool   // the call succeeds (for Done)
		reason     string // Admit's refusal, "" for admitted
	}
	tests := []struct {
		name   string
		policy govern.CallPolicy
		steps  []step
	}{
		{"sequential", seq, []step{
			{"deploy", `{}`, true, govern.ReasonDependencyUnmet},
			{"run_tests", `{}`, true, ""},
			{"deploy", `{}`, true, govern.ReasonDependencyUnmet},
			{"build", `{}`, false, ""}, // failed: does not count
			{"deploy", `{}`, true, govern.ReasonDependencyUnmet},
			{"build", `{}`, true, ""},
			{"deploy", `{}`, true, ""},
		}},
		{"read before write", rbw, []step{
			{"write_file", `{"path":"/w/a.go"}`, true, govern.ReasonReadBeforeWrite},
			{"read_file", `{"path":"/w/b.go"}`, true, ""},
			{"write_file", `{"path":"/w/a.go"}`, true, govern.ReasonReadBeforeWrite},
			{"read_file", `{"path":"/w/./x/../a.go"}`, true, ""},
			{"write_file", `{"path":"/w/a.go"}`, true, ""},
			{"write_file", `{"text":"no path"}`, true, govern.ReasonReadBeforeWrite},
			{"write_file", `{"path":7}`, true, govern.ReasonReadBeforeWrite},
			{"write_file", `{"path":"/w/a.go","Path":"/etc/passwd"}`, true, govern.ReasonReadBeforeWrite},
			{"write_file", `{"Path":"/w/a.go"}`, true, ""},
		}},
		{"call limit", limit, []step{
			{"send", `{}`, false, ""},
			{"send", `{}`, true, ""},
			{"send", `{}`, true, ""},
			{"send", `{}`, true, govern.ReasonCallLimit},
			{"other", `{}`, true, ""},
		}},
		{"argument allow-list by pointer", branch, []step{
			{"git", `{"target":{"branch":"main"}}`, true, ""},
			{"git", `{"target":{"branch":"prod"}}`, true, govern.ReasonArgumentNotAllowed},
			{"git", `{"target":{}}`, true, govern.ReasonArgumentNotAllowed},
			{"git", `{"target":{"branch":{"x":1}}}`, true, govern.ReasonArgumentNotAllowed},
			// encoding/json reads a struct field case-insensitively: so does the policy.
			{"git", `{"target":{"Branch":"prod"}}`, true, govern.ReasonArgumentNotAllowed},
			{"git", `{"Target":{"branch":"prod"}}`, true, govern.ReasonArgumentNotAllowed},
			{"git", `{"target":{"branch":"main","BRANCH":"prod"}}`, true, govern.ReasonArgumentNotAllowed},
			{"git", `{"target":{"Branch":"dev"}}`, true, ""},
			{"other", `{}`, true, ""},
		}},
		{"argument pattern and length on every tool", pattern, []step{
			{"a", `{"tag":"v12"}`, true, ""},
			{"b", `{"tag":"x12"}`, true, govern.ReasonArgumentPattern},
			{"c", `{"tag":"v123456"}`, true, govern.ReasonArgumentTooLong},
			{"d", `{"tag":["v1","v2","bad"]}`, true, govern.ReasonArgumentPattern},
			{"e", `{"tag":12}`, true, govern.ReasonArgumentPattern},
			{"f", `{}`, true, ""},
		}},
	}
	g := govern.New(govern.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := govern.NewChain(&govern.Profile{Scopes: []string{"*"}, Policies: []govern.CallPolicy{tt.policy}})
			for i, s := range tt.steps {
				c := call(s.tool, toolbox.Info{}, s.args)
				d := g.Admit(ch, c)
				if s.reason == "" {
					require.Nil(t, d, "step %d: %+v", i, d)
					g.Done(ch, c, s.ok)
					continue
				}
				require.NotNil(t, d, "step %d", i)
				require.Equal(t, s.reason, d.Reason, "step %d: %s", i, d.Message)
				require.NotEmpty(t, d.Message)
			}
		})
	}
}

type panicky struct{}

func (panicky) Name() string                                          { return "panicky" }
func (panicky) Check(govern.Call, *govern.HistoryView) *govern.Denial { panic("x") }
func (panicky) Observe(govern.Call, *govern.HistoryView)              { panic("y") }

func TestPanickingPolicyFailsClosed(t *testing.T) {
	g := govern.New(govern.Options{})
	ch := govern.NewChain(&govern.Profile{Policies: []govern.CallPolicy{panicky{}}})
	d := g.Admit(ch, call("a", toolbox.Info{}, `{}`))
	require.Equal(t, govern.ReasonPolicyFailed, d.Reason)
	ch = govern.NewChain(&govern.Profile{Policies: []govern.CallPolicy{codeless{}}})
	d = g.Admit(ch, call("a", toolbox.Info{}, `{}`))
	require.Equal(t, govern.ReasonPolicyFailed, d.Reason, "a refusal without a code gets policy_failed")
}

type codeless struct{}

func (codeless) Name() string                                          { return "codeless" }
func (codeless) Check(govern.Call, *govern.HistoryView) *govern.Denial { return &govern.Denial{} }
func (codeless) Observe(govern.Call, *govern.HistoryView)              {}

func TestArgConstraintOnEveryToolNamesTheTool(t *testing.T) {
	p, err := govern.ArgConstraint(govern.ArgRule{Tool: "*", Arg: "tag", MaxLen: 2})
	require.NoError(t, err)
	d := govern.New(govern.Options{}).Admit(govern.NewChain(&govern.Profile{Policies: []govern.CallPolicy{p}}), call("release", toolbox.Info{}, `{"tag":"v123"}`))
	require.Equal(t, govern.ReasonArgumentTooLong, d.Reason)
	require.Contains(t, d.Message, `tool "release"`)
}

// TestCallLimitUnderConcurrency: in-flight calls count, so 50 goroutines
// admitted at once cannot pass a limit of 5.
func TestCallLimitUnderConcurrency(t *testing.T) {
	must := mustPolicy(t)
	g := govern.New(govern.Options{})
	ch := govern.NewChain(&govern.Profile{Policies: []govern.CallPolicy{must(govern.CallLimit("*", 5))}})
	var mu sync.Mutex
	admitted := 0
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if g.Admit(ch, call("t", toolbox.Info{}, `{}`)) == nil {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 5, admitted)
	for i := 0; i < 5; i++ {
		g.Done(ch, call("t", toolbox.Info{}, `{}`), false)
	}
	require.Nil(t, g.Admit(ch, call("t", toolbox.Info{}, `{}`)), "failed calls free their slots")
}

func TestHistoryIsBounded(t *testing.T) {
	must := mustPolicy(t)
	g := govern.New(govern.Options{})
	rbw := must(govern.ReadBeforeWrite("r", "w", "p"))
	ch := govern.NewChain(&govern.Profile{Policies: []govern.CallPolicy{rbw}})
	for i := 0; i < govern.MaxFacts+100; i++ {
		c := call("r", toolbox.Info{}, fmt.Sprintf(`{"p":"f%d"}`, i))
		require.Nil(t, g.Admit(ch, c))
		g.Done(ch, c, true)
	}
	// The earliest reads fit; the last ones did not and fail closed.
	require.Nil(t, g.Admit(ch, call("w", toolbox.Info{}, `{"p":"f1"}`)))
	d := g.Admit(ch, call("w", toolbox.Info{}, fmt.Sprintf(`{"p":"f%d"}`, govern.MaxFacts+99)))
	require.Equal(t, govern.ReasonReadBeforeWrite, d.Reason)
}

func TestPolicySpecAndProfileErrors(t *testing.T) {
	for _, tt := range []struct {
		spec govern.PolicySpec
		want string
	}{
		{govern.PolicySpec{Kind: "nope"}, `kind "nope"`},
		{govern.PolicySpec{Kind: "sequential", Tool: "deploy"}, "after"},
		{govern.PolicySpec{Kind: "sequential", Tool: "Bad Name", After: []string{"x"}}, "tool"},
		{govern.PolicySpec{Kind: "read_before_write", Read: "r", Write: "w"}, "arg"},
		{govern.PolicySpec{Kind: "call_limit", Tool: "x"}, "max"},
		{govern.PolicySpec{Kind: "argument", Tool: "x", Arg: "a"}, "set allow"},
		{govern.PolicySpec{Kind: "argument", Tool: "x", Arg: "a", Pattern: "("}, "pattern"},
		{govern.PolicySpec{Kind: "argument", Tool: "x", Arg: "/" + strings.Repeat("a/", 20), MaxLength: 3}, "segments"},
	} {
		_, err := tt.spec.Build()
		require.ErrorIs(t, err, govern.ErrInvalidPolicy, "%+v", tt.spec)
		require.ErrorContains(t, err, tt.want)
	}
	for _, tt := range []struct {
		spec govern.ProfileSpec
		want string
	}{
		{govern.ProfileSpec{Autonomy: "yolo"}, "autonomy"},
		{govern.ProfileSpec{Gates: map[string]map[string]string{"yolo": {"HIGH": "allow"}}}, "gates"},
		{govern.ProfileSpec{Gates: map[string]map[string]string{"supervised": {"MEDIUM": "allow"}}}, "gates.supervised"},
		{govern.ProfileSpec{Gates: map[string]map[string]string{"supervised": {"HIGH": "maybe"}}}, "gates.supervised.HIGH"},
		{govern.ProfileSpec{Scopes: []string{"Repo Read"}}, "scopes[0]"},
		{govern.ProfileSpec{Gates: map[string]map[string]string{"supervised": {"HIGH": "allow", "high": "deny"}}}, "name the same risk"},
		{govern.ProfileSpec{Gates: map[string]map[string]string{"supervised": {"HIGH": "allow"}, "Supervised": {"HIGH": "deny"}}}, "name the same autonomy level"},
		{govern.ProfileSpec{Policies: []govern.PolicySpec{{Kind: "call_limit", Tool: "x", Max: 1}, {Kind: "x"}}}, "policies[1]"},
	} {
		_, err := tt.spec.Build("p")
		require.Error(t, err)
		require.ErrorContains(t, err, tt.want)
	}
	p, err := govern.ProfileSpec{Scopes: []string{"repo:read"}, Autonomy: "restricted",
		Gates:    map[string]map[string]string{"restricted": {"HIGH": "preview"}},
		Policies: []govern.PolicySpec{{Kind: "call_limit", Tool: "*", Max: 3}}}.Build("reviewer")
	require.NoError(t, err)
	require.Equal(t, govern.Restricted, p.Autonomy)
	g, _ := p.Matrix.Gate(govern.Restricted, toolbox.High)
	require.Equal(t, govern.Preview, g)
	g, _ = p.Matrix.Gate(govern.Restricted, toolbox.Critical)
	require.Equal(t, govern.Deny, g, "unnamed cells keep the default")
	require.Len(t, p.Policies, 1)
}

func TestActionOf(t *testing.T) {
	withMap := toolbox.Info{ActionRisk: map[string]toolbox.Risk{}, InputSchema: &jsonschema.Schema{}}
	require.Equal(t, "push", govern.ActionOf(withMap, json.RawMessage(`{"action":"push"}`)))
	require.Equal(t, "", govern.ActionOf(withMap, json.RawMessage(`{"action":1}`)))
	require.Equal(t, "", govern.ActionOf(toolbox.Info{}, json.RawMessage(`{"action":"push"}`)), "no map, no action")
}
