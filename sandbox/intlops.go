package sandbox

import (
	"context"

	"github.com/airlockrt/airlock/sandbox/internal/intl"
)

// intlHandler answers every run's Intl requests. It holds only CLDR data
// derived from the linked libraries (the same for every run), in a bounded
// cache, so sharing it between engines leaks nothing between chains.
var intlHandler = intl.New()

// intl answers OpIntl: one Intl request from the prelude (50-intl.js). A
// request larger than its limit (intl.RequestLimit: intl.MaxRequestBytes,
// or MaxSortRequestBytes for a sort) is answered with a RangeError without
// copying it.
func (r *scriptRun) intl(ctx context.Context, args []uint64) uint64 {
	ref := r.str(ctx, args, 1)
	limit := intl.MaxRequestBytes
	if ref.Len() > limit {
		first, err := ref.Bytes(1)
		if err != nil {
			r.guestErr(err)
		}
		if len(first) == 1 {
			limit = intl.RequestLimit(first[0])
		}
	}
	if ref.Len() > limit {
		r.copyStr(ctx, ref, 0)
		return r.newString(ctx, []byte(`{"e":"RangeError","m":"Intl request too large"}`))
	}
	req := r.copyStr(ctx, ref, ref.Len())
	return r.newString(ctx, intlHandler.Handle(req))
}
