package invoker

import "time"

// SetLedgerClock replaces the clock the artifact ledger of inv (and of its
// WithPolicy copies) uses for expiries.
func SetLedgerClock(inv *Invoker, now func() time.Time) {
	inv.ledger.mu.Lock()
	defer inv.ledger.mu.Unlock()
	inv.ledger.now = now
}

// DecodeCost is decodeCost.
var DecodeCost = decodeCost
