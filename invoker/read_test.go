package invoker_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/invoker"
)

// TestReadArtifact checks every answer of ReadArtifact: the content of a
// ref the session made, and each refusal with its reason and the size.
func TestReadArtifact(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, MaxResolvingBytes: 150,
		Policy: invoker.Policy{MaxInlineResultBytes: 64, MaxGuestValueBytes: 64}})
	sess := newSession(inv, "acme")
	res := inv.Invoke(context.Background(), sess, call("big", `{"n":100}`))
	require.True(t, res.OK(), res.Message)
	ref := res.Artifact.Ref

	data, size, r := inv.ReadArtifact(context.Background(), sess, ref, 100)
	require.True(t, r.OK(), r.Message)
	require.EqualValues(t, 98, size, "the stored text: the JSON string's content")
	require.Equal(t, strings.Repeat("x", 98), string(data))

	_, size, r = inv.ReadArtifact(context.Background(), sess, ref, 97)
	require.Equal(t, invoker.ReasonArtifactTooLarge, r.Reason)
	require.EqualValues(t, 98, size)

	other := newSession(inv, "acme") // same tenant, another chain
	_, _, r = inv.ReadArtifact(context.Background(), other, ref, 1000)
	require.Equal(t, invoker.ReasonArtifactNotFound, r.Reason)
	_, _, r = inv.ReadArtifact(context.Background(), sess, "blob_nope", 1000)
	require.Equal(t, invoker.ReasonArtifactNotFound, r.Reason)

	res = inv.Invoke(context.Background(), sess, call("big", `{"n":200}`))
	require.True(t, res.OK(), res.Message)
	_, _, r = inv.ReadArtifact(context.Background(), sess, res.Artifact.Ref, 1000)
	require.Equal(t, invoker.ReasonHostBusy, r.Reason, "198 bytes pass the process-wide 150")

	noStore := f.invoker(t, invoker.Options{})
	_, _, r = noStore.ReadArtifact(context.Background(), newSession(noStore, "acme"), ref, 1000)
	require.Equal(t, invoker.ReasonArtifactNotFound, r.Reason)
}

// TestShapeFinal checks the final value's shaping: as it is up to
// MaxFinalValueBytes, stored above it, and as it is (with the reason) when
// storing is refused.
func TestShapeFinal(t *testing.T) {
	f := newFixture(t)
	inv := f.invoker(t, invoker.Options{Store: f.store, Policy: invoker.Policy{MaxFinalValueBytes: 10, MaxArtifactBytes: 50}})
	sess := newSession(inv, "acme")
	small := json.RawMessage(`"0123456789"`[1:11]) // 10 bytes: 0123456789
	v, a, r := inv.ShapeFinal(context.Background(), sess, small)
	require.True(t, r.OK())
	require.Nil(t, a)
	require.Equal(t, small, v)

	big := json.RawMessage(`[1,2,3,4,5,6,7]`)
	v, a, r = inv.ShapeFinal(context.Background(), sess, big)
	require.True(t, r.OK(), r.Message)
	require.NotNil(t, a)
	require.Equal(t, "application/json", a.MIME)
	require.JSONEq(t, `{"$artifact":"`+a.Ref+`","preview":"[1,2,3,4,5,6,7]","size":15,"mime":"application/json"}`, string(v))
	require.Equal(t, []string{a.Ref}, sess.Pinned())

	huge := json.RawMessage(`"` + strings.Repeat("y", 60) + `"`)
	v, a, r = inv.ShapeFinal(context.Background(), sess, huge)
	require.Equal(t, invoker.ReasonQuotaExceeded, r.Reason, "60 bytes pass the chain's 50 with 15 stored")
	require.Nil(t, a)
	require.Equal(t, huge, v, "returned as it is")
}
