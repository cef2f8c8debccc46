package mcptool

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	next    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return next(t.next).RoundTrip(r)
}

func next(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		return http.DefaultTransport
	}
	return rt
}

// boundedTransport bounds what one message of a response may hold: a JSON
// body in all, and an event stream per event (the bytes between blank
// lines), so a server cannot make airlock buffer without end.
type boundedTransport struct {
	next http.RoundTripper
	max  int
}

// errMessageTooLarge ends a response whose message is above the bound.
var errMessageTooLarge = errors.New("mcp: a message from the server is larger than the client's bound")

func (t *boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := next(t.next).RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &boundedBody{rc: resp.Body, max: t.max, events: mt == "text/event-stream"}
	return resp, nil
}

// boundedBody fails once more than max bytes arrive: in all, or for an
// event stream without an event boundary ("\n\n", "\r\n\r\n").
type boundedBody struct {
	rc     io.ReadCloser
	max    int
	events bool // an event stream: the bound is per event
	run    int  // bytes since the last boundary (or in all)
	nl     bool // the last byte other than '\r' was '\n'
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	for i, c := range p[:n] {
		b.run++
		if b.run > b.max {
			return i, fmt.Errorf("%w (%d bytes)", errMessageTooLarge, b.max)
		}
		switch c {
		case '\n':
			if b.nl && b.events {
				b.run = 0
			}
			b.nl = true
		case '\r':
		default:
			b.nl = false
		}
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
