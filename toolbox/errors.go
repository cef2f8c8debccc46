package toolbox

import "errors"

var (
	// ErrInvalidName is returned by Toolbox.Add when a tool's name does not match
	// ^[a-z0-9_-]{1,64}$.
	ErrInvalidName = errors.New("toolbox: invalid tool name")

	// ErrInvalidDescription is returned by Toolbox.Add when a tool's description
	// is empty or longer than 200 characters.
	ErrInvalidDescription = errors.New("toolbox: invalid tool description")

	// ErrInvalidSchema is returned by Toolbox.Add when a tool's input or output
	// schema cannot be derived or compiled, or CheckSchema refuses it; and by
	// CheckSchema and ParseSchema.
	ErrInvalidSchema = errors.New("toolbox: invalid schema")
	// ErrInvalidOutput is wrapped by Entry.ValidateOutput for a result
	// that is not JSON or breaks the tool's output schema.
	ErrInvalidOutput = errors.New("toolbox: the result does not match the tool's output schema")

	// ErrInvalidArguments is matched (errors.Is) by the *ArgumentError
	// Entry.Validate returns when arguments are not a JSON object matching
	// the tool's input schema, or when checking them would cost more than
	// MaxValidationWork; and wrapped by FuncTool.Call when arguments do not
	// decode into its input type.
	ErrInvalidArguments = errors.New("toolbox: invalid arguments")

	// ErrNotExecutable is returned by Call on hosted and provider-defined tool
	// descriptors: airlock lists them but never runs them.
	ErrNotExecutable = errors.New("toolbox: tool is not executed by airlock")

	// ErrNilTool is returned by Toolbox.Add for a nil Tool.
	ErrNilTool = errors.New("toolbox: nil tool")

	// ErrDuplicateTool is returned by Toolbox.Add for a name already
	// registered; Toolbox.Replace is the way to change a registered tool.
	ErrDuplicateTool = errors.New("toolbox: duplicate tool name")

	// ErrNoSuchTool is returned by Toolbox.Replace for a name that is not
	// registered.
	ErrNoSuchTool = errors.New("toolbox: no such tool")

	// ErrInvalidDefinition is returned by Toolbox.Add when a tool's
	// guidance, examples, scopes, class, per-action risks or limits are
	// invalid; the error says which and why.
	ErrInvalidDefinition = errors.New("toolbox: invalid tool definition")
)
