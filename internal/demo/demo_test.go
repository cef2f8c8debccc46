package demo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// call validates args against the tool's schema, as the invoker does, and
// runs it.
func call(t *testing.T, box *toolbox.Toolbox, name, args string) (toolbox.Output, error) {
	t.Helper()
	e, ok := box.Lookup(name)
	require.True(t, ok, name)
	if err := e.Validate(json.RawMessage(args)); err != nil {
		return toolbox.Output{}, err
	}
	return e.Tool().Call(context.Background(), json.RawMessage(args))
}

func decode[T any](t *testing.T, out toolbox.Output) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(out.JSON, &v))
	return v
}

func TestToolboxRegistersEveryDemoTool(t *testing.T) {
	box, _ := demo.Toolbox()
	require.Equal(t, demo.Names, box.Names())
	for _, e := range box.Entries() {
		info := e.Info()
		require.True(t, strings.HasPrefix(info.Description, "[demo] "), info.Name)
		want := toolbox.Safe
		if info.Name == "send_message" {
			want = toolbox.High
		}
		require.Equal(t, want, info.Risk, info.Name)
		require.Equal(t, info.Name == "render_chart", info.Media, "%s returns media", info.Name)
	}
	ts := box.TypeScript()
	for _, n := range demo.Names {
		require.Contains(t, ts, n+"(args:")
	}
	require.Contains(t, ts, "  }): Promise<MediaResult<{\n    width: number;\n    height: number;\n    bars: number;\n  }>>;\n",
		"render_chart's result: its value and the PNG file")
}

func TestKV(t *testing.T) {
	box, st := demo.Toolbox()
	out, err := call(t, box, "kv_get", `{"key":"a"}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"key":"a","found":false,"value":null}`, string(out.JSON))

	out, err = call(t, box, "kv_set", `{"key":"a","value":{"n":1}}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"key":"a","previous":null}`, string(out.JSON))

	out, err = call(t, box, "kv_set", `{"key":"a","value":[2]}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"key":"a","previous":{"n":1}}`, string(out.JSON))

	out, err = call(t, box, "kv_get", `{"key":"a"}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"key":"a","found":true,"value":[2]}`, string(out.JSON))
	v, ok := st.Get(demo.DefaultTenant, "a")
	require.True(t, ok)
	require.JSONEq(t, `[2]`, string(v))

	tests := []struct{ name, args, want string }{
		{"empty key", `{"key":"","value":1}`, "key must be 1 to 256 bytes"},
		{"long key", fmt.Sprintf(`{"key":%q,"value":1}`, strings.Repeat("k", 257)), "key must be 1 to 256 bytes"},
		{"large value", fmt.Sprintf(`{"key":"b","value":%q}`, strings.Repeat("v", demo.MaxValueBytes)), "at most 65536"},
		{"unknown field", `{"key":"b","value":1,"ttl":3}`, "invalid arguments"},
		{"missing value", `{"key":"b"}`, "invalid arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(t, box, "kv_set", tc.args)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestKVFull(t *testing.T) {
	box, _ := demo.Toolbox()
	for i := range demo.MaxKeys {
		_, err := call(t, box, "kv_set", fmt.Sprintf(`{"key":"k%d","value":%d}`, i, i))
		require.NoError(t, err)
	}
	_, err := call(t, box, "kv_set", `{"key":"one-more","value":1}`)
	require.ErrorContains(t, err, "full")
	_, err = call(t, box, "kv_set", `{"key":"k0","value":"overwrite"}`)
	require.NoError(t, err, "overwriting an existing key works when full")
}

func TestSearchDocs(t *testing.T) {
	box, _ := demo.Toolbox()
	require.NotEmpty(t, demo.DocNames())

	out, err := call(t, box, "search_docs", `{"query":"artifact preview"}`)
	require.NoError(t, err)
	res := decode[demo.SearchOut](t, out)
	require.NotEmpty(t, res.Hits)
	require.LessOrEqual(t, len(res.Hits), 5)
	require.Equal(t, "artifacts.md", res.Hits[0].Doc)
	require.Equal(t, 2, res.Hits[0].Score, "the best hit contains both words")
	for i := 1; i < len(res.Hits); i++ {
		require.GreaterOrEqual(t, res.Hits[i-1].Score, res.Hits[i].Score)
	}

	out, err = call(t, box, "search_docs", `{"query":"CHAIN","limit":50}`)
	require.NoError(t, err)
	res = decode[demo.SearchOut](t, out)
	require.Greater(t, len(res.Hits), 5)
	for _, h := range res.Hits {
		require.Contains(t, strings.ToLower(h.Text), "chain")
		require.Positive(t, h.Line)
	}

	out, err = call(t, box, "search_docs", `{"query":"zzzyzzy"}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"hits":[]}`, string(out.JSON))

	for _, args := range []string{`{"query":"  "}`, `{"query":"x","limit":51}`, `{"query":"x","limit":-1}`} {
		_, err := call(t, box, "search_docs", args)
		require.Error(t, err, args)
	}
}

func TestMakeCSVAndStats(t *testing.T) {
	box, _ := demo.Toolbox()
	out, err := call(t, box, "make_csv", `{"rows":1000,"seed":7}`)
	require.NoError(t, err)
	var text string
	require.NoError(t, json.Unmarshal(out.JSON, &text))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	require.Len(t, lines, 1001)
	require.Equal(t, "id,region,units,price", lines[0])
	require.Greater(t, len(out.JSON), invoker.DefaultMaxInlineResultBytes, "large enough to be offloaded")

	again, err := call(t, box, "make_csv", `{"rows":1000,"seed":7}`)
	require.NoError(t, err)
	require.Equal(t, out.JSON, again.JSON, "the same seed gives the same data")

	args, _ := json.Marshal(map[string]string{"csv": text})
	out, err = call(t, box, "csv_stats", string(args))
	require.NoError(t, err)
	st := decode[demo.CSVStatsOut](t, out)
	require.Equal(t, 1000, st.Rows)
	require.Equal(t, demo.CSVColumns, st.Columns)
	require.Equal(t, float64(1000*1001/2), st.Sums["id"])
	require.Contains(t, st.Sums, "units")
	require.Contains(t, st.Sums, "price")
	require.NotContains(t, st.Sums, "region")

	for _, args := range []string{`{"rows":0}`, `{"rows":200001}`, `{"rows":-5}`} {
		_, err := call(t, box, "make_csv", args)
		require.ErrorContains(t, err, "rows must be", args)
	}
}

func TestCSVStats(t *testing.T) {
	box, _ := demo.Toolbox()
	tests := []struct {
		name, csv, want, err string
	}{
		{name: "header only", csv: "a,b\n", want: `{"rows":0,"columns":["a","b"],"sums":{}}`},
		{name: "mixed", csv: "a,b,c\n1,x,2.5\n2,y,0.25\n", want: `{"rows":2,"columns":["a","b","c"],"sums":{"a":3,"c":2.75}}`},
		{name: "decimal rounding", csv: "p\n0.1\n0.2\n", want: `{"rows":2,"columns":["p"],"sums":{"p":0.3}}`},
		{name: "empty", csv: "", err: "empty"},
		{name: "ragged", csv: "a,b\n1\n", err: "reading the CSV"},
		{name: "bad quote", csv: "a\n\"x\n", err: "reading the CSV"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"csv": tc.csv})
			out, err := call(t, box, "csv_stats", string(args))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(out.JSON))
		})
	}
}

func TestRenderChart(t *testing.T) {
	box, _ := demo.Toolbox()
	out, err := call(t, box, "render_chart", `{"values":[3,-1,4,1,5],"width":100,"height":60}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"width":100,"height":60,"bars":5}`, string(out.JSON))
	require.Len(t, out.Media, 1)
	require.Equal(t, "image/png", out.Media[0].MIME)
	img, err := png.Decode(bytes.NewReader(out.Media[0].Data))
	require.NoError(t, err)
	require.Equal(t, 100, img.Bounds().Dx())
	require.Equal(t, 60, img.Bounds().Dy())
	r, g, b, _ := img.At(0, 0).RGBA()
	require.Equal(t, [3]uint32{0xffff, 0xffff, 0xffff}, [3]uint32{r, g, b}, "the corner is background")

	out, err = call(t, box, "render_chart", `{"values":[0]}`)
	require.NoError(t, err, "all-zero values draw only the axis")
	require.JSONEq(t, `{"width":320,"height":200,"bars":1}`, string(out.JSON))

	for _, args := range []string{`{"values":[]}`, `{"values":[1],"width":8}`, `{"values":[1],"height":2000}`,
		fmt.Sprintf(`{"values":[%s1]}`, strings.Repeat("1,", 256))} {
		_, err := call(t, box, "render_chart", args)
		require.Error(t, err, args)
	}
}

func TestSendMessage(t *testing.T) {
	box, st := demo.Toolbox()
	out, err := call(t, box, "send_message", `{"to":"ops","text":"héllo"}`)
	require.NoError(t, err)
	res := decode[demo.SendMessageOut](t, out)
	require.True(t, strings.HasPrefix(res.ID, "msg_"))
	require.Equal(t, 5, res.Chars)
	msgs := st.Messages(demo.DefaultTenant)
	require.Len(t, msgs, 1)
	require.Equal(t, demo.Message{ID: res.ID, To: "ops", Text: "héllo", Sent: msgs[0].Sent}, msgs[0])

	for _, args := range []string{`{"to":"","text":"x"}`, `{"to":"a","text":""}`,
		fmt.Sprintf(`{"to":"a","text":%q}`, strings.Repeat("x", 4001))} {
		_, err := call(t, box, "send_message", args)
		require.Error(t, err, args)
	}
	require.Len(t, st.Messages(demo.DefaultTenant), 1)

	for range demo.MaxMessages + 5 {
		_, err := call(t, box, "send_message", `{"to":"a","text":"b"}`)
		require.NoError(t, err)
	}
	require.Len(t, st.Messages(demo.DefaultTenant), demo.MaxMessages, "the log is bounded")
}

func TestSlow(t *testing.T) {
	box, _ := demo.Toolbox()
	e, _ := box.Lookup("slow")
	start := time.Now()
	out, err := e.Tool().Call(context.Background(), json.RawMessage(`{"ms":20}`))
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
	require.JSONEq(t, `{"slept_ms":20}`, string(out.JSON))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = e.Tool().Call(ctx, json.RawMessage(`{"ms":60000}`))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 5*time.Second)

	for _, args := range []string{`{"ms":-1}`, `{"ms":60001}`} {
		_, err := e.Tool().Call(context.Background(), json.RawMessage(args))
		require.ErrorContains(t, err, "ms must be", args)
	}
}

func TestFail(t *testing.T) {
	box, _ := demo.Toolbox()
	_, err := call(t, box, "fail", `{}`)
	require.EqualError(t, err, "demo failure: the fail tool always fails")
	_, err = call(t, box, "fail", `{"message":"boom"}`)
	require.EqualError(t, err, "demo failure: boom")
}

// TestThroughInvoker runs the demo tools the way a chain does: the CSV comes
// back as an artifact and goes into csv_stats as a ref; the chart becomes a
// file; send_message needs approval.
func TestThroughInvoker(t *testing.T) {
	ctx := context.Background()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	box, st := demo.Toolbox()
	var asked []invoker.ApprovalRequest
	inv, err := invoker.New(box, invoker.Options{Store: store,
		Approver: invoker.ApprovalFunc(func(ctx context.Context, req invoker.ApprovalRequest) (invoker.Decision, error) {
			asked = append(asked, req)
			return invoker.Approved, nil
		})})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{Tenant: "acme"})
	defer sess.Close(ctx)

	res := inv.Invoke(ctx, sess, invoker.Call{Tool: "make_csv", Args: json.RawMessage(`{"rows":500}`)})
	require.True(t, res.OK(), res.Message)
	require.NotNil(t, res.Artifact)
	require.Equal(t, "text/plain; charset=utf-8", res.Artifact.MIME)
	require.True(t, strings.HasPrefix(res.Artifact.Preview, "id,region,units,price\n1,"))

	args, _ := json.Marshal(map[string]any{"csv": res.Artifact})
	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "csv_stats", Args: args})
	require.True(t, res.OK(), res.Message)
	var stats demo.CSVStatsOut
	require.NoError(t, json.Unmarshal(res.Value, &stats))
	require.Equal(t, 500, stats.Rows)

	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "render_chart", Args: json.RawMessage(`{"values":[1,2,3]}`)})
	require.True(t, res.OK(), res.Message)
	require.Len(t, res.Files, 1)
	require.Equal(t, "/workspace/media/render_chart_0.png", res.Files[0].Path)
	rc, attrs, err := store.Open(ctx, "acme", res.Files[0].Ref)
	require.NoError(t, err)
	data, _ := io.ReadAll(rc)
	rc.Close()
	require.Equal(t, "image/png", attrs.ContentType)
	_, err = png.Decode(bytes.NewReader(data))
	require.NoError(t, err)

	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "send_message", Args: json.RawMessage(`{"to":"ops","text":"deploy done"}`)})
	require.True(t, res.OK(), res.Message)
	require.Len(t, asked, 1)
	require.Equal(t, `{"text":"deploy done","to":"ops"}`, string(asked[0].Args))
	require.Equal(t, toolbox.High, asked[0].Risk)
	require.Len(t, st.Messages("acme"), 1, "recorded under the chain's tenant")
	require.Empty(t, st.Messages(demo.DefaultTenant))

	res = inv.Invoke(ctx, sess, invoker.Call{Tool: "fail"})
	require.Equal(t, invoker.ReasonToolError, res.Reason)

	noApprover, err := invoker.New(box, invoker.Options{})
	require.NoError(t, err)
	res = noApprover.Invoke(ctx, sess, invoker.Call{Tool: "send_message", Args: json.RawMessage(`{"to":"ops","text":"x"}`)})
	require.Equal(t, invoker.ReasonNoApprovalHandler, res.Reason)
	require.Len(t, st.Messages("acme"), 1)
}

func TestConcurrentUse(t *testing.T) {
	box, st := demo.Toolbox()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				args := fmt.Sprintf(`{"key":"k%d","value":%d}`, i%10, g)
				_, err := call(t, box, "kv_set", args)
				require.NoError(t, err)
				_, err = call(t, box, "kv_get", fmt.Sprintf(`{"key":"k%d"}`, i%10))
				require.NoError(t, err)
				_, err = call(t, box, "send_message", `{"to":"a","text":"b"}`)
				require.NoError(t, err)
			}
		})
	}
	wg.Wait()
	require.Len(t, st.Messages(demo.DefaultTenant), 400)
}

func TestWeather(t *testing.T) {
	box, _ := demo.Toolbox()
	tool, ok := box.Get("weather")
	require.True(t, ok)
	out, err := tool.Call(context.Background(), json.RawMessage(`{"city":"Lima"}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"city":"Lima","temp_c":19}`, string(out.JSON))
	_, err = tool.Call(context.Background(), json.RawMessage(`{"city":"Atlantis"}`))
	require.ErrorContains(t, err, `no demo station in "Atlantis"`)
}

func caller(tenant string) toolbox.StaticCaller {
	return toolbox.StaticCaller{ChainID: "s_" + tenant, TenantID: tenant}
}

// TestTenantsAreApart: one tenant's keys and messages are invisible to
// another, and filling one tenant's store leaves the others usable.
func TestTenantsAreApart(t *testing.T) {
	box, st := demo.Toolbox()
	set, _ := box.Get("kv_set")
	get, _ := box.Get("kv_get")
	send, _ := box.Get("send_message")
	acme := toolbox.WithCaller(context.Background(), caller("acme"))
	globex := toolbox.WithCaller(context.Background(), caller("globex"))

	_, err := set.Call(acme, json.RawMessage(`{"key":"secret","value":"acme-only"}`))
	require.NoError(t, err)
	out, err := get.Call(globex, json.RawMessage(`{"key":"secret"}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"key":"secret","found":false,"value":null}`, string(out.JSON))
	out, err = get.Call(acme, json.RawMessage(`{"key":"secret"}`))
	require.NoError(t, err)
	require.Contains(t, string(out.JSON), "acme-only")

	for i := 0; i < demo.MaxKeys; i++ {
		_, err := set.Call(acme, json.RawMessage(fmt.Sprintf(`{"key":"k%d","value":1}`, i)))
		if err != nil {
			require.ErrorContains(t, err, "full")
			break
		}
	}
	_, err = set.Call(globex, json.RawMessage(`{"key":"mine","value":1}`))
	require.NoError(t, err, "another tenant's full store does not block this one")

	_, err = send.Call(acme, json.RawMessage(`{"to":"ops","text":"hi"}`))
	require.NoError(t, err)
	require.Len(t, st.Messages("acme"), 1)
	require.Empty(t, st.Messages("globex"))
}
