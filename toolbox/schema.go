package toolbox

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is one tool in the wire shape an LLM function-calling API expects.
// A local tool encodes as an OpenAI-style function tool:
//
//	{"type":"function","function":{"name":…,"description":…,"parameters":{…}}}
//
// A hosted or provider-defined tool encodes as its ProviderSpec, verbatim.
type Schema struct {
	Name        string
	Description string
	Parameters  *jsonschema.Schema
	// Provider is the provider spec of a hosted or provider-defined tool; nil for
	// local tools.
	Provider json.RawMessage
}

type functionWire struct {
	Type     string       `json:"type"`
	Function functionBody `json:"function"`
}

type functionBody struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Parameters  *jsonschema.Schema `json:"parameters"`
}

// MarshalJSON implements json.Marshaler with the shapes documented on Schema.
func (s Schema) MarshalJSON() ([]byte, error) {
	if s.Provider != nil {
		return s.Provider, nil
	}
	return json.Marshal(functionWire{Type: "function", Function: functionBody{
		Name: s.Name, Description: s.Description, Parameters: s.Parameters,
	}})
}

func schemaOf(e *Entry) Schema {
	if e.info.Kind == KindHosted || e.info.Kind == KindProviderDefined {
		spec := e.info.ProviderSpec
		if spec == nil {
			// A descriptor without a spec still needs a wire form.
			spec, _ = json.Marshal(map[string]string{"type": e.info.Kind.String(), "name": e.info.Name})
		}
		return Schema{Name: e.info.Name, Description: e.info.Description, Provider: spec}
	}
	return Schema{Name: e.info.Name, Description: e.info.Description, Parameters: e.info.InputSchema}
}
