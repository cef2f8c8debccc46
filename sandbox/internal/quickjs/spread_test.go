package quickjs

import (
	"bytes"
	"context"
	"testing"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"

	"github.com/stretchr/testify/require"
)

// TestStringSpread: object spread and object rest of a string copy its
// UTF-16 units as indexed properties (ECMAScript's CopyDataProperties takes
// ToObject of its source), for flat strings and ropes alike; every other
// source behaves as before. The expected values are what V8 gives.
func TestStringSpread(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	in, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	defer in.Close(ctx)
	for _, c := range []struct{ expr, want string }{
		{`({..."ab"})`, `{"0":"a","1":"b"}`},
		{`({...""})`, `{}`},
		{`({..."😀"}).hasOwnProperty(1) && ({..."😀"})[1] === "\ude00"`, `true`},
		{`({..."a".repeat(3) + "b" + String(12)})`, `{"0":"a","1":"a","2":"a","3":"b","4":"1","5":"2"}`}, // a rope
		{`(() => { const {0: a, ...rest} = "xyz"; return [a, rest] })()`, `["x",{"1":"y","2":"z"}]`},
		{`(() => { const {length, ...rest} = "pq"; return [length, rest] })()`, `[2,{"0":"p","1":"q"}]`},
		{`({a: 1, ..."q", b: 2, ..."rs"})`, `{"0":"r","1":"s","a":1,"b":2}`},
		{`Object.keys({..."abc"}).join()`, `"0,1,2"`},
		{`({...5, ...true, ...null, ...undefined, ...1n, ...Symbol.iterator})`, `{}`},
		{`({...new String("ab"), ...Object("c")})`, `{"0":"c","1":"b"}`},
		{`({...{x: 1}, ...[7, 8]})`, `{"0":7,"1":8,"x":1}`},
		{`Object.getOwnPropertyDescriptor({..."a"}, 0).writable`, `true`},
	} {
		got := evalText(t, in, "throw JSON.stringify("+c.expr+")")
		require.Equal(t, c.want, got, c.expr)
	}

	// A string too large to spread within the memory limit fails as any
	// allocation past the limit does, and the instance stays usable.
	small, err := rt.NewInstance(ctx, 8<<20)
	require.NoError(t, err)
	defer small.Close(ctx)
	got := evalText(t, small, `let r; try { r = Object.keys({..."x".repeat(4e6)}).length } catch (e) { r = e.name } throw String(r)`)
	require.Contains(t, []string{"InternalError", "RangeError"}, got)
	require.Equal(t, `{"0":"o","1":"k"}`, evalText(t, small, `throw JSON.stringify({..."ok"})`))
}

// TestRewriteNeedsCopyData: the rewrite finds JS_CopyDataProperties by the
// module's name section and refuses a module without it, or with it under
// another type.
func TestRewriteNeedsCopyData(t *testing.T) {
	stripped := withoutNameSection(t, wasmBytes)
	_, _, err := Rewrite(stripped)
	require.ErrorContains(t, err, "names lack JS_CopyDataProperties")

	renamed := bytes.Replace(wasmBytes, []byte(copyDataName), []byte("JS_CopyDataPropertiez"), -1)
	require.NotEqual(t, wasmBytes, renamed)
	_, _, err = Rewrite(renamed)
	require.ErrorContains(t, err, "names lack JS_CopyDataProperties")

	// A name section naming two functions JS_CopyDataProperties is
	// refused rather than guessed from.
	rw := &rewriter{exports: map[string]uint32{}}
	names := appendNameEntry(appendNameEntry(appendU(nil, 2), 5, copyDataName), 6, copyDataName)
	sec := append(appendU(nil, 4), "name"...)
	sec = append(sec, 1)
	sec = appendU(sec, uint64(len(names)))
	sec = append(sec, names...)
	require.ErrorContains(t, rw.parseNames(sec), "two functions are named")

	// A truncated name entry is refused.
	rw = &rewriter{exports: map[string]uint32{}}
	require.Error(t, rw.parseNames(sec[:len(sec)-3]))
}

func appendNameEntry(b []byte, idx uint64, name string) []byte {
	b = appendU(b, idx)
	b = appendU(b, uint64(len(name)))
	return append(b, name...)
}

// withoutNameSection returns the module without its "name" custom section.
func withoutNameSection(t *testing.T, wasm []byte) []byte {
	t.Helper()
	out := append([]byte(nil), wasm[:8]...)
	dropped := false
	for rest := wasm[8:]; len(rest) > 0; {
		id := rest[0]
		size, n, err := wasmcode.ULEB(rest[1:])
		require.NoError(t, err)
		whole := rest[:1+n+int(size)]
		body := rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
		if id == 0 {
			l, k, err := wasmcode.ULEB(body)
			require.NoError(t, err)
			if string(body[k:k+int(l)]) == "name" {
				dropped = true
				continue
			}
		}
		out = append(out, whole...)
	}
	require.True(t, dropped, "the module has a name section")
	return out
}
