package toolbox_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/toolbox"
)

type gitIn struct {
	Action string `json:"action"`
	Branch string `json:"branch,omitempty"`
}

type gitOut struct {
	OK bool `json:"ok"`
}

func git() *toolbox.FuncTool[gitIn, gitOut] {
	return toolbox.Func("git", "runs git", func(context.Context, gitIn) (gitOut, error) { return gitOut{OK: true}, nil })
}

// raw is a hand-written tool with any Info.
type raw struct{ info toolbox.Info }

func (r raw) Info() toolbox.Info { return r.info }
func (r raw) Call(context.Context, json.RawMessage) (toolbox.Output, error) {
	return toolbox.Output{}, nil
}

func TestDefinitionRefusals(t *testing.T) {
	obj := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"n": {Type: "integer"}}}
	tests := []struct {
		name string
		tool toolbox.Tool
		want string
	}{
		{"long guidance", git().WithGuidance(strings.Repeat("g", 2001)), "guidance has 2001 characters"},
		{"too many examples", func() toolbox.Tool {
			g := git()
			for range 9 {
				g = g.WithExample("", gitIn{Action: "status"}, gitOut{})
			}
			return g
		}(), "9 examples"},
		{"example input off schema", raw{toolbox.Info{Name: "r", Description: "d", InputSchema: obj,
			Examples: []toolbox.Example{{Input: json.RawMessage(`{"n":"one"}`)}}}}, `examples[0]: input does not match`},
		{"example input with unknown field", raw{toolbox.Info{Name: "r", Description: "d", InputSchema: obj,
			Examples: []toolbox.Example{{Input: json.RawMessage(`{"n":1}`)}, {Input: json.RawMessage(`{"m":1}`)}}}}, `examples[1]: input does not match`},
		{"example output off schema", raw{toolbox.Info{Name: "r", Description: "d", InputSchema: obj,
			OutputSchema: &jsonschema.Schema{Type: "string"},
			Examples:     []toolbox.Example{{Input: json.RawMessage(`{"n":1}`), Output: json.RawMessage(`5`)}}}}, "output does not match"},
		{"example output not JSON", raw{toolbox.Info{Name: "r", Description: "d", InputSchema: obj,
			Examples: []toolbox.Example{{Input: json.RawMessage(`{"n":1}`), Output: json.RawMessage(`{`)}}}}, "output is not valid JSON"},
		{"example without input", raw{toolbox.Info{Name: "r", Description: "d", Examples: []toolbox.Example{{}}}}, "input is required"},
		{"huge example", raw{toolbox.Info{Name: "r", Description: "d", InputSchema: obj,
			Examples: []toolbox.Example{{Input: json.RawMessage(`{"n":1}`), Output: json.RawMessage(`"` + strings.Repeat("x", 17<<10) + `"`)}}}}, "at most 16384 bytes"},
		{"long example description", git().WithExample(strings.Repeat("d", 201), gitIn{Action: "x"}, gitOut{}), "description has 201 characters"},
		{"bad class", git().WithClass(9), "class 9"},
		{"bad scope", git().WithScopes("Repo Read"), `scopes[0] ("Repo Read")`},
		{"too many scopes", git().WithScopes(strings.Split(strings.Repeat("s,", 33), ",")[:33]...), "33 scopes"},
		{"bad action risk", git().WithActionRisk(map[string]toolbox.Risk{"push": 7}), `action_risk["push"]`},
		{"empty action", git().WithActionRisk(map[string]toolbox.Risk{"": toolbox.High}), `action ""`},
		{"action risk without action argument", raw{toolbox.Info{Name: "r", Description: "d", InputSchema: obj,
			ActionRisk: map[string]toolbox.Risk{"x": toolbox.High}}}, `string property "action"`},
		{"negative output chars", git().WithMaxOutputChars(-1), "max_output_chars -1"},
		{"negative latency budget", git().WithLatencyBudget(-time.Second), "latency budget -1s"},
		{"unencodable example", toolbox.Func("f", "d", func(context.Context, struct{}) (float64, error) { return 0, nil }).
			WithExample("nan", struct{}{}, math.NaN()), "cannot be encoded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (&toolbox.Toolbox{}).Add(tt.tool)
			require.ErrorIs(t, err, toolbox.ErrInvalidDefinition)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestDefinitionBuildersAndTypeScript(t *testing.T) {
	g := git().WithGuidance("Prefer status before push.").
		WithExample("see the state", gitIn{Action: "status"}, gitOut{OK: true}).
		WithExample("a comment closer */ in text", gitIn{Action: "push", Branch: "*/ evil"}, gitOut{OK: true}).
		WithScopes("repo:read", "repo:write").WithClass(toolbox.Network).
		WithActionRisk(map[string]toolbox.Risk{"push": toolbox.High, "status": toolbox.Safe}).
		WithMaxOutputChars(100).WithLatencyBudget(2 * time.Second)
	before := git().WithExample("one", gitIn{Action: "a"}, gitOut{})
	_ = before.WithExample("two", gitIn{Action: "b"}, gitOut{})
	require.Len(t, before.Info().Examples, 1, "a builder copies: the original keeps its examples")
	b, err := toolbox.New(g)
	require.NoError(t, err)
	info := g.Info()
	require.Equal(t, toolbox.Network, info.EffectiveClass())
	require.Equal(t, toolbox.High, info.RiskOf("push"))
	require.Equal(t, toolbox.Safe, info.RiskOf("other"))
	require.Equal(t, 100, info.MaxOutputChars)
	require.Equal(t, 2*time.Second, info.LatencyBudget)
	require.JSONEq(t, `{"action":"status"}`, string(info.Examples[0].Input))

	ts := b.TypeScript()
	require.Contains(t, ts, " * Prefer status before push.\n")
	require.Contains(t, ts, " * Requires scopes: repo:read, repo:write.\n")
	require.Contains(t, ts, " * Risk by action: push HIGH, status SAFE.\n")
	require.Contains(t, ts, ` * @example see the state: await tools.git({"action":"status"}) // => {"ok":true}`+"\n")
	require.Contains(t, ts, `a comment closer *\/ in text: await tools.git({"action":"push","branch":"*\/ evil"})`)
	require.Equal(t, 1, strings.Count(ts[strings.Index(ts, "declare const tools"):], "*/\n"), "the only comment end is the real one:\n%s", ts)
}

func TestExampleNamesAToolAsAScriptWould(t *testing.T) {
	b, err := toolbox.New(toolbox.Func("git-log", "shows the log", func(context.Context, gitIn) (gitOut, error) { return gitOut{}, nil }).
		WithExample("", gitIn{Action: "log"}, gitOut{}))
	require.NoError(t, err)
	require.Contains(t, b.TypeScript(), `@example await tools["git-log"]({"action":"log"})`)
}

func TestClassDefaults(t *testing.T) {
	for _, tt := range []struct {
		info toolbox.Info
		want toolbox.Class
	}{
		{toolbox.Info{}, toolbox.ReadOnly},
		{toolbox.Info{Risk: toolbox.High}, toolbox.LocalWrite},
		{toolbox.Info{Risk: toolbox.Critical}, toolbox.Destructive},
		{toolbox.Info{Risk: toolbox.Critical, Class: toolbox.Delegated}, toolbox.Delegated},
	} {
		require.Equal(t, tt.want, tt.info.EffectiveClass())
	}
	require.False(t, toolbox.ReadOnly.Write())
	require.True(t, toolbox.Network.Write())
	for _, c := range []toolbox.Class{toolbox.ReadOnly, toolbox.LocalWrite, toolbox.Network, toolbox.Delegated, toolbox.Destructive} {
		got, err := toolbox.ParseClass(c.String())
		require.NoError(t, err)
		require.Equal(t, c, got)
	}
	_, err := toolbox.ParseClass("reckless")
	require.Error(t, err)
}
