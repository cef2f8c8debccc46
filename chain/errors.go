package chain

import "errors"

var (
	// ErrNilInvoker is returned by New without an invoker.
	ErrNilInvoker = errors.New("chain: nil invoker")
	// ErrNoEngine is returned by New when Engines has neither engine, and by
	// Run or RunModule when the engine they need is missing.
	ErrNoEngine = errors.New("chain: no sandbox engine for this kind of chain")
	// ErrNilModule is returned by RunModule for a nil module.
	ErrNilModule = errors.New("chain: nil module")
	// ErrToolNameTaken is returned by Run for an Options.ChainTools tool
	// whose name a tool of the invoker's toolbox has.
	ErrToolNameTaken = errors.New("chain: a chain tool has the name of a registered tool")
)
