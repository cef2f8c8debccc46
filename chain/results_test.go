package chain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

type item struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Score int    `json:"score"`
	Note  string `json:"note"`
}

// largeEnv is a runner whose tools return large results: list({n}) gives n
// items of ~100 bytes, count({items}) counts what it received.
func largeEnv(t *testing.T, p invoker.Policy) (*chain.Runner, *blobstore.Store) {
	t.Helper()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	box, err := toolbox.New(
		toolbox.Func("list", "Lists n items", func(_ context.Context, in struct {
			N int `json:"n"`
		}) ([]item, error) {
			out := make([]item, in.N)
			for i := range out {
				out[i] = item{ID: i, Name: fmt.Sprintf("item-%05d", i), Score: i % 97, Note: "a note of some fifty characters, to make it large"}
			}
			return out, nil
		}),
		toolbox.Func("count", "Counts items", func(_ context.Context, in struct {
			Items []item `json:"items"`
		}) (int, error) {
			return len(in.Items), nil
		}),
		toolbox.Func("plot", "Lists n items and draws them", func(_ context.Context, in struct {
			N int `json:"n"`
		}) (toolbox.MediaResult[[]item], error) {
			out := make([]item, in.N)
			for i := range out {
				out[i] = item{ID: i, Name: fmt.Sprintf("item-%05d", i)}
			}
			return toolbox.MediaResult[[]item]{Value: out, Media: []toolbox.Media{{MIME: "image/png", Data: []byte("\x89PNG")}}}, nil
		}),
	)
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{Store: store, Policy: p})
	require.NoError(t, err)
	r, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	return r, store
}

// TestLargeResultsAsValues: a 200 KB list is stored and pinned like any
// offloaded result, yet the script filters it as a plain value, and what it
// passes on is what it holds, edits included.
func TestLargeResultsAsValues(t *testing.T) {
	r, _ := largeEnv(t, invoker.Policy{})
	res, err := r.Run(context.Background(), sandbox.Script{Source: `
		const items = await tools.list({n: 2000});
		const top = items.filter((x) => x.score > 90).map((x) => x.id);
		const passed = await tools.count({items});
		items.length = 5;
		const edited = await tools.count({items});
		return {top: top.length, passed, edited};`}, chain.Options{Tenant: "acme"})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `{"top":120,"passed":2000,"edited":5}`, string(res.Value))
	require.Len(t, res.Artifacts, 1, "the list was stored")
	require.Greater(t, res.Artifacts[0].Size, int64(200_000))
	require.Len(t, res.Trace, 3)
	require.Equal(t, []string{res.Artifacts[0].Ref}, res.Trace[0].Refs)
}

// TestLargeMediaResults: a large value that comes with files keeps them,
// in both forms.
func TestLargeMediaResults(t *testing.T) {
	for name, p := range map[string]invoker.Policy{"plain": {}, "strict": {MaxGuestValueBytes: invoker.DefaultMaxInlineResultBytes}} {
		t.Run(name, func(t *testing.T) {
			r, _ := largeEnv(t, p)
			res, err := r.Run(context.Background(), sandbox.Script{Source: `
				const out = await tools.plot({n: 500});
				const list = Array.isArray(out.value) ? out.value : await out.value.json();
				return {n: list.length, files: out.files.map((f) => f.mime), artifact: typeof out.value.text};`}, chain.Options{Tenant: "acme"})
			require.NoError(t, err)
			require.Equal(t, chain.StatusOK, res.Status, res.Error)
			want := map[string]string{"plain": "undefined", "strict": "function"}[name]
			require.JSONEq(t, `{"n":500,"files":["image/png"],"artifact":"`+want+`"}`, string(res.Value))
		})
	}
}

// TestLargeResultsAsArtifacts: above max_guest_value_bytes (here the strict
// form, equal to the inline limit) the script gets an Artifact whose
// content it reads with text(), json() and bytes(); reads of foreign refs
// and past max_read_bytes are refused with their reasons.
func TestLargeResultsAsArtifacts(t *testing.T) {
	r, _ := largeEnv(t, invoker.Policy{MaxGuestValueBytes: invoker.DefaultMaxInlineResultBytes})
	res, err := r.Run(context.Background(), sandbox.Script{Source: `
		const a = await tools.list({n: 2000});
		const keys = Object.keys(a).sort();
		const list = await a.json();
		const text = await a.text();
		const bytes = await a.bytes();
		const passed = await tools.count({items: a});
		const Artifact = Object.getPrototypeOf(a).constructor;
		let foreign;
		try { await new Artifact({$artifact: "blob_not_ours"}).text(); } catch (e) { foreign = [e.name, e.reason, e.ref]; }
		return {keys, isList: Array.isArray(a), n: list.length, same: text.length === a.size && bytes.length === a.size,
			first: bytes[0] === 91, passed, foreign, preview: a.preview.slice(0, 9)};`}, chain.Options{Tenant: "acme"})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `{"keys":["$artifact","mime","preview","size"],"isList":false,"n":2000,"same":true,"first":true,
		"passed":2000,"foreign":["ArtifactError","artifact_not_found","blob_not_ours"],"preview":"[{\"id\":0,"}`, string(res.Value))

	// The read budget: the second read of a 200 KB artifact passes 300 KB.
	res, err = r.Run(context.Background(), sandbox.Script{Source: `
		const a = await tools.list({n: 2000});
		await a.text();
		try { await a.text(); } catch (e) { return [e.reason, e.message.includes("max_read_bytes")]; }`},
		chain.Options{Tenant: "acme", Limits: sandbox.Limits{MaxReadBytes: 300_000}})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `["read_limit", true]`, string(res.Value))

	// Larger than the guest's memory: too large, whatever the budget.
	res, err = r.Run(context.Background(), sandbox.Script{Source: `
		const a = await tools.list({n: 30000});
		try { await a.text(); } catch (e) { return e.reason; }`},
		chain.Options{Tenant: "acme", Limits: sandbox.Limits{MemoryBytes: 2 << 20}})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	require.JSONEq(t, `"artifact_too_large"`, string(res.Value))
}

// TestLargeFinalValue: a final value above max_final_value_bytes comes back
// as a stored artifact (ref and preview) whose content is the value.
func TestLargeFinalValue(t *testing.T) {
	r, store := largeEnv(t, invoker.Policy{})
	res, err := r.Run(context.Background(), sandbox.Script{Source: `
		const items = await tools.list({n: 6000});
		return items.map((x) => x.name);`}, chain.Options{Tenant: "acme"})
	require.NoError(t, err)
	require.Equal(t, chain.StatusOK, res.Status, res.Error)
	var a invoker.Artifact
	require.NoError(t, json.Unmarshal(res.Value, &a))
	require.NotEmpty(t, a.Ref)
	require.Equal(t, "application/json", a.MIME)
	require.Equal(t, `["item-00000","item-00001"`, a.Preview[:26])
	require.Len(t, res.Artifacts, 2, "the list and the final value")
	rc, _, err := store.Open(context.Background(), "acme", a.Ref)
	require.NoError(t, err)
	defer rc.Close()
	body, err := io.ReadAll(rc)
	require.NoError(t, err)
	var names []string
	require.NoError(t, json.Unmarshal(body, &names))
	require.Len(t, names, 6000)
	require.EqualValues(t, len(body), a.Size)

	// A small final value is returned as it is.
	res, err = r.Run(context.Background(), sandbox.Script{Source: `return (await tools.list({n: 2000})).length`}, chain.Options{Tenant: "acme"})
	require.NoError(t, err)
	require.JSONEq(t, `2000`, string(res.Value))
}
