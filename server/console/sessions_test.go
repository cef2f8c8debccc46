package console

import (
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/service"
)

func TestSessionsBounds(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s := newSessions(3, 2, time.Hour)
	acme := service.Caller{Tenant: "acme", Role: service.RoleApprover}
	globex := service.Caller{Tenant: "globex", Role: service.RoleApprover}

	t1, se1, ok := s.create("k1", acme, now)
	require.True(t, ok)
	require.NotEqual(t, t1, se1.csrf, "the CSRF token is not the cookie's")
	require.NotContains(t, t1, "k1")
	t2, _, ok := s.create("k1", acme, now.Add(time.Second))
	require.True(t, ok)
	t3, _, ok := s.create("k1", acme, now.Add(2*time.Second))
	require.True(t, ok, "a tenant at its cap ends its oldest session")
	_, ok = s.get(t1, now)
	require.False(t, ok)
	for _, tok := range []string{t2, t3} {
		_, ok = s.get(tok, now)
		require.True(t, ok)
	}
	_, _, ok = s.create("k2", globex, now)
	require.True(t, ok)
	_, _, ok = s.create("k2", globex, now)
	require.False(t, ok, "the console holds its maximum")
	require.Equal(t, 3, s.len())

	// Past their time they are swept by the next sign-in.
	later := now.Add(2 * time.Hour)
	_, ok = s.get(t2, later)
	require.False(t, ok, "expired")
	_, _, ok = s.create("k2", globex, later)
	require.True(t, ok)
	require.Equal(t, 1, s.len())
	require.Equal(t, map[string]int{"globex": 1}, s.byTenant)

	s.drop(t3)
	s.drop("never-issued")
}

func TestSessionsHammer(t *testing.T) {
	s := newSessions(50, 10, time.Hour)
	now := time.Now()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := service.Caller{Tenant: []string{"a", "b", "c"}[g%3]}
			for range 200 {
				tok, _, ok := s.create("k", c, now)
				if ok {
					s.get(tok, now)
					if g%2 == 0 {
						s.drop(tok)
					}
				}
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, s.len(), 30)
	for _, n := range s.byTenant {
		require.LessOrEqual(t, n, 10)
	}
}

func TestFailures(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	f := &failures{max: 2, maxAddrs: 3}
	require.False(t, f.blocked("1.1.1.1", now))
	f.fail("1.1.1.1", now)
	f.fail("1.1.1.1", now)
	require.True(t, f.blocked("1.1.1.1", now))
	require.False(t, f.blocked("2.2.2.2", now), "per address")
	require.False(t, f.blocked("1.1.1.1", now.Add(time.Minute)), "a new minute")
	for _, a := range []string{"a", "b", "c", "d"} {
		f.fail(a, now.Add(time.Minute))
	}
	require.LessOrEqual(t, len(f.count), 3+1, "bounded: the addresses held and the overflow count")
}

// TestFailuresFloodOfAddresses (T5): failing from more addresses than
// the table holds does not reset the count of an address already blocked
// (it used to start the window over: a bypass of the limit), and the
// addresses beyond the table share one count.
func TestFailuresFloodOfAddresses(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	f := &failures{max: 2, maxAddrs: 3}
	f.fail("1.1.1.1", now)
	f.fail("1.1.1.1", now)
	require.True(t, f.blocked("1.1.1.1", now))
	for i := range 100 {
		f.fail(fmt.Sprintf("10.0.0.%d", i), now)
		require.True(t, f.blocked("1.1.1.1", now), "after %d other addresses", i+1)
	}
	require.True(t, f.blocked("10.0.0.99", now), "the addresses beyond the table share one count")
	require.LessOrEqual(t, len(f.count), 3+1)
	require.False(t, f.blocked("1.1.1.1", now.Add(time.Minute)), "a new minute")
}

// TestClientAddr (T5): failed sign-ins of IPv6 clients are counted per
// /64 (one host holds a whole /64); IPv4, mapped IPv4 per address.
func TestClientAddr(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"[2001:db8:1:2::1]:1000", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:2000"},
		{"[2001:db8:1:2::1%eth0]:1000", "[2001:db8:1:2::2]:1000"},
		{"192.0.2.1:1000", "[::ffff:192.0.2.1]:2000"},
	} {
		ra, rb := httptest.NewRequest("GET", "/", nil), httptest.NewRequest("GET", "/", nil)
		ra.RemoteAddr, rb.RemoteAddr = c.a, c.b
		require.Equal(t, clientAddr(ra), clientAddr(rb), "%s %s", c.a, c.b)
		require.NotEmpty(t, clientAddr(ra))
	}
	for _, c := range []struct{ a, b string }{
		{"[2001:db8:1:2::1]:1000", "[2001:db8:1:3::1]:1000"},
		{"192.0.2.1:1000", "192.0.2.2:1000"},
	} {
		ra, rb := httptest.NewRequest("GET", "/", nil), httptest.NewRequest("GET", "/", nil)
		ra.RemoteAddr, rb.RemoteAddr = c.a, c.b
		require.NotEqual(t, clientAddr(ra), clientAddr(rb), "%s %s", c.a, c.b)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = ""
	require.NotEmpty(t, clientAddr(r), "never the overflow count")
}

func TestSameOrigin(t *testing.T) {
	for _, c := range []struct {
		host   string
		origin []string
		want   bool
	}{
		{"127.0.0.1:8080", []string{"http://127.0.0.1:8080"}, true},
		{"airlock.example", []string{"https://airlock.example"}, true},
		{"airlock.example", []string{"https://AIRLOCK.example"}, true},
		{"127.0.0.1:8080", nil, false},
		{"127.0.0.1:8080", []string{"null"}, false},
		{"127.0.0.1:8080", []string{"http://127.0.0.1:8081"}, false},
		{"127.0.0.1:8080", []string{"http://evil.example"}, false},
		{"127.0.0.1:8080", []string{"http://127.0.0.1:8080", "http://127.0.0.1:8080"}, false},
		{"127.0.0.1:8080", []string{"ftp://127.0.0.1:8080"}, false},
		{"127.0.0.1:8080", []string{"http://u@127.0.0.1:8080"}, false},
	} {
		r := httptest.NewRequest("POST", "http://"+c.host+"/ui/session", nil)
		for _, o := range c.origin {
			r.Header.Add("Origin", o)
		}
		require.Equal(t, c.want, sameOrigin(r), "%s %v", c.host, c.origin)
	}
}
