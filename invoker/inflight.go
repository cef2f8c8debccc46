package invoker

import (
	"fmt"
	"sync"

	"github.com/airlockrt/airlock/session"
)

// Host memory held for calls (docs/limits.md, "Host memory held for
// calls"). While a call is in the invoker, waiting for approval or
// running, the host holds its arguments: the bytes read from the guest
// and, when they differ from those, their canonical form (and the
// arguments without their $idempotency_key member, or with their artifact
// refs described for the approver). Each tenant's calls
// may hold at most Options.MaxTenantInFlightBytes of them at once, so a
// tenant's waiting calls cost the host what the operator allowed, however
// many chains it runs; a call that would exceed it ends at once with
// error / tenant_memory, and retrying once some calls ended may succeed.
//
// A call is charged, when its arguments enter the invoker (step 3a, before
// anything decodes them), CallOverhead, the length of its arguments, and
// what decoding them may take (decodeCost: the schema check, the canonical
// form and call policies decode them, one at a time; the decoded form of
// many tiny values is many times the text); then the length of every
// further copy it keeps, as that copy is made. Everything is released when
// Invoke returns. Artifact content resolved into arguments is counted by
// Options.MaxResolvingBytes instead.

// CallOverhead is what each call is charged against
// Options.MaxTenantInFlightBytes besides its arguments: its share of the
// host's per-call state (session records, contexts, events, the approval
// request and its waiter), in bytes.
const CallOverhead = 4 << 10

// DecodedValueBytes is what decoding arguments is charged per JSON value
// (string, number, literal, object or array, object keys included) on top
// of the arguments' length, against Options.MaxTenantInFlightBytes:
// encoding/json's decoded form of one value holds at most about 41 bytes
// besides its text (measured: 1 MiB of [0,0,…] decodes to 16.7 MiB, of
// {"0":0,"1":0,…} to 6.8 MiB, of [{},{},…] to 21.5 MiB).
const DecodedValueBytes = 48

// decodeCost is what decoding args into Go values may hold at once: their
// text, and DecodedValueBytes per value. It scans args once, allocating
// nothing; invalid JSON costs what its tokens would.
func decodeCost(args []byte) int64 {
	values := 0
	for i := 0; i < len(args); i++ {
		switch c := args[i]; c {
		case '"':
			values++
			for i++; i < len(args) && args[i] != '"'; i++ {
				if args[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			values++
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f', 'n':
			values++
			for i+1 < len(args) && !delimiter(args[i+1]) {
				i++
			}
		}
	}
	return int64(len(args)) + int64(values)*DecodedValueBytes
}

// delimiter reports whether c ends a number or a literal.
func delimiter(c byte) bool {
	switch c {
	case ',', ']', '}', ':', ' ', '\t', '\n', '\r', '"', '[', '{':
		return true
	}
	return false
}

// inFlight counts each tenant's bytes held by calls in progress against a
// limit. It is shared by the copies WithPolicy makes.
type inFlight struct {
	max     int64
	mu      sync.Mutex
	tenants map[string]int64
}

func newInFlight(max int64) *inFlight {
	return &inFlight{max: max, tenants: map[string]int64{}}
}

// take counts n more bytes against tenant if they fit.
func (f *inFlight) take(tenant string, n int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	held := f.tenants[tenant]
	if n > f.max-held {
		return false
	}
	f.tenants[tenant] = held + n
	return true
}

// give returns n bytes of tenant.
func (f *inFlight) give(tenant string, n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if held := f.tenants[tenant] - n; held > 0 {
		f.tenants[tenant] = held
	} else {
		delete(f.tenants, tenant)
	}
}

// held returns the bytes tenant's calls hold now.
func (f *inFlight) held(tenant string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tenants[tenant]
}

// hold charges n more bytes held for the call of st to its tenant, or
// returns the Result that refuses the call.
func (inv *Invoker) hold(sess *session.Session, st *callState, n int) (Result, bool) {
	if inv.inFlight.take(sess.Tenant(), int64(n)) {
		st.held += int64(n)
		return Result{}, true
	}
	return fail(session.StatusError, ReasonTenantMemory,
		fmt.Sprintf("this tenant's calls in progress already hold as much host memory as they may (%d bytes; this call needs %d more): retry when some of them have ended, or pass large data as an artifact ref",
			inv.inFlight.max, n)), false
}

// TenantInFlightBytes returns the bytes the calls of tenant in progress are
// charged against Options.MaxTenantInFlightBytes now.
func (inv *Invoker) TenantInFlightBytes(tenant string) int64 { return inv.inFlight.held(tenant) }
