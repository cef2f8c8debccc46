package invoker

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/session"
)

// Artifact quotas. Every result and media file the invoker stores is
// charged, before it is stored, to two budgets:
//
//   - the chain's: Policy.MaxArtifactBytes, counted by the session over its
//     whole life (what it stored, whether or not the blobs are still
//     around);
//   - the tenant's: Options.MaxTenantArtifactBytes, counted by the Invoker
//     over the artifacts this process stored for the tenant that are still
//     alive: pinned by an open session, or unpinned less than the store's
//     TTL ago (an unpinned blob lives that long).
//
// A result that would take either past its limit is not stored; the call
// ends with error / quota_exceeded (the tool ran: its effects stand).
//
// The tenant count is per process: processes sharing one bucket each count
// their own artifacts, so a tenant may hold up to the limit once per
// process. It forgets nothing it stored, but it may count an artifact
// longer than the store keeps it (a blob deleted early), never shorter,
// except for sessions not opened with Invoker.NewSession: their unpins are
// not seen, so their artifacts are counted for one TTL from when they were
// stored.
//
// Bytes the caller stores for a tenant outside the invoker (a parked
// chain's state, package service) count against the same limit through
// ChargeTenantBytes and ReleaseTenantBytes.

// ledger is the tenant side of the artifact quota. It is shared by the
// copies WithPolicy makes.
type ledger struct {
	max int64
	ttl time.Duration
	now func() time.Time

	// reclaim, when set, is asked to release what the caller charged
	// through ChargeTenantBytes and no longer stores, when a tenant's
	// bytes do not fit (SetTenantQuotaReclaimer).
	reclaim atomic.Pointer[Reclaimer]

	mu      sync.Mutex
	tenants map[string]*tenantUsage
	live    map[liveKey]int64 // pinned artifacts of tracked sessions: size
}

type liveKey struct{ tenant, ref string }

// tenantUsage is the bytes counted against one tenant: reserved for Puts
// in progress, live, and released but not yet expired.
type tenantUsage struct {
	total    int64
	expiring []expiry // oldest first
	// held is what ChargeTenantBytes counts, by the caller's key; counted
	// in total until released, or until its until plus the TTL.
	held     map[string]held
	nextDrop time.Time // the earliest end of a held entry
}

// held is n bytes charged by ChargeTenantBytes, counted until drop at the
// latest.
type held struct {
	n    int64
	drop time.Time
}

// expiry is n released bytes that stop counting at at.
type expiry struct {
	at time.Time
	n  int64
}

// coalesce is how close two releases must be to share one expiry entry;
// the later time is kept, so bytes are never counted for less than the TTL.
// It bounds a tenant's entries to TTL/coalesce.
const coalesce = time.Second

func newLedger(max int64, store Store) *ledger {
	ttl := blobstore.DefaultTTL
	if s, ok := store.(interface{ TTL() time.Duration }); ok && s.TTL() > 0 {
		ttl = s.TTL()
	}
	return &ledger{max: max, ttl: ttl, now: time.Now, tenants: map[string]*tenantUsage{}, live: map[liveKey]int64{}}
}

// reserve counts n bytes against tenant if they fit. It returns the bytes
// counted before.
func (l *ledger) reserve(tenant string, n int64) (before int64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.usage(tenant)
	if n > l.max-u.total {
		l.dropIfIdle(tenant, u)
		return u.total, false
	}
	u.total += n
	return u.total - n, true
}

// refund gives back n reserved bytes that were not stored.
func (l *ledger) refund(tenant string, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.usage(tenant)
	u.total = max(0, u.total-n)
	l.dropIfIdle(tenant, u)
}

// stored turns n reserved bytes into the artifact ref: live until released
// when tracked (pinned by a session whose unpins the ledger sees),
// otherwise counted for one TTL from now.
func (l *ledger) stored(tenant, ref string, n int64, tracked bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if tracked {
		l.live[liveKey{tenant, ref}] = n
		return
	}
	l.expireLocked(l.usage(tenant), n)
}

// released moves ref, if live, to the released bytes of its tenant.
func (l *ledger) released(tenant, ref string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := liveKey{tenant, ref}
	n, ok := l.live[k]
	if !ok {
		return
	}
	delete(l.live, k)
	l.expireLocked(l.usage(tenant), n)
}

func (l *ledger) expireLocked(u *tenantUsage, n int64) {
	at := l.now().Add(l.ttl)
	if k := len(u.expiring); k > 0 && at.Sub(u.expiring[k-1].at) < coalesce {
		u.expiring[k-1].at = at
		u.expiring[k-1].n += n
		return
	}
	u.expiring = append(u.expiring, expiry{at, n})
}

// usage returns tenant's counts with expired bytes dropped.
func (l *ledger) usage(tenant string) *tenantUsage {
	u, ok := l.tenants[tenant]
	if !ok {
		u = &tenantUsage{}
		l.tenants[tenant] = u
		return u
	}
	now := l.now()
	i := 0
	for i < len(u.expiring) && !now.Before(u.expiring[i].at) {
		u.total -= u.expiring[i].n
		i++
	}
	if i > 0 {
		u.expiring = append(u.expiring[:0], u.expiring[i:]...)
	}
	if len(u.held) > 0 && !now.Before(u.nextDrop) {
		u.nextDrop = time.Time{}
		for k, h := range u.held {
			if !now.Before(h.drop) {
				u.total -= h.n
				delete(u.held, k)
			} else if u.nextDrop.IsZero() || h.drop.Before(u.nextDrop) {
				u.nextDrop = h.drop
			}
		}
	}
	return u
}

// hold counts n bytes against tenant under key, replacing what key held,
// if the tenant's count then fits; they stop counting at drop. It returns
// the bytes counted before, key's excluded.
func (l *ledger) hold(tenant, key string, n int64, drop time.Time) (before int64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.usage(tenant)
	prev := u.held[key].n
	if n > l.max-(u.total-prev) {
		l.dropIfIdle(tenant, u)
		return u.total - prev, false
	}
	if u.held == nil {
		u.held = map[string]held{}
	}
	u.held[key] = held{n, drop}
	u.total += n - prev
	if u.nextDrop.IsZero() || drop.Before(u.nextDrop) {
		u.nextDrop = drop
	}
	return u.total - n, true
}

// unhold stops counting what key holds for tenant.
func (l *ledger) unhold(tenant, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.usage(tenant)
	if h, ok := u.held[key]; ok {
		u.total = max(0, u.total-h.n)
		delete(u.held, key)
	}
	l.dropIfIdle(tenant, u)
}

func (l *ledger) dropIfIdle(tenant string, u *tenantUsage) {
	if u.total <= 0 && len(u.expiring) == 0 && len(u.held) == 0 {
		delete(l.tenants, tenant)
	}
}

// ledgerPins is the Pinner of the sessions NewSession opens: it tells the
// ledger when an artifact is unpinned.
type ledgerPins struct {
	session.Pinner
	led *ledger
}

func (p *ledgerPins) Unpin(ctx context.Context, tenant, ref, owner string) error {
	if err := p.Pinner.Unpin(ctx, tenant, ref, owner); err != nil {
		return err
	}
	p.led.released(tenant, ref)
	return nil
}

// tracks reports whether the ledger sees sess's unpins.
func (l *ledger) tracks(sess *session.Session) bool {
	p, ok := sess.Pinner().(*ledgerPins)
	return ok && p.led == l
}

// charge counts n bytes about to be stored for sess against the chain's
// and the tenant's quotas, or explains which one it would exceed.
func (inv *Invoker) charge(ctx context.Context, sess *session.Session, n int64) (Result, bool) {
	maxChain := inv.policy.MaxArtifactBytes
	used, ok := sess.ChargeArtifacts(n, maxChain)
	if !ok {
		return fail(session.StatusError, ReasonQuotaExceeded, fmt.Sprintf(
			"the result needs %d bytes of artifact storage and this chain has %d of its %d left; the tool ran and its effects stand",
			n, max(0, maxChain-used), maxChain)), false
	}
	used, ok = inv.ledger.reserve(sess.Tenant(), n)
	if !ok && inv.ledger.reclaimed(ctx, sess.Tenant()) {
		used, ok = inv.ledger.reserve(sess.Tenant(), n)
	}
	if !ok {
		sess.RefundArtifacts(n)
		return fail(session.StatusError, ReasonQuotaExceeded, fmt.Sprintf(
			"the result needs %d bytes of artifact storage and the tenant has %d of its %d left; the tool ran and its effects stand; retry once older artifacts expired",
			n, max(0, inv.ledger.max-used), inv.ledger.max)), false
	}
	return Result{}, true
}

// refund gives back n charged bytes that were not stored.
func (inv *Invoker) refund(sess *session.Session, n int64) {
	if n <= 0 {
		return
	}
	sess.RefundArtifacts(n)
	inv.ledger.refund(sess.Tenant(), n)
}

// ChargeTenantBytes counts n bytes the caller stores for tenant outside
// the invoker (a parked chain's state) against
// Options.MaxTenantArtifactBytes, in this process's count, under key (the
// caller's name for what it stores; one key counts one object: charging a
// key again replaces what it counted). They count until
// ReleaseTenantBytes(tenant, key), or at most until the time until and
// one store TTL after (what is deleted then lives no longer; the caller
// chooses until past the object's life). When they would take the tenant
// past its limit nothing is charged and the error is a
// *TenantQuotaError (ErrTenantQuota); the caller then does not store the
// object. Safe for concurrent use.
func (inv *Invoker) ChargeTenantBytes(ctx context.Context, tenant, key string, n int64, until time.Time) error {
	if n < 0 {
		n = 0
	}
	used, ok := inv.ledger.hold(tenant, key, n, until.Add(inv.ledger.ttl))
	if !ok && inv.ledger.reclaimed(ctx, tenant) {
		used, ok = inv.ledger.hold(tenant, key, n, until.Add(inv.ledger.ttl))
	}
	if !ok {
		return &TenantQuotaError{Needed: n, Left: max(0, inv.ledger.max-used), Limit: inv.ledger.max}
	}
	return nil
}

// Reclaimer releases, with ReleaseTenantBytes, what the caller charged
// for tenant through ChargeTenantBytes and has learnt is no longer stored
// (a parked state another process resumed and deleted), and reports
// whether it released anything. ctx bounds what it reads to learn it.
type Reclaimer func(ctx context.Context, tenant string) bool

// SetTenantQuotaReclaimer makes f the Reclaimer asked, once, before a
// charge to a tenant's artifact quota (an artifact being stored, or
// ChargeTenantBytes) is refused; the charge is tried again when it
// released something. Set it before the first call; nil removes it.
func (inv *Invoker) SetTenantQuotaReclaimer(f Reclaimer) {
	if f == nil {
		inv.ledger.reclaim.Store(nil)
		return
	}
	inv.ledger.reclaim.Store(&f)
}

// reclaimed asks the Reclaimer, if any, to release tenant's stale
// charges, and reports whether it released any.
func (l *ledger) reclaimed(ctx context.Context, tenant string) bool {
	f := l.reclaim.Load()
	return f != nil && (*f)(ctx, tenant)
}

// ReleaseTenantBytes stops counting what ChargeTenantBytes counted under
// key for tenant (the object is deleted). A key not charged is ignored.
func (inv *Invoker) ReleaseTenantBytes(tenant, key string) {
	inv.ledger.unhold(tenant, key)
}
