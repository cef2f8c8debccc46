package approval_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/invoker"
)

// TestRequestText: a pending request carries, beside its exact arguments,
// args_text: what a person reads, with a bidirectional override escaped
// and padding counted; larger arguments show their preview rendered and
// say how many bytes are not shown and where they all are. The exact
// bytes and their hash do not change.
func TestRequestText(t *testing.T) {
	ctx := context.Background()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	q := approval.NewQueue(approval.Options{Store: store, PreviewBytes: 64})

	args := "{\"to\":\"ops\u202egnp.exe\",\"x\":\"" + strings.Repeat(" ", 20) + "\"}"
	r := request("acme", args)
	small, ch := park(t, ctx, q, r)
	require.Equal(t, args, string(small.Args), "the exact arguments")
	require.Equal(t, r.ArgsHash, small.ArgsHash)
	require.Equal(t, `{"to":"ops\u202egnp.exe","x":"⟨20 spaces⟩"}`, small.Text())
	b, err := json.Marshal(small)
	require.NoError(t, err)
	var wire struct {
		Args     json.RawMessage `json:"args"`
		ArgsText string          `json:"args_text"`
	}
	require.NoError(t, json.Unmarshal(b, &wire))
	require.Equal(t, small.Text(), wire.ArgsText)
	require.Equal(t, args, string(wire.Args), "the raw arguments are there too")
	_, err = q.Decide("acme", small.ID, invoker.Denied, small.ArgsHash)
	require.NoError(t, err)
	<-ch

	large, ch := park(t, ctx, q, request("acme", `{"body":"`+"\u202e"+strings.Repeat("y", 100)+`"}`))
	require.Equal(t, `{"body":"\u202e`+strings.Repeat("y", 52)+`⟨50 more bytes not shown: the whole arguments are in args_ref `+large.ArgsRef+`⟩`, large.Text())
	_, err = q.Decide("acme", large.ID, invoker.Denied, large.ArgsHash)
	require.NoError(t, err)
	<-ch
}
