package intl

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// MaxRequestBytes bounds a request's JSON; the guest checks it before the
// call and Handle checks it again.
const MaxRequestBytes = 64 << 10

// maxLocales bounds the list of requested locales; maxString bounds any
// option string and a formatted value's text.
const (
	maxLocales = 64
	maxString  = 1024
	maxCache   = 256
)

// request is the union of every op's fields.
type request struct {
	Op string `json:"op"`
	// L is the requested locales, already a list of strings.
	L []string `json:"l"`
	// O is the op's options (each op reads its own).
	O json.RawMessage `json:"o"`
	// V is the value: a number as JS prints it, a BigInt's digits, a
	// string, or a time in ms since the epoch.
	V json.RawMessage `json:"v"`
	// W is a second value (compare, formatRange, selectRange).
	W json.RawMessage `json:"w"`
	// P asks for formatToParts' parts.
	P bool `json:"p"`
}

// Error is an error the guest throws: Name is "RangeError" or "TypeError".
type Error struct {
	Name, Message string
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

func rangeErr(format string, a ...any) error {
	return &Error{Name: "RangeError", Message: fmt.Sprintf(format, a...)}
}
func typeErr(format string, a ...any) error {
	return &Error{Name: "TypeError", Message: fmt.Sprintf(format, a...)}
}

// Handler answers requests; its zero value is not usable: call New.
type Handler struct {
	mu    sync.Mutex
	cache map[string]any
	// compiled holds compiled requests' options, resolved (compiled.go).
	compiled map[string]compiled
	// everyCalendar formats every calendar of cldrCalendars in every
	// locale, not only calendarLocales' (the calendars audit's view).
	everyCalendar bool
}

// New returns a Handler with empty caches.
func New() *Handler {
	return &Handler{cache: make(map[string]any), compiled: make(map[string]compiled)}
}

// cached returns the value cached under key, computing it with f when
// absent. The cache holds at most maxCache entries: when full, one entry
// makes room for the new one, which keeps it bounded whatever locales the
// guests ask for.
func (h *Handler) cached(key string, f func() any) any {
	if v, ok := h.lookup(key); ok {
		return v
	}
	v := f()
	h.mu.Lock()
	if len(h.cache) >= maxCache {
		// One entry out, whichever the map yields first (Go randomises
		// it): a chain cycling through many keys cannot empty the cache
		// every other chain relies on.
		for k := range h.cache {
			delete(h.cache, k)
			break
		}
	}
	h.cache[key] = v
	h.mu.Unlock()
	return v
}

// lookup returns the cached value of key, if there is one.
func (h *Handler) lookup(key string) (any, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.cache[key]
	return v, ok
}

// Handle answers one request, JSON or compiled (compiled.go). It never
// panics on bad input: a malformed request is a TypeError.
func (h *Handler) Handle(req []byte) []byte {
	if isCompiled(req) {
		return h.handleCompiled(req)
	}
	out, err := h.handle(req)
	if err != nil {
		return errorAnswer(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return []byte(`{"e":"TypeError","m":"intl: unencodable answer"}`)
	}
	return b
}

// errorAnswer is the answer that makes the guest throw err.
func errorAnswer(err error) []byte {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Name: "TypeError", Message: err.Error()}
	}
	b, _ := json.Marshal(struct {
		E string `json:"e"`
		M string `json:"m"`
	}{e.Name, e.Message})
	return b
}

func (h *Handler) handle(b []byte) (any, error) {
	if len(b) > MaxRequestBytes {
		return nil, rangeErr("Intl request of %d bytes exceeds %d", len(b), MaxRequestBytes)
	}
	var req request
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, typeErr("malformed Intl request")
	}
	if len(req.L) > maxLocales {
		return nil, rangeErr("more than %d locales", maxLocales)
	}
	for _, l := range req.L {
		if len(l) > maxString {
			return nil, rangeErr("Incorrect locale information provided")
		}
	}
	switch req.Op {
	case "canon":
		return canonicalLocales(req.L)
	case "supported":
		return supportedLocales(req.L)
	case "seg":
		return h.segmenter(&req)
	case "case":
		return h.caseMap(&req)
	case "list":
		return h.listFormat(&req)
	case "rt":
		return h.relativeTime(&req)
	case "pl":
		return h.pluralRules(&req)
	case "col":
		return h.collator(&req)
	case "dtf":
		return h.dateTimeFormat(&req)
	case "nf":
		return h.numberFormat(&req)
	case "nfr":
		return h.numberRange(&req)
	case "values":
		return h.supportedValues(&req)
	case "dn":
		return h.displayNames(&req)
	case "loc":
		return h.newLocale(&req)
	case "locinfo":
		return h.localeInfo(&req)
	}
	return nil, typeErr("unknown Intl operation %q", req.Op)
}

// options decodes an op's options object (absent: all defaults).
func options(raw json.RawMessage, into any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return typeErr("malformed Intl options")
	}
	return nil
}

// str reads a decoded option string, bounded.
func checkLen(name, s string) error {
	if len(s) > maxString {
		return rangeErr("Value of %d bytes out of range for options property %s", len(s), name)
	}
	return nil
}
