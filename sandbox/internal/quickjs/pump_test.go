package quickjs

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPump delivers values of every size to a global function, as the
// sandbox delivers completions: each parsed as JSON.parse parses it, from
// the scratch buffer or from an allocation, the jobs it queues run before
// Pump returns, a value that does not parse or a function that throws is
// an exception, and the function survives a Snapshot.
func TestPump(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 32<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	exc, text, err := in.Eval(ctx, `
		let got = [];
		Object.defineProperty(globalThis, "deliver", { value: (a, b, v, w) => {
			if (a === 9) throw new Error("thrown " + b + " " + w);
			got.push(w === undefined ? [a, b, JSON.stringify(v)] : [a, b, JSON.stringify(v), w]);
			Promise.resolve().then(() => got.push("job"));
		} });`, "test.js")
	require.NoError(t, err)
	require.False(t, exc, text)
	fn, err := in.GlobalFunc(ctx, "deliver")
	require.NoError(t, err)
	big := `{"s":"` + strings.Repeat("é", 400) + `"}`
	for _, tt := range []struct {
		a, b int32
		json string
		want string
	}{
		{1, 1, `{}`, `[[1,1,"{}"],"job"]`},
		{2, 0, `{"status":"error","reason":"x"}`, `[[2,0,"{\"status\":\"error\",\"reason\":\"x\"}"],"job"]`},
		{3, 1, `[1,"a\u0000b",null]`, `[[3,1,"[1,\"a\\u0000b\",null]"],"job"]`},
		{4, 1, big, `[[4,1,` + mustJSON(t, big) + `],"job"]`},
		{0, 0, "", `[[0,0,null],"job"]`}, // no payload: undefined
	} {
		var payload []byte
		if tt.json != "" {
			payload = []byte(tt.json)
		}
		exc, text, err := in.Pump(ctx, fn, tt.a, tt.b, payload, nil)
		require.NoError(t, err)
		require.False(t, exc, text)
		require.Equal(t, tt.want, evalText(t, in, "{ const g = got; got = []; throw JSON.stringify(g) }"))
	}
	exc, text, err = in.Pump(ctx, fn, 1, 1, []byte(`{"a":`), nil)
	require.NoError(t, err)
	require.True(t, exc)
	require.Contains(t, text, "SyntaxError")
	exc, text, err = in.Pump(ctx, fn, 9, 7, []byte(`1`), []byte(`[2]`))
	require.NoError(t, err)
	require.True(t, exc)
	require.Equal(t, "Error: thrown 7 2", text)

	_, err = in.GlobalFunc(ctx, "undefinedGlobal")
	require.ErrorIs(t, err, ErrGuest)

	snap, err := rt.Snapshot(ctx, in)
	require.NoError(t, err)
	in2, err := rt.Restore(ctx, snap)
	require.NoError(t, err)
	defer in2.Close(ctx)
	fn2, err := in2.GlobalFunc(ctx, "deliver")
	require.NoError(t, err)
	require.Equal(t, fn, fn2)
	exc, text, err = in2.Pump(ctx, fn2, 5, 1, []byte(`"x"`), []byte(`[[1,0,null,-1,-1]]`))
	require.NoError(t, err)
	require.False(t, exc, text)
	require.Equal(t, `[[5,1,"\"x\"",[[1,0,null,-1,-1]]],"job"]`, evalText(t, in2, "throw JSON.stringify(got)"))
}

func mustJSON(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
