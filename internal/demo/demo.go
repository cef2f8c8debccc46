package demo

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/toolbox"
)

// Limits of the demo tools. They keep a demo from growing without bound in a
// long-running server.
const (
	// MaxKeys is how many keys the key-value store holds.
	MaxKeys = 1000
	// MaxKeyBytes is the longest key.
	MaxKeyBytes = 256
	// MaxValueBytes is the largest encoded value kv_set stores.
	MaxValueBytes = 64 << 10
	// MaxMessages is how many sent messages State keeps; older ones are
	// dropped first.
	MaxMessages = 1000
	// MaxCSVRows is the most rows make_csv generates.
	MaxCSVRows = 200_000
	// MaxSleep is the longest slow sleeps.
	MaxSleep = 60 * time.Second
)

// Names of the demo tools, in the order Tools returns them.
var Names = []string{
	"kv_get", "kv_set", "search_docs", "make_csv", "csv_stats",
	"render_chart", "send_message", "slow", "fail", "weather",
}

// State is the in-memory state of the demo tools: a key-value store and a log
// of sent messages for each tenant. Tools find the tenant of the chain that
// calls them with toolbox.CallerFrom; a call without one (a tool called
// directly) uses DefaultTenant. One tenant never sees, or fills up, another's
// keys and messages. The zero value is not usable; call New. A State is safe
// for concurrent use.
type State struct {
	mu      sync.Mutex
	tenants map[string]*space
	now     func() time.Time
}

// space is one tenant's part of the state.
type space struct {
	kv       map[string]json.RawMessage
	messages []Message
}

// DefaultTenant is the tenant of calls that carry no caller.
const DefaultTenant = blobstore.DefaultTenant

// MaxTenants is how many tenants a State keeps state for.
const MaxTenants = 1000

func tenantOf(ctx context.Context) string {
	if c, ok := toolbox.CallerFrom(ctx); ok && c.Tenant() != "" {
		return c.Tenant()
	}
	return DefaultTenant
}

// space returns tenant's space, creating it; s.mu must be held.
func (s *State) space(tenant string, create bool) (*space, error) {
	sp, ok := s.tenants[tenant]
	if ok || !create {
		return sp, nil
	}
	if len(s.tenants) >= MaxTenants {
		return nil, fmt.Errorf("the demo state holds %d tenants already", MaxTenants)
	}
	sp = &space{kv: make(map[string]json.RawMessage)}
	s.tenants[tenant] = sp
	return sp, nil
}

// Message is one message recorded by send_message. Nothing is actually sent.
type Message struct {
	ID   string    `json:"id"`
	To   string    `json:"to"`
	Text string    `json:"text"`
	Sent time.Time `json:"sent"`
}

// New returns an empty State.
func New() *State {
	return &State{tenants: make(map[string]*space), now: time.Now}
}

// Toolbox returns a toolbox holding every demo tool and the State they share.
func Toolbox() (*toolbox.Toolbox, *State) {
	s := New()
	box, err := toolbox.New(s.Tools()...)
	if err != nil {
		// The demo tools are fixed; the tests prove they register.
		panic("demo: " + err.Error())
	}
	return box, s
}

// Tools returns the demo tools bound to s, in the order of Names. send_message
// is HIGH risk; every other tool is SAFE.
func (s *State) Tools() []toolbox.Tool {
	return []toolbox.Tool{
		toolbox.Func("kv_get", "[demo] Read a value from the in-memory key-value store.", s.kvGet),
		toolbox.Func("kv_set", "[demo] Store a JSON value under a key in the in-memory key-value store; returns the previous value.", s.kvSet).
			WithClass(toolbox.LocalWrite),
		toolbox.Func("search_docs", "[demo] Search a few bundled demo documents for lines containing the query's words.", searchDocs),
		toolbox.Func("make_csv", "[demo] Generate a CSV of sales data with the given number of rows (large results come back as an artifact).", makeCSV),
		toolbox.Func("csv_stats", "[demo] Count the rows of CSV text (or a CSV artifact) and sum its numeric columns.", csvStats),
		toolbox.Func("render_chart", "[demo] Render a bar chart of the values as a PNG image.", renderChart),
		toolbox.Func("send_message", "[demo] Send a message (recorded in memory only; nothing leaves the process). Needs approval.", s.sendMessage).
			WithRisk(toolbox.High).WithClass(toolbox.Network),
		toolbox.Func("slow", "[demo] Sleep for the given number of milliseconds (at most 60000), then return.", slow),
		toolbox.Func("fail", "[demo] Always fail with the given message, to show how tool errors look.", fail),
		toolbox.Func("weather", "[demo] Made-up current temperature of a city from a small fixed table (fails for other cities).", weather),
	}
}

// Get returns the value tenant stored under key.
func (s *State) Get(tenant, key string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, _ := s.space(tenant, false)
	if sp == nil {
		return nil, false
	}
	v, ok := sp.kv[key]
	return v, ok
}

// Messages returns a copy of the messages send_message recorded for tenant,
// oldest first.
func (s *State) Messages(tenant string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, _ := s.space(tenant, false)
	if sp == nil {
		return nil
	}
	return append([]Message(nil), sp.messages...)
}

// KVGetIn is the input of kv_get.
type KVGetIn struct {
	Key string `json:"key" jsonschema:"the key to read"`
}

// KVGetOut is the result of kv_get.
type KVGetOut struct {
	Key   string          `json:"key"`
	Found bool            `json:"found"`
	Value json.RawMessage `json:"value" jsonschema:"the stored JSON value; null when not found"`
}

func (s *State) kvGet(ctx context.Context, in KVGetIn) (KVGetOut, error) {
	v, ok := s.Get(tenantOf(ctx), in.Key)
	return KVGetOut{Key: in.Key, Found: ok, Value: v}, nil
}

// KVSetIn is the input of kv_set.
type KVSetIn struct {
	Key   string          `json:"key" jsonschema:"the key to write (1 to 256 bytes)"`
	Value json.RawMessage `json:"value" jsonschema:"any JSON value (at most 64 KiB encoded)"`
}

// KVSetOut is the result of kv_set.
type KVSetOut struct {
	Key      string          `json:"key"`
	Previous json.RawMessage `json:"previous" jsonschema:"the value replaced; null when the key was new"`
}

func (s *State) kvSet(ctx context.Context, in KVSetIn) (KVSetOut, error) {
	if in.Key == "" || len(in.Key) > MaxKeyBytes {
		return KVSetOut{}, fmt.Errorf("key must be 1 to %d bytes, got %d", MaxKeyBytes, len(in.Key))
	}
	if len(in.Value) > MaxValueBytes {
		return KVSetOut{}, fmt.Errorf("value is %d bytes encoded; the demo store keeps at most %d", len(in.Value), MaxValueBytes)
	}
	v := json.RawMessage("null")
	if len(in.Value) > 0 {
		v = append(json.RawMessage(nil), in.Value...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, err := s.space(tenantOf(ctx), true)
	if err != nil {
		return KVSetOut{}, err
	}
	prev, ok := sp.kv[in.Key]
	if !ok && len(sp.kv) >= MaxKeys {
		return KVSetOut{}, fmt.Errorf("the demo store is full (%d keys); overwrite an existing key", MaxKeys)
	}
	sp.kv[in.Key] = v
	return KVSetOut{Key: in.Key, Previous: prev}, nil
}

// SendMessageIn is the input of send_message.
type SendMessageIn struct {
	To   string `json:"to" jsonschema:"recipient (1 to 200 characters)"`
	Text string `json:"text" jsonschema:"message text (1 to 4000 characters)"`
}

// SendMessageOut is the result of send_message.
type SendMessageOut struct {
	ID    string `json:"id"`
	To    string `json:"to"`
	Chars int    `json:"chars"`
}

func (s *State) sendMessage(ctx context.Context, in SendMessageIn) (SendMessageOut, error) {
	if n := utf8.RuneCountInString(in.To); n < 1 || n > 200 {
		return SendMessageOut{}, fmt.Errorf("to must be 1 to 200 characters, got %d", n)
	}
	n := utf8.RuneCountInString(in.Text)
	if n < 1 || n > 4000 {
		return SendMessageOut{}, fmt.Errorf("text must be 1 to 4000 characters, got %d", n)
	}
	if err := ctx.Err(); err != nil {
		return SendMessageOut{}, err
	}
	m := Message{ID: "msg_" + rand.Text()[:16], To: in.To, Text: in.Text, Sent: s.now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, err := s.space(tenantOf(ctx), true)
	if err != nil {
		return SendMessageOut{}, err
	}
	if len(sp.messages) >= MaxMessages {
		sp.messages = append(sp.messages[:0], sp.messages[1:]...)
	}
	sp.messages = append(sp.messages, m)
	return SendMessageOut{ID: m.ID, To: m.To, Chars: n}, nil
}

// SlowIn is the input of slow.
type SlowIn struct {
	MS int `json:"ms" jsonschema:"how long to sleep, in milliseconds (0 to 60000)"`
}

// SlowOut is the result of slow.
type SlowOut struct {
	SleptMS int `json:"slept_ms"`
}

func slow(ctx context.Context, in SlowIn) (SlowOut, error) {
	d := time.Duration(in.MS) * time.Millisecond
	if in.MS < 0 || d > MaxSleep {
		return SlowOut{}, fmt.Errorf("ms must be 0 to %d, got %d", MaxSleep.Milliseconds(), in.MS)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return SlowOut{SleptMS: in.MS}, nil
	case <-ctx.Done():
		return SlowOut{}, ctx.Err()
	}
}

// FailIn is the input of fail.
type FailIn struct {
	Message string `json:"message,omitempty" jsonschema:"the error message to fail with"`
}

// errDemoFailure is what fail returns, wrapped with the caller's message.
var errDemoFailure = errors.New("demo failure")

func fail(_ context.Context, in FailIn) (struct{}, error) {
	if in.Message == "" {
		return struct{}{}, fmt.Errorf("%w: the fail tool always fails", errDemoFailure)
	}
	return struct{}{}, fmt.Errorf("%w: %s", errDemoFailure, in.Message)
}

// WeatherIn is the input of weather.
type WeatherIn struct {
	City string `json:"city" jsonschema:"city name, e.g. Oslo"`
}

// WeatherOut is the result of weather.
type WeatherOut struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

// demoTemps is weather's fixed table; nothing is looked up anywhere.
var demoTemps = map[string]float64{"Oslo": 4, "Lima": 19, "Cairo": 31, "Reykjavik": -2, "Singapore": 30}

func weather(_ context.Context, in WeatherIn) (WeatherOut, error) {
	t, ok := demoTemps[in.City]
	if !ok {
		return WeatherOut{}, fmt.Errorf("%w: no demo station in %q", errDemoFailure, in.City)
	}
	return WeatherOut{City: in.City, TempC: t}, nil
}
