package govern

import "errors"

var (
	// ErrInvalidProfile is returned by Profile.Validate for a profile that
	// cannot be enforced; the error says which field and why.
	ErrInvalidProfile = errors.New("govern: invalid profile")
	// ErrInvalidPolicy is returned when a call policy's declaration is
	// invalid (a bad pattern, an empty tool name).
	ErrInvalidPolicy = errors.New("govern: invalid call policy")
	// ErrInvalidRate is returned by ParseRate for text that is not a rate.
	ErrInvalidRate = errors.New("govern: invalid rate")
	// ErrInvalidHistory is returned by Chain.RestoreHistory and
	// HistoryState.Validate for a state no History could hold; the error
	// says which entry and why.
	ErrInvalidHistory = errors.New("govern: invalid history state")
	// ErrForgedOutcome is wrapped in what is logged of an idempotency
	// record the fleet key does not authenticate
	// (StoreOutcomesOptions.Keys); Begin treats the record as absent.
	ErrForgedOutcome = errors.New("govern: idempotency record not authenticated by the fleet key")
)
