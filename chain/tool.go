package chain

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// ToolName is the name under which Tool registers.
const ToolName = "tool_chain"

// Tool returns the chain tool: a toolbox.Tool of Kind toolbox.KindChain that
// an agent loop offers the model so it can submit a script, which r runs with
// opts. The result is the RunResult as JSON.
//
// The invoker refuses it from inside a chain (not_callable_from_chain): a
// chain cannot start another chain.
func Tool(r *Runner, opts Options) toolbox.Tool { return chainTool{r: r, opts: opts} }

type chainTool struct {
	r    *Runner
	opts Options
}

type toolArgs struct {
	Script   string `json:"script"`
	Language string `json:"language,omitempty"`
}

var toolSchema = &jsonschema.Schema{
	Type:     "object",
	Required: []string{"script"},
	Properties: map[string]*jsonschema.Schema{
		"script":   {Type: "string", Description: "JavaScript or TypeScript; call tools as `await tools.name(args)` and `return` the answer"},
		"language": {Type: "string", Enum: []any{"javascript", "typescript"}},
	},
	AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
}

func (t chainTool) Info() toolbox.Info {
	return toolbox.Info{
		Name:        ToolName,
		Description: "Run a short script that calls several tools as functions and returns one result.",
		InputSchema: toolSchema,
		Kind:        toolbox.KindChain,
	}
}

func (t chainTool) Call(ctx context.Context, raw json.RawMessage) (toolbox.Output, error) {
	var a toolArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return toolbox.Output{}, fmt.Errorf("chain tool: %w", err)
	}
	lang, file := sandbox.LangJS, "chain.js"
	if a.Language == "typescript" {
		lang, file = sandbox.LangTS, "chain.ts"
	}
	res, err := t.r.Run(ctx, sandbox.Script{Source: a.Script, Lang: lang, Filename: file}, t.opts)
	if err != nil {
		return toolbox.Output{}, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return toolbox.Output{}, err
	}
	return toolbox.Output{JSON: b}, nil
}
