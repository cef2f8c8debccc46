package jsprelude_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The fixture tools of the compatibility corpus. testdata/node-run.mjs has
// the same tools in JavaScript; keep the two equal, line for line
// (TestFixtureToolsAgree compares their answers). Objects are obj, which
// keeps its members in order as JavaScript object literals do.

var (
	firstNames = []string{"Ana", "Ben", "Chloé", "Dmitri", "Émile", "Fatima", "Günter", "Hana", "Ivan", "Jürgen", "Kenji", "Léa", "Mateo",
		"Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Søren", "Tomás", "Uma", "Viktor", "Wen", "Xavier", "Yara", "Zoë"}
	lastNames = []string{"Almeida", "Becker", "Çelik", "Dubois", "Eriksson", "Fischer", "García", "Hoffmann", "Ishikawa", "Jensen", "Kowalski",
		"López", "Müller", "Nakamura", "O'Brien", "Petrov", "Quispe", "Rossi", "Schmidt", "Tanaka", "Ünal", "Vargas", "Weber", "Xu", "Yilmaz", "Zhang"}
	countries  = []string{"US", "GB", "DE", "FR", "ES", "IT", "BR", "JP", "CN", "KR", "IN", "EG", "TR"}
	roles      = []string{"admin", "editor", "viewer", "viewer", "editor"}
	skus       = []string{"A-100", "B-200", "C-300", "D-400", "E-500", "F-600", "G-700", "H-800"}
	skuCents   = []int{999, 2450, 120, 7999, 1575, 300, 12900, 45}
	currencies = []string{"USD", "EUR", "GBP"}
	statuses   = []string{"pending", "paid", "shipped", "delivered", "cancelled"}
	categories = []string{"books", "garden", "kitchen", "toys", "tools", "music"}
	tags       = []string{"new", "sale", "popular", "eco", "limited"}
	weather    = []struct {
		city           string
		tempC          float64
		condition      string
		humidity, wind int
	}{
		{"Berlin", 12.5, "cloudy", 71, 14}, {"Paris", 15, "sunny", 55, 9}, {"Tokyo", 22.3, "rain", 88, 20},
		{"London", 11, "rain", 80, 18}, {"New York", 18.7, "sunny", 40, 12}, {"São Paulo", 27, "storm", 90, 25},
		{"Madrid", 24, "sunny", 30, 7}, {"Cairo", 33.1, "sunny", 20, 11}, {"Mumbai", 31, "humid", 85, 10},
		{"Seoul", -2.5, "snow", 60, 16},
	}
	docs = []struct {
		title, url, published string
		score                 float64
	}{
		{"Getting started with Kubernetes", "https://docs.example.com/k8s/start?lang=en#intro", "2024-01-15T09:30:00Z", 0.92},
		{"Kubernetes networking deep dive", "https://blog.example.org/posts/k8s-networking?utm_source=feed&ref=home", "2023-11-02T14:00:00Z", 0.87},
		{"Postgres indexing tips", "https://db.example.com/pg/indexes/", "2024-02-20T08:15:00Z", 0.75},
		{"Scaling Postgres reads", "http://db.example.com:8080/pg/replicas?page=2", "2022-06-30T23:59:59Z", 0.66},
		{"Rust ownership explained", "https://learn.example.net/rust/ownership", "2024-03-05T12:00:00Z", 0.81},
		{"Go concurrency patterns", "https://go.example.dev/blog/pipelines?x=1&y=two%20words", "2023-07-19T17:45:00Z", 0.9},
		{"Kubernetes cost control", "https://finops.example.com/k8s/cost#savings", "2024-04-01T00:00:00Z", 0.58},
		{"Unicode in URLs: café and naïve", "https://example.com/wiki/Caf%C3%A9?q=na%C3%AFve", "2021-12-24T18:00:00Z", 0.44},
	}
	events = []struct {
		title, start string
		minutes      int
		timeZone     string
	}{
		{"Quarterly review", "2024-03-28T15:00:00Z", 90, "America/New_York"},
		{"Sprint planning", "2024-03-04T09:00:00Z", 60, "Europe/Berlin"},
		{"Release 2.0", "2024-04-15T07:30:00Z", 30, "Asia/Tokyo"},
		{"Team offsite", "2024-05-20T08:00:00Z", 480, "Europe/Paris"},
		{"Budget deadline", "2024-02-29T23:00:00Z", 0, "UTC"},
		{"Customer call", "2024-03-10T06:30:00Z", 45, "America/Los_Angeles"},
	}
	files = map[string][2]string{
		"hello.txt":  {"text/plain", "Hello, wörld! ✓\n"},
		"report.csv": {"text/csv", "id,name,amount\n1,Widget,9.99\n2,Gadget,24.50\n3,\"Doohickey, large\",120\n4,Gizmo,0.45\n"},
	}
)

// obj is a JSON object whose members keep their order.
type obj []member

type member struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(m.k)
		if err != nil {
			return nil, err
		}
		v, err := marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes as JSON.stringify does (no HTML escaping).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// fixtureArgs reads the arguments the way the JavaScript tools do.
type fixtureArgs map[string]json.RawMessage

func (a fixtureArgs) num(k string, d float64) float64 {
	var f float64
	if json.Unmarshal(a[k], &f) != nil {
		return d
	}
	return f
}

func (a fixtureArgs) str(k string) (string, bool) {
	var s string
	err := json.Unmarshal(a[k], &s)
	return s, err == nil
}

// text is String(a[k]) for the strings and numbers the corpus passes.
func (a fixtureArgs) text(k string) string {
	if s, ok := a.str(k); ok {
		return s
	}
	if v, ok := a[k]; ok {
		return string(v)
	}
	return "undefined"
}

func okEnv(v any) obj { return obj{{"status", "ok"}, {"value", v}} }

func day(d int) string {
	return time.Date(2023, 1, 1+d, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
}

func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func fixtureUser(i int) obj {
	return obj{
		{"id", i}, {"name", firstNames[(i*7)%26] + " " + lastNames[(i*11)%26]}, {"email", fmt.Sprintf("user%d@example.com", i)},
		{"age", 18 + (i*37)%50}, {"country", countries[(i*5)%13]}, {"role", roles[i%5]}, {"active", i%3 != 0},
		{"signup", day((i * 53) % 700)}, {"score", float64((i*7919)%1000) / 10},
	}
}

func fixtureOrder(i int, userID any) obj {
	var items []any
	cents := 0
	for j := 0; j < 1+i%3; j++ {
		k, qty := (i+j)%8, 1+(i*j+i)%4
		items = append(items, obj{{"sku", skus[k]}, {"qty", qty}, {"price", float64(skuCents[k]) / 100}})
		cents += qty * skuCents[k]
	}
	if userID == nil {
		userID = 1 + (i*13)%25
	}
	created := time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * (7*time.Hour + 13*time.Minute))
	return obj{
		{"id", fmt.Sprintf("ord-%d", 1000+i)}, {"userId", userID}, {"items", items}, {"total", float64(cents) / 100},
		{"currency", currencies[i%3]}, {"status", statuses[(i*3)%5]}, {"createdAt", isoMillis(created)},
	}
}

func fixtureItem(i int) obj {
	return obj{
		{"id", i}, {"sku", fmt.Sprintf("SKU-%05d", i)}, {"name", fmt.Sprintf("Item %d", i)}, {"category", categories[i%6]},
		{"price", float64((i*379)%10000) / 100}, {"stock", (i * 31) % 200}, {"tags", []string{tags[i%5], tags[(i*3+1)%5]}},
		{"rating", 1 + (i*7)%5},
	}
}

// fixtures is one run's set of fixture tools (flaky, kv and notify keep
// state for the run).
type fixtures struct {
	mu    sync.Mutex
	flaky map[string]int
	kv    map[string]json.RawMessage
	sent  int
}

func newFixtures() *fixtures {
	return &fixtures{flaky: map[string]int{}, kv: map[string]json.RawMessage{}}
}

// bridge is the fixtures as a sandbox.Bridge.
func (f *fixtures) bridge(ctx context.Context, tool string, args []byte) ([]byte, error) {
	env, err := f.call(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	return marshal(env)
}

func (f *fixtures) call(ctx context.Context, tool string, raw []byte) (any, error) {
	var a fixtureArgs
	if err := json.Unmarshal(raw, &a); err != nil || a == nil {
		a = fixtureArgs{}
	}
	switch tool {
	case "echo":
		return okEnv(json.RawMessage(raw)), nil
	case "users":
		n, off := int(min(a.num("n", 10), 1000)), int(a.num("offset", 0))
		out := []any{}
		for i := off + 1; i <= off+n; i++ {
			out = append(out, fixtureUser(i))
		}
		return okEnv(out), nil
	case "orders":
		n := int(min(a.num("n", 20), 1000))
		var userID any // a number, or each order's own
		var n64 float64
		if json.Unmarshal(a["userId"], &n64) == nil {
			userID = json.RawMessage(a["userId"])
		}
		out := []any{}
		for i := 1; i <= n; i++ {
			out = append(out, fixtureOrder(i, userID))
		}
		return okEnv(out), nil
	case "weather":
		city, _ := a.str("city")
		for _, w := range weather {
			if w.city == city {
				return okEnv(obj{{"city", w.city}, {"tempC", w.tempC}, {"condition", w.condition}, {"humidity", w.humidity}, {"windKph", w.wind}}), nil
			}
		}
		return obj{{"status", "error"}, {"reason", "not_found"}, {"message", "unknown city: " + a.text("city")}}, nil
	case "fail":
		status, ok := a.str("status")
		if !ok {
			status = "error"
		}
		reason, ok := a.str("reason")
		if !ok {
			reason = "tool_error"
		}
		env := obj{{"status", status}, {"reason", reason}}
		if msg, ok := a.str("message"); ok {
			env = append(env, member{"message", msg})
		}
		return env, nil
	case "delay":
		ms := min(max(a.num("ms", 0), 0), 3000)
		t := time.NewTimer(time.Duration(ms * float64(time.Millisecond)))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if v, ok := a["value"]; ok {
			return okEnv(v), nil
		}
		return okEnv(obj{{"waited", ms}}), nil
	case "big":
		n := int(min(a.num("n", 2000), 5000))
		out := []any{}
		for i := 1; i <= n; i++ {
			out = append(out, fixtureItem(i))
		}
		return okEnv(out), nil
	case "flaky":
		key, ok := a.str("key")
		if !ok {
			key = "default"
		}
		fails := int(a.num("failTimes", 2))
		f.mu.Lock()
		f.flaky[key]++
		count := f.flaky[key]
		f.mu.Unlock()
		if count <= fails {
			return obj{{"status", "error"}, {"reason", "unavailable"}, {"message", fmt.Sprintf("%s: temporarily unavailable (attempt %d)", key, count)}}, nil
		}
		return okEnv(obj{{"key", key}, {"attempts", count}}), nil
	case "search":
		q, _ := a.str("q")
		q = strings.ToLower(q)
		out := []any{}
		for _, d := range docs {
			if strings.Contains(strings.ToLower(d.title), q) {
				out = append(out, obj{{"title", d.title}, {"url", d.url}, {"published", d.published}, {"score", d.score}})
			}
		}
		return okEnv(out[:min(len(out), max(int(a.num("limit", 10)), 0))]), nil
	case "prices":
		var syms []json.RawMessage
		_ = json.Unmarshal(a["symbols"], &syms)
		out := obj{}
		for _, s := range syms {
			var str string
			if json.Unmarshal(s, &str) != nil {
				str = string(s)
			}
			c := 0
			for _, r := range str {
				c += int(r) * 97
			}
			out = append(out, member{str, float64(1000+c%90000) / 100})
		}
		return okEnv(out), nil
	case "events":
		out := []any{}
		for i, e := range events {
			out = append(out, obj{{"id", i + 1}, {"title", e.title}, {"start", e.start}, {"minutes", e.minutes}, {"timeZone", e.timeZone}})
		}
		return okEnv(out), nil
	case "page":
		from := 0
		if c, ok := a.str("cursor"); ok {
			fmt.Sscanf(c[1:], "%d", &from)
		}
		items := []any{}
		for i := from + 1; i <= min(from+5, 13); i++ {
			items = append(items, obj{{"id", i}, {"name", fmt.Sprintf("row %d", i)}})
		}
		var next any
		if from+5 < 13 {
			next = fmt.Sprintf("c%d", from+5)
		}
		return okEnv(obj{{"items", items}, {"nextCursor", next}}), nil
	case "kv.set":
		v, ok := a["value"]
		if !ok {
			v = json.RawMessage("null")
		}
		f.mu.Lock()
		f.kv[a.text("key")] = v
		f.mu.Unlock()
		return okEnv(obj{{"ok", true}}), nil
	case "kv.get":
		f.mu.Lock()
		v, ok := f.kv[a.text("key")]
		f.mu.Unlock()
		if !ok {
			v = json.RawMessage("null")
		}
		return okEnv(v), nil
	case "notify":
		f.mu.Lock()
		f.sent++
		id := fmt.Sprintf("msg-%d", f.sent)
		f.mu.Unlock()
		to, ok := a["to"]
		if !ok {
			to = json.RawMessage("null")
		}
		return okEnv(obj{{"id", id}, {"to", to}, {"accepted", true}}), nil
	case "file":
		name := a.text("name")
		fl, ok := files[name]
		if !ok {
			return obj{{"status", "error"}, {"reason", "not_found"}, {"message", "no file named " + name}}, nil
		}
		return okEnv(obj{{"name", name}, {"mime", fl[0]}, {"base64", base64.StdEncoding.EncodeToString([]byte(fl[1]))}}), nil
	case "csv":
		return okEnv(files["report.csv"][1]), nil
	}
	if !utf8.ValidString(tool) {
		tool = strings.ToValidUTF8(tool, "\uFFFD")
	}
	return obj{{"status", "error"}, {"reason", "unknown_tool"}, {"message", "no tool named " + tool}}, nil
}
