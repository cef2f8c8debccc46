package console

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"

	"github.com/airlockrt/airlock/service"
)

// session is one signed-in browser.
type session struct {
	// key is the API key it signed in with, kept here only, to re-check it
	// on every request (a removed key ends its sessions).
	key     string
	tenant  string
	csrf    string
	created time.Time
	expires time.Time
}

// sessions maps the SHA-256 of a cookie token to its session, bounded in
// all and per tenant.
type sessions struct {
	max, perTenant int
	ttl            time.Duration

	mu       sync.Mutex
	byToken  map[[32]byte]*session
	byTenant map[string]int
}

func newSessions(max, perTenant int, ttl time.Duration) *sessions {
	return &sessions{max: max, perTenant: perTenant, ttl: ttl,
		byToken: map[[32]byte]*session{}, byTenant: map[string]int{}}
}

// token returns a random token of 32 bytes, base64url.
func token() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func tokenHash(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }

// create starts a session for key's caller c: its cookie token and the
// session. False when the console holds its maximum of sessions.
func (s *sessions) create(key string, c service.Caller, now time.Time) (string, *session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	if s.byTenant[c.Tenant] >= s.perTenant {
		// The tenant's oldest session ends.
		var oldest [32]byte
		var at time.Time
		for h, se := range s.byToken {
			if se.tenant == c.Tenant && (at.IsZero() || se.created.Before(at)) {
				oldest, at = h, se.created
			}
		}
		s.dropLocked(oldest)
	}
	if len(s.byToken) >= s.max {
		return "", nil, false
	}
	tok := token()
	se := &session{key: key, tenant: c.Tenant, csrf: token(), created: now, expires: now.Add(s.ttl)}
	s.byToken[tokenHash(tok)] = se
	s.byTenant[c.Tenant]++
	return tok, se, true
}

// get returns the live session of tok.
func (s *sessions) get(tok string, now time.Time) (*session, bool) {
	h := tokenHash(tok)
	s.mu.Lock()
	defer s.mu.Unlock()
	se, ok := s.byToken[h]
	if !ok {
		return nil, false
	}
	if !now.Before(se.expires) {
		s.dropLocked(h)
		return nil, false
	}
	return se, true
}

// drop ends the session of tok.
func (s *sessions) drop(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked(tokenHash(tok))
}

func (s *sessions) dropLocked(h [32]byte) {
	se, ok := s.byToken[h]
	if !ok {
		return
	}
	delete(s.byToken, h)
	if s.byTenant[se.tenant]--; s.byTenant[se.tenant] <= 0 {
		delete(s.byTenant, se.tenant)
	}
}

func (s *sessions) sweepLocked(now time.Time) {
	for h, se := range s.byToken {
		if !now.Before(se.expires) {
			s.dropLocked(h)
		}
	}
}

// len returns the number of sessions held.
func (s *sessions) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byToken)
}

// failures counts failed sign-ins per client address (clientAddr: an
// IPv4 address, or the /64 of an IPv6 one) in fixed windows of a minute,
// for at most maxAddrs addresses. Beyond that, the addresses not yet
// counted share one count (overflow): a flood of new addresses never
// resets the counts of those already held.
type failures struct {
	max      int
	maxAddrs int

	mu     sync.Mutex
	window time.Time
	count  map[string]int
}

// overflow is the count shared by the addresses beyond maxAddrs (no
// clientAddr is empty).
const overflow = ""

func (f *failures) rollLocked(now time.Time) {
	if f.count == nil || now.Sub(f.window) >= time.Minute {
		f.window, f.count = now, map[string]int{}
	}
}

// keyLocked is the count addr is counted under.
func (f *failures) keyLocked(addr string) string {
	if _, ok := f.count[addr]; ok || len(f.count) < f.maxAddrs {
		return addr
	}
	return overflow
}

// blocked reports whether addr used up its failed sign-ins this minute.
func (f *failures) blocked(addr string, now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rollLocked(now)
	return f.count[f.keyLocked(addr)] >= f.max
}

// fail counts a failed sign-in of addr.
func (f *failures) fail(addr string, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rollLocked(now)
	f.count[f.keyLocked(addr)]++
}
