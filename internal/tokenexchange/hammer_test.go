package tokenexchange_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/internal/tokenexchange"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeSTS answers every exchange with a token naming the tenant-free
// subject and audience, after delay.
func fakeSTS(t *testing.T, delay time.Duration, n *atomic.Int64) *httptest.Server {
	sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"tok.%s.%s","token_type":"Bearer","expires_in":3600}`, r.PostForm.Get("subject_token"), r.PostForm.Get("audience"))
	}))
	t.Cleanup(sts.Close)
	return sts
}

// TestHammer: many goroutines over many keys and a small cache: every
// caller gets the token of its own key, the cache never exceeds its
// bound, and concurrent callers of one key share exchanges.
func TestHammer(t *testing.T) {
	var n atomic.Int64
	sts := fakeSTS(t, time.Millisecond, &n)
	ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: sts.URL, ClientID: "airlock", CacheMaxEntries: 8})
	require.NoError(t, err)
	var wg sync.WaitGroup
	var calls atomic.Int64
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				subj, aud := fmt.Sprintf("s%d", (g+i)%12), fmt.Sprintf("a%d", i%2)
				tok, err := ex.Token(context.Background(), req(fmt.Sprintf("t%d", g%3), subj, aud))
				calls.Add(1)
				if err != nil || tok != "tok."+subj+"."+aud {
					t.Errorf("%s/%s got %q, %v", subj, aud, tok, err)
					return
				}
				if e := ex.Stats().Entries; e > 8 {
					t.Errorf("the cache holds %d entries", e)
					return
				}
			}
		}()
	}
	wg.Wait()
	st := ex.Stats()
	require.LessOrEqual(t, st.Entries, 8)
	require.Equal(t, uint64(n.Load()), st.Exchanges)
	require.Less(t, n.Load(), calls.Load(), "hits and shared exchanges spare the token service")
}

// TestWaiterCancelled: a caller whose context ends stops waiting at once;
// the exchange it started completes for the others (under Timeout) and
// is cached.
func TestWaiterCancelled(t *testing.T) {
	var n atomic.Int64
	sts := fakeSTS(t, 300*time.Millisecond, &n)
	ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: sts.URL, ClientID: "airlock"})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = ex.Token(ctx, req("acme", "s", "crm"))
	require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	require.Less(t, time.Since(start), 200*time.Millisecond)
	tok, err := ex.Token(context.Background(), req("acme", "s", "crm"))
	require.NoError(t, err)
	require.Equal(t, "tok.s.crm", tok)
	require.Equal(t, int64(1), n.Load(), "the second caller joined the first exchange")
}

// FuzzAnswer: whatever a token service answers, Token returns a token or
// a *Error, never panics, and never returns a token a header cannot carry.
func FuzzAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"access_token":"t","token_type":"Bearer","expires_in":60}`,
		`{"access_token":"t","token_type":"N_A","expires_in":"60"}`,
		`{"error":"invalid_grant","error_description":"x"}`,
		`{"access_token":"a\u0000b","token_type":"Bearer"}`,
		`{"access_token":"t","token_type":"Bearer","expires_in":1e300}`,
		`{"access_token":"t","token_type":"Bearer","expires_in":-5}`,
		`[]`, `null`, ``, `{`,
	} {
		f.Add(200, seed)
		f.Add(400, seed)
	}
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 200 || status > 599 {
			status = 200 + (status%400+400)%400
		}
		sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}))
		defer sts.Close()
		ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: sts.URL, ClientID: "airlock", Timeout: 5 * time.Second})
		require.NoError(t, err)
		tok, err := ex.Token(context.Background(), req("acme", "Subject-Token-9", "crm"))
		if err != nil {
			var xe *tokenexchange.Error
			require.ErrorAs(t, err, &xe)
			require.NotContains(t, err.Error(), "Subject-Token-9")
			return
		}
		require.NotEmpty(t, tok)
		for i := 0; i < len(tok); i++ {
			require.True(t, tok[i] > ' ' && tok[i] <= '~', "token byte %d", tok[i])
		}
	})
}
