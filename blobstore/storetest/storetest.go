package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
)

// Opener opens a new driver instance over one test's storage. Each call
// must return an independent instance, as a second process would have; the
// suite closes every instance it opens.
type Opener func() blobstore.Driver

// NewBackend makes fresh, empty storage for one test (a temporary
// directory, a new bucket) and returns an Opener over it. It should release
// the storage with t.Cleanup and fail t if it cannot make it.
type NewBackend func(t *testing.T) Opener

const (
	tenantA = "tenant-a"
	tenantB = "tenant_b"
)

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeClock is a settable clock for Options.Clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is one subtest's storage, with helpers to open Stores over it.
type env struct {
	t    *testing.T
	open Opener
	ctx  context.Context
}

func newEnv(t *testing.T, nb NewBackend) *env {
	return &env{t: t, open: nb(t), ctx: t.Context()}
}

// store opens a Store over a new driver instance and closes it at cleanup.
func (e *env) store(opts blobstore.Options) *blobstore.Store {
	s := blobstore.New(e.open(), opts)
	e.t.Cleanup(func() { _ = s.Close() })
	return s
}

// keys lists every key in the storage, through a fresh driver instance.
func (e *env) keys() []string {
	d := e.open()
	defer d.Close()
	var keys []string
	require.NoError(e.t, d.List(e.ctx, "", func(en blobstore.Entry) error {
		keys = append(keys, en.Key)
		return nil
	}))
	return keys
}

// Run runs the conformance suite as subtests of t. newBackend is called
// once per subtest.
func Run(t *testing.T, newBackend NewBackend) {
	nb := newBackend
	tests := []struct {
		name string
		run  func(t *testing.T, nb NewBackend)
	}{
		{"Driver", testDriver},
		{"RoundTrip", testRoundTrip},
		{"ContentType", testContentType},
		{"Range", testRange},
		{"BadRefs", testBadRefs},
		{"BadTenants", testBadTenants},
		{"FailedPut", testFailedPut},
		{"TooLarge", testTooLarge},
		{"PinUnpin", testPinUnpin},
		{"Sweep", testSweep},
		{"ExpiredIsGone", testExpiredIsGone},
		{"CrossInstancePins", testCrossInstancePins},
		{"ConcurrentPinUnpinSweep", testConcurrentPinSweep},
		{"SameContentTwoInstances", testSameContent},
		{"Delete", testDelete},
		{"UnpinOwner", testUnpinOwner},
		{"Close", testClose},
		{"Records", testRecords},
		{"ListRecords", testListRecords},
		{"RecordRace", testRecordRace},
		{"Once", testOnce},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, nb) })
	}
}

func randomBytes(seed uint64, n int) []byte {
	b, err := io.ReadAll(NewDataReader(seed, int64(n)))
	if err != nil {
		panic(err)
	}
	return b
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readAll(t *testing.T, rc io.ReadCloser) []byte {
	t.Helper()
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// testDriver checks the Driver contract directly.
func testDriver(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	d := e.open()
	defer d.Close()
	ctx := e.ctx
	put := func(key, val string, opts blobstore.PutOptions) error {
		return d.Put(ctx, key, strings.NewReader(val), opts)
	}
	get := func(key string, off, n int64) (string, error) {
		rc, err := d.Get(ctx, key, off, n)
		if err != nil {
			return "", err
		}
		return string(readAll(t, rc)), nil
	}

	require.NoError(t, put("x/a/1", "hello world", blobstore.PutOptions{ContentType: "text/plain"}))
	got, err := get("x/a/1", 0, -1)
	require.NoError(t, err)
	require.Equal(t, "hello world", got)

	ranges := []struct {
		off, n int64
		want   string
	}{
		{0, 5, "hello"}, {6, -1, "world"}, {6, 100, "world"}, {11, -1, ""}, {3, 0, ""},
	}
	for _, r := range ranges {
		got, err := get("x/a/1", r.off, r.n)
		require.NoError(t, err)
		require.Equal(t, r.want, got, "range %d+%d", r.off, r.n)
	}

	en, err := d.Stat(ctx, "x/a/1")
	require.NoError(t, err)
	require.Equal(t, "x/a/1", en.Key)
	require.EqualValues(t, 11, en.Size)
	require.WithinDuration(t, time.Now(), en.ModTime, time.Hour)

	_, err = d.Stat(ctx, "x/a/missing")
	require.ErrorIs(t, err, blobstore.ErrNotFound)
	_, err = d.Get(ctx, "x/a/missing", 0, -1)
	require.ErrorIs(t, err, blobstore.ErrNotFound)
	require.NoError(t, d.Delete(ctx, "x/a/missing"))

	// CreateOnly never replaces; a plain Put does.
	require.ErrorIs(t, put("x/a/1", "other", blobstore.PutOptions{CreateOnly: true}), blobstore.ErrExist)
	got, err = get("x/a/1", 0, -1)
	require.NoError(t, err)
	require.Equal(t, "hello world", got)
	require.NoError(t, put("x/a/1", "replaced", blobstore.PutOptions{}))
	got, err = get("x/a/1", 0, -1)
	require.NoError(t, err)
	require.Equal(t, "replaced", got)
	require.NoError(t, put("x/a/empty", "", blobstore.PutOptions{CreateOnly: true}))
	got, err = get("x/a/empty", 0, -1)
	require.NoError(t, err)
	require.Empty(t, got)

	// Keys sharing a '/'-terminated prefix are listed together.
	for _, k := range []string{"x/a-b/1", "x/ab/1", "x/a/2", "x/a/sub/3", "y/1"} {
		require.NoError(t, put(k, k, blobstore.PutOptions{}))
	}
	list := func(prefix string) []string {
		var keys []string
		require.NoError(t, d.List(ctx, prefix, func(en blobstore.Entry) error {
			keys = append(keys, en.Key)
			return nil
		}))
		return keys
	}
	require.ElementsMatch(t, []string{"x/a/1", "x/a/2", "x/a/empty", "x/a/sub/3"}, list("x/a/"))
	require.ElementsMatch(t, []string{"x/a/1", "x/a/2", "x/a/empty", "x/a/sub/3", "x/a-b/1", "x/ab/1"}, list("x/a"))
	require.Empty(t, list("nothing/"))
	all := list("")
	require.Len(t, all, 7)
	requireAdjacent(t, all)
	stop := errors.New("stop")
	calls := 0
	require.ErrorIs(t, d.List(ctx, "x/", func(blobstore.Entry) error { calls++; return stop }), stop)
	require.Equal(t, 1, calls)

	// Deleting while listing is allowed.
	require.NoError(t, d.List(ctx, "x/", func(en blobstore.Entry) error { return d.Delete(ctx, en.Key) }))
	require.Equal(t, []string{"y/1"}, list(""))

	for _, key := range []string{"", "/x", "x/", "x//y", "../x", "x/../y", "x/./y", ".", "..", "X", "x y", "x\\y", "x\x00y", "ä", "x?y", strings.Repeat("a", blobstore.MaxKeyLen+1)} {
		require.ErrorIs(t, put(key, "v", blobstore.PutOptions{}), blobstore.ErrInvalidKey, "key %q", key)
		_, err := d.Get(ctx, key, 0, -1)
		require.ErrorIs(t, err, blobstore.ErrInvalidKey, "key %q", key)
		_, err = d.Stat(ctx, key)
		require.ErrorIs(t, err, blobstore.ErrInvalidKey, "key %q", key)
		require.ErrorIs(t, d.Delete(ctx, key), blobstore.ErrInvalidKey, "key %q", key)
	}
	require.Equal(t, []string{"y/1"}, list(""))

	// A failed Put leaves nothing behind.
	boom := errors.New("boom")
	err = d.Put(ctx, "z/1", io.MultiReader(NewDataReader(1, 3<<20), errReader{boom}), blobstore.PutOptions{})
	require.ErrorIs(t, err, boom)
	cctx, cancel := context.WithCancel(ctx)
	err = d.Put(cctx, "z/2", &cancelReader{r: NewDataReader(2, 20<<20), after: 2 << 20, cancel: cancel}, blobstore.PutOptions{})
	require.Error(t, err)
	require.Equal(t, []string{"y/1"}, list(""))

	require.NoError(t, d.Close())
	require.ErrorIs(t, put("y/2", "v", blobstore.PutOptions{}), blobstore.ErrClosed)
	_, err = d.Get(ctx, "y/1", 0, -1)
	require.ErrorIs(t, err, blobstore.ErrClosed)
}

// requireAdjacent checks that, for every prefix ending in '/', the keys
// sharing it form one run in keys.
func requireAdjacent(t *testing.T, keys []string) {
	t.Helper()
	first := map[string]int{}
	count := map[string]int{}
	for i, k := range keys {
		for j := 0; j < len(k); j++ {
			if k[j] != '/' {
				continue
			}
			p := k[:j+1]
			if _, ok := first[p]; !ok {
				first[p] = i
			}
			count[p]++
			require.Equal(t, i-first[p]+1, count[p], "keys under %q are not adjacent in %q", p, keys)
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// cancelReader cancels a context once after bytes have been read.
type cancelReader struct {
	r      io.Reader
	after  int64
	n      int64
	cancel func()
}

func (c *cancelReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n >= c.after && c.cancel != nil {
		c.cancel()
		c.cancel = nil
	}
	return n, err
}

func testRoundTrip(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	clk := newClock(t0)
	s := e.store(blobstore.Options{Clock: clk.Now})
	other := e.store(blobstore.Options{Clock: clk.Now})
	tests := []struct {
		name     string
		data     []byte
		ct       string
		wantType string
	}{
		{"empty", nil, "", blobstore.DefaultContentType},
		{"one byte", []byte{'x'}, "text/plain", "text/plain"},
		{"multi MiB", randomBytes(7, 5<<20+3), "application/octet-stream", "application/octet-stream"},
		{"non-UTF-8", []byte{0xff, 0xfe, 0x00, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0x00}, "application/x-binary", "application/x-binary"},
		{"type with params", []byte(`{"a":1}`), "Application/JSON; charset=UTF-8", "application/json; charset=UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk.Advance(time.Second)
			a, err := s.Put(e.ctx, tenantA, bytes.NewReader(tc.data), tc.ct)
			require.NoError(t, err)
			require.Len(t, a.Ref, blobstore.RefLen)
			require.True(t, blobstore.ValidRef(tenantA, a.Ref))
			require.Equal(t, tenantA, a.Tenant)
			require.Equal(t, tc.wantType, a.ContentType)
			require.EqualValues(t, len(tc.data), a.Size)
			require.Equal(t, sha(tc.data), a.SHA256)
			require.True(t, clk.Now().Equal(a.Created), "created %v, clock %v", a.Created, clk.Now())

			for _, st := range []*blobstore.Store{s, other} {
				got, err := st.Stat(e.ctx, tenantA, a.Ref)
				require.NoError(t, err)
				require.Equal(t, a.Ref, got.Ref)
				require.Equal(t, a.Size, got.Size)
				require.Equal(t, a.SHA256, got.SHA256)
				require.Equal(t, a.ContentType, got.ContentType)
				require.True(t, a.Created.Equal(got.Created))

				rc, oa, err := st.Open(e.ctx, tenantA, a.Ref)
				require.NoError(t, err)
				require.Equal(t, a.SHA256, oa.SHA256)
				b := readAll(t, rc)
				require.Equal(t, len(tc.data), len(b))
				require.True(t, bytes.Equal(tc.data, b), "content differs")
			}
		})
	}
}

func testContentType(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := e.store(blobstore.Options{})
	for _, ct := range []string{"not a type", "text/plain\r\nX-Injected: 1", "text/", "/plain", "text/plain; charset", strings.Repeat("a", 250) + "/plain"} {
		_, err := s.Put(e.ctx, tenantA, strings.NewReader("x"), ct)
		require.ErrorIs(t, err, blobstore.ErrInvalidContentType, "content type %q", ct)
	}
	require.Empty(t, e.keys())
}

func testRange(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := e.store(blobstore.Options{})
	data := randomBytes(3, 1<<20+17)
	a, err := s.Put(e.ctx, tenantA, bytes.NewReader(data), "")
	require.NoError(t, err)
	size := int64(len(data))
	tests := []struct {
		name        string
		off, length int64
		want        []byte
		wantErr     error
	}{
		{"whole", 0, -1, data, nil},
		{"prefix", 0, 10, data[:10], nil},
		{"middle", 1000, 70000, data[1000:71000], nil},
		{"tail", size - 5, -1, data[size-5:], nil},
		{"past end clamps", size - 5, 100, data[size-5:], nil},
		{"zero length", 5, 0, nil, nil},
		{"at end", size, -1, nil, nil},
		{"negative offset", -1, 10, nil, blobstore.ErrInvalidRange},
		{"offset past end", size + 1, 1, nil, blobstore.ErrInvalidRange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := s.OpenRange(e.ctx, tenantA, a.Ref, tc.off, tc.length)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			got := readAll(t, rc)
			require.Equal(t, len(tc.want), len(got))
			require.True(t, bytes.Equal(tc.want, got))
		})
	}
}

// refCalls runs every ref-taking Store method and returns their errors.
func refCalls(ctx context.Context, s *blobstore.Store, tenant, ref string) map[string]error {
	_, _, openErr := s.Open(ctx, tenant, ref)
	_, rangeErr := s.OpenRange(ctx, tenant, ref, 0, 1)
	_, statErr := s.Stat(ctx, tenant, ref)
	return map[string]error{
		"Open":      openErr,
		"OpenRange": rangeErr,
		"Stat":      statErr,
		"Pin":       s.Pin(ctx, tenant, ref, "owner"),
		"Unpin":     s.Unpin(ctx, tenant, ref, "owner"),
		"Delete":    s.Delete(ctx, tenant, ref),
	}
}

func testBadRefs(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := e.store(blobstore.Options{})
	a, err := s.Put(e.ctx, tenantA, strings.NewReader("tenant a's secret"), "")
	require.NoError(t, err)
	b, err := s.Put(e.ctx, tenantB, strings.NewReader("tenant b's secret"), "")
	require.NoError(t, err)
	gone, err := s.Put(e.ctx, tenantA, strings.NewReader("deleted"), "")
	require.NoError(t, err)
	require.NoError(t, s.Delete(e.ctx, tenantA, gone.Ref))
	keysBefore := e.keys()

	flip := func(ref string, i int) string {
		c := byte('a')
		if ref[i] == 'a' {
			c = 'b'
		}
		return ref[:i] + string(c) + ref[i+1:]
	}
	refs := map[string]string{
		"empty":              "",
		"short":              "blob_",
		"truncated":          a.Ref[:len(a.Ref)-1],
		"overlong":           a.Ref + "a",
		"doubled":            a.Ref + a.Ref,
		"forged check":       flip(a.Ref, len(a.Ref)-1),
		"forged random":      flip(a.Ref, 8),
		"deleted":            gone.Ref,
		"other tenant's":     b.Ref,
		"upper case":         strings.ToUpper(a.Ref),
		"wrong prefix":       "blob-" + a.Ref[5:],
		"no prefix":          a.Ref[5:] + "abcde",
		"dot dot":            "blob_../../../../../../../etc/pass",
		"dot dot slash":      "../" + a.Ref[3:],
		"slash inside":       a.Ref[:20] + "/" + a.Ref[21:],
		"percent":            a.Ref[:20] + "%2e" + a.Ref[23:],
		"nul":                a.Ref[:20] + "\x00" + a.Ref[21:],
		"newline":            a.Ref[:36] + "\n",
		"space":              " " + a.Ref[1:],
		"unicode":            a.Ref[:35] + "é",
		"base32 digits 0189": a.Ref[:33] + "0189",
		"padding":            a.Ref[:36] + "=",
		"key injection":      "blob_aaaa/meta/../../tenant_b/aaaa",
	}
	for name, ref := range refs {
		t.Run(name, func(t *testing.T) {
			for op, err := range refCalls(e.ctx, s, tenantA, ref) {
				require.Equal(t, blobstore.ErrNotFound, err, "%s(%q)", op, ref)
			}
		})
	}
	// Nothing was created, moved or removed by the attempts.
	require.Equal(t, keysBefore, e.keys())
	for _, at := range []blobstore.Attrs{a, b} {
		_, err := s.Stat(e.ctx, at.Tenant, at.Ref)
		require.NoError(t, err)
	}
}

func testBadTenants(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := e.store(blobstore.Options{})
	a, err := s.Put(e.ctx, tenantA, strings.NewReader("x"), "")
	require.NoError(t, err)
	for _, tenant := range []string{"", "A", "-a", "_a", "a/b", "../a", "a..", "a b", "ä", "a\x00", strings.Repeat("a", blobstore.MaxTenantLen+1)} {
		_, err := s.Put(e.ctx, tenant, strings.NewReader("x"), "")
		require.ErrorIs(t, err, blobstore.ErrInvalidTenant, "tenant %q", tenant)
		for op, err := range refCalls(e.ctx, s, tenant, a.Ref) {
			require.ErrorIs(t, err, blobstore.ErrInvalidTenant, "%s with tenant %q", op, tenant)
		}
	}
	require.True(t, blobstore.ValidTenant(strings.Repeat("a", blobstore.MaxTenantLen)))
}

func testFailedPut(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := e.store(blobstore.Options{})
	boom := errors.New("disk on fire")
	tests := []struct {
		name string
		r    func(cancel func()) io.Reader
	}{
		{"error at start", func(func()) io.Reader { return errReader{boom} }},
		{"error halfway", func(func()) io.Reader {
			return io.MultiReader(NewDataReader(1, 3<<20), errReader{boom})
		}},
		{"error after a large part", func(func()) io.Reader {
			return io.MultiReader(NewDataReader(2, 20<<20+5), errReader{boom})
		}},
		{"context cancelled halfway", func(cancel func()) io.Reader {
			return &cancelReader{r: NewDataReader(3, 24<<20), after: 2 << 20, cancel: cancel}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(e.ctx)
			defer cancel()
			_, err := s.Put(ctx, tenantA, tc.r(cancel), "")
			require.Error(t, err)
			if ctx.Err() == nil {
				require.ErrorIs(t, err, boom)
			}
			require.Empty(t, e.keys(), "a failed Put left objects behind")
		})
	}
	a, err := s.Put(e.ctx, tenantA, strings.NewReader("after failures"), "")
	require.NoError(t, err)
	_, err = s.Stat(e.ctx, tenantA, a.Ref)
	require.NoError(t, err)
}

func testTooLarge(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	const max = 1 << 20
	s := e.store(blobstore.Options{MaxBlobBytes: max})
	a, err := s.Put(e.ctx, tenantA, NewDataReader(1, max), "")
	require.NoError(t, err)
	require.EqualValues(t, max, a.Size)
	keys := e.keys()
	for _, size := range []int64{max + 1, 3 * max} {
		_, err := s.Put(e.ctx, tenantA, NewDataReader(2, size), "")
		require.ErrorIs(t, err, blobstore.ErrTooLarge, "size %d", size)
	}
	require.Equal(t, keys, e.keys())
}

func testPinUnpin(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	clk := newClock(t0)
	ttl := time.Hour
	s := e.store(blobstore.Options{Clock: clk.Now, TTL: ttl})
	ctx := e.ctx
	a, err := s.Put(ctx, tenantA, strings.NewReader("pinned"), "")
	require.NoError(t, err)

	for _, owner := range []string{"", strings.Repeat("o", blobstore.MaxOwnerLen+1)} {
		require.ErrorIs(t, s.Pin(ctx, tenantA, a.Ref, owner), blobstore.ErrInvalidOwner)
		require.ErrorIs(t, s.Unpin(ctx, tenantA, a.Ref, owner), blobstore.ErrInvalidOwner)
	}
	// Odd owners are fine: they never become part of a key as they are.
	for _, owner := range []string{"../../x", "a/b", "\x00", "é", strings.Repeat("o", blobstore.MaxOwnerLen)} {
		require.NoError(t, s.Pin(ctx, tenantA, a.Ref, owner))
		require.NoError(t, s.Unpin(ctx, tenantA, a.Ref, owner))
	}

	// Idempotent per owner: two pins by one owner need one unpin.
	require.NoError(t, s.Pin(ctx, tenantA, a.Ref, "session-1"))
	require.NoError(t, s.Pin(ctx, tenantA, a.Ref, "session-1"))
	require.NoError(t, s.Pin(ctx, tenantA, a.Ref, "session-2"))
	require.NoError(t, s.Unpin(ctx, tenantA, a.Ref, "never-pinned"))

	clk.Advance(10 * ttl)
	stats, err := s.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 0, stats.Removed)
	require.Equal(t, 1, stats.Pinned)

	require.NoError(t, s.Unpin(ctx, tenantA, a.Ref, "session-1"))
	require.NoError(t, s.Unpin(ctx, tenantA, a.Ref, "session-1"))
	clk.Advance(10 * ttl)
	_, err = s.Stat(ctx, tenantA, a.Ref)
	require.NoError(t, err, "still pinned by session-2")

	// The last unpin restarts the TTL clock.
	require.NoError(t, s.Unpin(ctx, tenantA, a.Ref, "session-2"))
	clk.Advance(ttl - time.Second)
	stats, err = s.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 0, stats.Removed)
	_, err = s.Stat(ctx, tenantA, a.Ref)
	require.NoError(t, err)

	// Pinning again within the TTL keeps it; unpinning restarts the clock.
	require.NoError(t, s.Pin(ctx, tenantA, a.Ref, "session-3"))
	clk.Advance(2 * ttl)
	require.NoError(t, s.Unpin(ctx, tenantA, a.Ref, "session-3"))
	clk.Advance(ttl / 2)
	_, err = s.Stat(ctx, tenantA, a.Ref)
	require.NoError(t, err)

	clk.Advance(ttl)
	require.Equal(t, blobstore.ErrNotFound, s.Pin(ctx, tenantA, a.Ref, "late"))
	require.Equal(t, blobstore.ErrNotFound, s.Unpin(ctx, tenantA, a.Ref, "late"))
	stats, err = s.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Removed)
	require.Empty(t, e.keys())
}

func testSweep(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	clk := newClock(t0)
	s := e.store(blobstore.Options{Clock: clk.Now})
	ctx := e.ctx
	put := func(data string) blobstore.Attrs {
		a, err := s.Put(ctx, tenantA, strings.NewReader(data), "")
		require.NoError(t, err)
		return a
	}
	stats, err := s.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, blobstore.SweepStats{}, stats)

	unpinned := put("unpinned")
	pinned := put("pinned")
	require.NoError(t, s.Pin(ctx, tenantA, pinned.Ref, "s1"))
	released := put("released later")
	require.NoError(t, s.Pin(ctx, tenantA, released.Ref, "s1"))

	clk.Advance(20 * time.Hour)
	require.NoError(t, s.Unpin(ctx, tenantA, released.Ref, "s1"))
	young := put("young")

	clk.Advance(4*time.Hour + time.Second) // unpinned is 24h+1s old
	stats, err = s.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, blobstore.SweepStats{Scanned: 4, Removed: 1, RemovedBytes: int64(len("unpinned")), Pinned: 1}, stats)
	_, err = s.Stat(ctx, tenantA, unpinned.Ref)
	require.Equal(t, blobstore.ErrNotFound, err)
	for _, a := range []blobstore.Attrs{pinned, released, young} {
		_, err := s.Stat(ctx, tenantA, a.Ref)
		require.NoError(t, err)
	}

	clk.Advance(20 * time.Hour) // released: 24h+1s after its unpin; young: 24h+1s old
	stats, err = s.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, stats.Removed)
	require.Equal(t, 1, stats.Pinned)

	clk.Advance(1000 * time.Hour)
	stats, err = s.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, blobstore.SweepStats{Scanned: 1, Pinned: 1}, stats)
	rc, _, err := s.Open(ctx, tenantA, pinned.Ref)
	require.NoError(t, err)
	require.Equal(t, "pinned", string(readAll(t, rc)))
}

func testExpiredIsGone(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	clk := newClock(t0)
	s := e.store(blobstore.Options{Clock: clk.Now, TTL: time.Minute})
	a, err := s.Put(e.ctx, tenantA, strings.NewReader("short-lived"), "")
	require.NoError(t, err)
	clk.Advance(time.Minute - time.Nanosecond)
	_, err = s.Stat(e.ctx, tenantA, a.Ref)
	require.NoError(t, err)
	clk.Advance(time.Nanosecond)
	// Expired but not yet swept: gone for every method.
	for op, err := range refCalls(e.ctx, s, tenantA, a.Ref) {
		require.Equal(t, blobstore.ErrNotFound, err, op)
	}
}

func testCrossInstancePins(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	clk := newClock(t0)
	a := e.store(blobstore.Options{Clock: clk.Now})
	b := e.store(blobstore.Options{Clock: clk.Now})
	ctx := e.ctx
	at, err := a.Put(ctx, tenantA, strings.NewReader("shared"), "")
	require.NoError(t, err)
	require.NoError(t, a.Pin(ctx, tenantA, at.Ref, "chain-1"))
	clk.Advance(48 * time.Hour)
	stats, err := b.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Pinned)
	require.Equal(t, 0, stats.Removed)

	// An unpin through b is seen by a.
	require.NoError(t, b.Unpin(ctx, tenantA, at.Ref, "chain-1"))
	_, err = a.Stat(ctx, tenantA, at.Ref)
	require.NoError(t, err)
	clk.Advance(24 * time.Hour)
	stats, err = a.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Removed)
	_, err = b.Stat(ctx, tenantA, at.Ref)
	require.Equal(t, blobstore.ErrNotFound, err)
}

// testConcurrentPinSweep races Pin, Unpin and Sweep on one blob from two
// Stores whose clocks disagree: to the pinning store the blob is fresh, to
// the sweeping store it expired long ago. Whenever Pin succeeds, the blob
// must stay readable until it is unpinned. The pin starts at a different
// point of the sweep in every round, so both sides win some rounds.
func testConcurrentPinSweep(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	pinner := e.store(blobstore.Options{Clock: func() time.Time { return t0 }})
	sweeper := e.store(blobstore.Options{Clock: func() time.Time { return t0.Add(1000 * time.Hour) }})
	ctx := e.ctx
	rounds := 60
	if testing.Short() {
		rounds = 12
	}

	// How long removing one blob takes on this backend: the window the
	// pins are spread over.
	probe, err := pinner.Put(ctx, tenantA, strings.NewReader("probe"), "")
	require.NoError(t, err)
	began := time.Now()
	stats, err := sweeper.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Removed)
	window := time.Since(began)
	_, err = pinner.Stat(ctx, tenantA, probe.Ref)
	require.Equal(t, blobstore.ErrNotFound, err)

	var pinWon, sweepWon int
	for i := range rounds {
		data := fmt.Sprintf("round %d", i)
		a, err := pinner.Put(ctx, tenantA, strings.NewReader(data), "")
		require.NoError(t, err)
		// In odd rounds another owner holds a pin that is dropped during
		// the race, so Unpin interleaves too.
		holder := i%2 == 1
		if holder {
			require.NoError(t, pinner.Pin(ctx, tenantA, a.Ref, "holder"))
		}
		delay := window * time.Duration(i/2) / time.Duration(rounds/2)

		var (
			wg     sync.WaitGroup
			start  = make(chan struct{})
			mu     sync.Mutex
			failed []string
			pinned bool
		)
		fail := func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			failed = append(failed, fmt.Sprintf(format, args...))
		}
		if holder {
			wg.Go(func() {
				<-start
				if err := pinner.Unpin(ctx, tenantA, a.Ref, "holder"); err != nil {
					fail("unpin holder: %v", err)
				}
			})
		}
		wg.Go(func() {
			<-start
			time.Sleep(delay)
			err := pinner.Pin(ctx, tenantA, a.Ref, "chain")
			if errors.Is(err, blobstore.ErrNotFound) {
				if _, err := pinner.Stat(ctx, tenantA, a.Ref); !errors.Is(err, blobstore.ErrNotFound) {
					fail("Pin said not found, Stat says %v", err)
				}
				return
			}
			if err != nil {
				fail("pin: %v", err)
				return
			}
			pinned = true
			for j := range 3 {
				rc, _, err := pinner.Open(ctx, tenantA, a.Ref)
				if err != nil {
					fail("pinned blob vanished (read %d): %v", j, err)
					return
				}
				b, err := io.ReadAll(rc)
				rc.Close()
				if err != nil || string(b) != data {
					fail("pinned blob unreadable (read %d): %q, %v", j, b, err)
					return
				}
				time.Sleep(window / 4)
			}
			if err := pinner.Unpin(ctx, tenantA, a.Ref, "chain"); err != nil {
				fail("unpin chain: %v", err)
			}
		})
		wg.Go(func() {
			<-start
			for range 3 {
				if _, err := sweeper.Sweep(ctx); err != nil {
					fail("sweep: %v", err)
				}
			}
		})
		close(start)
		wg.Wait()
		require.Empty(t, failed, "round %d (holder %v, pin delay %v)", i, holder, delay)
		if pinned {
			pinWon++
		} else {
			sweepWon++
		}
		// Whatever happened, the blob is unpinned and expired now: one
		// more sweep removes it.
		_, err = sweeper.Sweep(ctx)
		require.NoError(t, err)
		_, err = pinner.Stat(ctx, tenantA, a.Ref)
		require.Equal(t, blobstore.ErrNotFound, err, "round %d: an unpinned, expired blob survived", i)
	}
	t.Logf("%d rounds over a %v window: pin won %d, sweep won %d", rounds, window, pinWon, sweepWon)
	require.Empty(t, e.keys(), "pins, claims or blobs left behind")
}

func testSameContent(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	stores := []*blobstore.Store{e.store(blobstore.Options{}), e.store(blobstore.Options{})}
	data := randomBytes(11, 2<<20)
	const perStore = 3
	attrs := make([]blobstore.Attrs, 2*perStore)
	errs := make([]error, len(attrs))
	var wg sync.WaitGroup
	for i := range attrs {
		wg.Go(func() {
			attrs[i], errs[i] = stores[i%2].Put(e.ctx, tenantA, bytes.NewReader(data), "application/octet-stream")
		})
	}
	wg.Wait()
	refs := map[string]bool{}
	for i, a := range attrs {
		require.NoError(t, errs[i])
		require.False(t, refs[a.Ref], "duplicate ref %s", a.Ref)
		refs[a.Ref] = true
		require.Equal(t, sha(data), a.SHA256)
		for _, s := range stores {
			rc, _, err := s.Open(e.ctx, tenantA, a.Ref)
			require.NoError(t, err)
			require.True(t, bytes.Equal(data, readAll(t, rc)))
		}
	}
}

func testDelete(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := e.store(blobstore.Options{})
	other := e.store(blobstore.Options{})
	ctx := e.ctx
	a, err := s.Put(ctx, tenantA, strings.NewReader("delete me"), "")
	require.NoError(t, err)
	keep, err := s.Put(ctx, tenantA, strings.NewReader("keep me"), "")
	require.NoError(t, err)
	require.NoError(t, s.Pin(ctx, tenantA, a.Ref, "s1"))
	require.NoError(t, s.Pin(ctx, tenantA, a.Ref, "s2"))

	require.NoError(t, other.Delete(ctx, tenantA, a.Ref), "Delete removes pinned blobs too")
	for op, err := range refCalls(ctx, s, tenantA, a.Ref) {
		require.Equal(t, blobstore.ErrNotFound, err, op)
	}
	_, err = s.Stat(ctx, tenantA, keep.Ref)
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, tenantA, keep.Ref))
	require.Empty(t, e.keys(), "Delete left objects behind")
}

// testUnpinOwner: UnpinOwner withdraws every pin of one owner on one
// tenant's blobs, and nobody else's.
func testUnpinOwner(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	clk := newClock(t0)
	ttl := time.Hour
	s := e.store(blobstore.Options{Clock: clk.Now, TTL: ttl})
	other := e.store(blobstore.Options{Clock: clk.Now, TTL: ttl})
	ctx := e.ctx
	put := func(tenant string) string {
		a, err := s.Put(ctx, tenant, strings.NewReader("owned"), "")
		require.NoError(t, err)
		return a.Ref
	}
	mine, shared, theirs, gone := put(tenantA), put(tenantA), put(tenantA), put(tenantA)
	otherTenant := put(tenantB)
	for _, p := range []struct{ tenant, ref, owner string }{
		{tenantA, mine, "chain-1"}, {tenantA, shared, "chain-1"}, {tenantA, shared, "chain-2"},
		{tenantA, theirs, "chain-2"}, {tenantA, gone, "chain-1"}, {tenantB, otherTenant, "chain-1"},
	} {
		require.NoError(t, s.Pin(ctx, p.tenant, p.ref, p.owner))
	}
	require.NoError(t, s.Delete(ctx, tenantA, gone))

	for _, bad := range []string{"", strings.Repeat("o", blobstore.MaxOwnerLen+1)} {
		_, err := other.UnpinOwner(ctx, tenantA, bad)
		require.ErrorIs(t, err, blobstore.ErrInvalidOwner)
	}
	_, err := other.UnpinOwner(ctx, "Bad Tenant", "chain-1")
	require.ErrorIs(t, err, blobstore.ErrInvalidTenant)

	n, err := other.UnpinOwner(ctx, tenantA, "chain-1")
	require.NoError(t, err)
	require.Equal(t, 2, n, "mine and shared")
	n, err = other.UnpinOwner(ctx, tenantA, "chain-1")
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to withdraw")

	// Past the TTL: the blob only chain-1 pinned expires; the others
	// stay (chain-2's pins, and tenant B's blob of the same owner).
	clk.Advance(2 * ttl)
	_, err = s.Stat(ctx, tenantA, mine)
	require.Equal(t, blobstore.ErrNotFound, err)
	for _, live := range []struct{ tenant, ref string }{{tenantA, shared}, {tenantA, theirs}, {tenantB, otherTenant}} {
		_, err = s.Stat(ctx, live.tenant, live.ref)
		require.NoError(t, err)
	}
	n, err = other.UnpinOwner(ctx, tenantA, "chain-2")
	require.NoError(t, err)
	require.Equal(t, 2, n)
	n, err = other.UnpinOwner(ctx, tenantB, "chain-1")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	clk.Advance(2 * ttl)
	_, err = s.Sweep(ctx)
	require.NoError(t, err)
	require.Empty(t, e.keys(), "every blob unpinned and swept")

	require.NoError(t, other.Close())
	_, err = other.UnpinOwner(ctx, tenantA, "chain-1")
	require.ErrorIs(t, err, blobstore.ErrClosed)
}

func testClose(t *testing.T, nb NewBackend) {
	e := newEnv(t, nb)
	s := blobstore.New(e.open(), blobstore.Options{})
	a, err := s.Put(e.ctx, tenantA, strings.NewReader("x"), "")
	require.NoError(t, err)

	done := make(chan struct{})
	go func() {
		defer close(done)
		s.RunSweeper(e.ctx, time.Hour)
	}()
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("RunSweeper did not return after Close")
	}

	_, err = s.Put(e.ctx, tenantA, strings.NewReader("x"), "")
	require.Equal(t, blobstore.ErrClosed, err)
	for op, err := range refCalls(e.ctx, s, tenantA, a.Ref) {
		require.Equal(t, blobstore.ErrClosed, err, op)
	}
	_, err = s.Sweep(e.ctx)
	require.Equal(t, blobstore.ErrClosed, err)

	// The storage outlives the Store.
	s2 := e.store(blobstore.Options{})
	_, err = s2.Stat(e.ctx, tenantA, a.Ref)
	require.NoError(t, err)
}
