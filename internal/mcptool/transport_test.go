package mcptool

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

func readBounded(body string, max int, events, oneByte bool) ([]byte, error) {
	var r io.Reader = strings.NewReader(body)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	return io.ReadAll(&boundedBody{rc: io.NopCloser(r), max: max, events: events})
}

// TestBoundedBody: a JSON body or one event above the bound fails with
// errMessageTooLarge; many small events pass, whatever their line
// endings and however the reads split them.
func TestBoundedBody(t *testing.T) {
	const max = 100
	event := func(n int, nl string) string {
		return "event: message" + nl + "data: " + strings.Repeat("x", n) + nl + nl
	}
	for _, oneByte := range []bool{false, true} {
		for _, tc := range []struct {
			name   string
			events bool
			body   string
			ok     bool
		}{
			{"json at the bound", false, strings.Repeat("j", max), true},
			{"json above the bound", false, strings.Repeat("j", max+1), false},
			// Blank lines are no boundary in a JSON body.
			{"json with blank lines", false, strings.Repeat("{\n\n\"a\": 1\n\n}\n\n", 20), false},
			{"many small events", true, strings.Repeat(event(50, "\n"), 1000), true},
			{"many small CRLF events", true, strings.Repeat(event(50, "\r\n"), 1000), true},
			{"event at the bound", true, event(max-23, "\n") + event(10, "\n"), true},
			{"one large event", true, event(10, "\n") + event(max, "\n") + event(10, "\n"), false},
			{"one large CRLF event", true, event(10, "\r\n") + event(max, "\r\n"), false},
		} {
			t.Run(fmt.Sprintf("%s/onebyte=%v", tc.name, oneByte), func(t *testing.T) {
				b, err := readBounded(tc.body, max, tc.events, oneByte)
				if tc.ok {
					require.NoError(t, err)
					require.Equal(t, tc.body, string(b))
				} else {
					require.ErrorIs(t, err, errMessageTooLarge)
					require.Less(t, len(b), len(tc.body), "it stopped before the end")
				}
			})
		}
	}
}

// TestBoundedTransport: through the transport, a JSON response above the
// bound fails while being read, also when it holds blank lines; an event
// stream of many small events passes.
func TestBoundedTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sse" {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			_, _ = io.WriteString(w, strings.Repeat("data: {}\n\n", 1000))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, strings.Repeat(" \n\n", 2000)+"{}")
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		path string
		max  int
		ok   bool
	}{{"/json", 1 << 20, true}, {"/json", 1024, false}, {"/sse", 1024, true}, {"/sse", 5, false}} {
		max, ok := tc.max, tc.ok
		c := &http.Client{Transport: &boundedTransport{max: max}}
		resp, err := c.Get(srv.URL + tc.path)
		require.NoError(t, err)
		_, err = io.ReadAll(resp.Body)
		require.NoError(t, resp.Body.Close())
		if ok {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, errMessageTooLarge)
		}
	}
}
