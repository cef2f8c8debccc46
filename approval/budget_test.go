package approval_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// argsOf returns canonical-looking arguments of exactly n bytes.
func argsOf(n int) string {
	const frame = `{"body":""}`
	return `{"body":"` + strings.Repeat("x", n-len(frame)) + `"}`
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestPreviewAndStoredArgs: arguments up to PreviewBytes stay whole in the
// request; one byte more and the queue keeps a preview, while the whole
// arguments go to the tenant's store, pinned until the request is settled.
func TestPreviewAndStoredArgs(t *testing.T) {
	ctx := context.Background()
	clk := &clock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	store := blobstore.New(memblob.New(), blobstore.Options{TTL: time.Hour, Clock: clk.Now})
	defer store.Close()
	q := approval.NewQueue(approval.Options{Store: store, PreviewBytes: 64})

	small, ch := park(t, ctx, q, request("acme", argsOf(64)))
	require.Equal(t, argsOf(64), string(small.Args), "at the preview size: kept whole")
	require.Empty(t, small.ArgsPreview)
	require.Empty(t, small.ArgsRef)
	_, err := q.Decide("acme", small.ID, invoker.Approved, small.ArgsHash)
	require.NoError(t, err)
	<-ch

	r := request("acme", argsOf(65))
	large, ch := park(t, ctx, q, r)
	require.Nil(t, large.Args, "one byte more: not kept in memory")
	require.Equal(t, argsOf(65)[:64], large.ArgsPreview)
	require.Equal(t, 65, large.ArgsSize)
	require.Len(t, large.ArgsRef, blobstore.RefLen)
	require.Equal(t, []approval.Request{large}, q.List("acme"), "listings carry the preview")
	b, err := json.Marshal(large)
	require.NoError(t, err)
	require.Contains(t, string(b), `"args_preview":`)
	require.Contains(t, string(b), `"args_ref":`)
	require.NotContains(t, string(b), `"args":`)

	// The whole arguments are in the tenant's store, and only there.
	rc, attrs, err := store.Open(ctx, "acme", large.ArgsRef)
	require.NoError(t, err)
	body, _ := io.ReadAll(rc)
	rc.Close()
	require.Equal(t, argsOf(65), string(body))
	require.Equal(t, large.ArgsHash, attrs.SHA256)
	require.Equal(t, "application/json", attrs.ContentType)
	_, err = store.Stat(ctx, "globex", large.ArgsRef)
	require.ErrorIs(t, err, blobstore.ErrNotFound)

	// Pinned while pending: it outlives the TTL.
	clk.Advance(2 * time.Hour)
	_, err = store.Stat(ctx, "acme", large.ArgsRef)
	require.NoError(t, err)

	out, err := q.Decide("acme", large.ID, invoker.Approved, large.ArgsHash)
	require.NoError(t, err)
	require.Equal(t, large.ArgsRef, out.Request.ArgsRef, "the decider sees what it decided")
	require.Equal(t, invoker.Approved, (<-ch).d)
	out, err = q.Decide("acme", large.ID, invoker.Approved, large.ArgsHash)
	require.ErrorIs(t, err, approval.ErrAlreadyDecided)
	require.Empty(t, out.Request.ArgsPreview, "a settled request keeps no preview")
	require.Empty(t, out.Request.ArgsRef)

	// Unpinned once settled (Approve has returned): it expires with the TTL.
	_, err = store.Stat(ctx, "acme", large.ArgsRef)
	require.NoError(t, err)
	clk.Advance(time.Hour)
	_, err = store.Stat(ctx, "acme", large.ArgsRef)
	require.ErrorIs(t, err, blobstore.ErrNotFound)
	require.Zero(t, q.Bytes())
}

// TestPreviewCutsAtCharacter: a preview never splits a UTF-8 sequence.
func TestPreviewCutsAtCharacter(t *testing.T) {
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	q := approval.NewQueue(approval.Options{Store: store, PreviewBytes: 10})
	args := `{"a":"ééééé"}` // é is 2 bytes: byte 10 is inside one
	req, ch := park(t, context.Background(), q, request("acme", args))
	require.Equal(t, `{"a":"éé`, req.ArgsPreview)
	q.Decide("acme", req.ID, invoker.Denied, req.ArgsHash)
	<-ch
}

// TestLargeArgsWithoutStore: without a store, arguments larger than the
// preview are refused, with a reason the chain may read; at the preview
// size they queue.
func TestLargeArgsWithoutStore(t *testing.T) {
	q := approval.NewQueue(approval.Options{})
	d, err := q.Approve(context.Background(), request("acme", argsOf(approval.DefaultPreviewBytes+1)))
	require.Equal(t, invoker.Denied, d)
	require.ErrorIs(t, err, approval.ErrArgsTooLarge)
	require.ErrorIs(t, err, invoker.ErrApprovalRefused)
	require.EqualError(t, err, "approval: the arguments are too large to queue for review: they are 4097 bytes, more than the 4096 a preview shows, and no blob store is configured to keep them for review")
	require.Zero(t, q.Len())
	require.Zero(t, q.Bytes())

	ctx, cancel := context.WithCancel(context.Background())
	req, ch := park(t, ctx, q, request("acme", argsOf(approval.DefaultPreviewBytes)))
	require.Len(t, req.Args, approval.DefaultPreviewBytes)
	cancel()
	<-ch
}

// TestPendingBytesBudget: the pending requests together hold at most
// MaxPendingBytes; a request that would pass it is refused and the others
// stay.
func TestPendingBytesBudget(t *testing.T) {
	// request("acme", `{"n":1}`): 7 bytes of args, a 26-byte id, tenant
	// "acme", session "s_1", tool "send_message", a 64-byte hash and the
	// fixed overhead.
	const charge = 7 + 26 + 4 + 3 + 12 + 64 + approval.RequestOverhead
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	q := approval.NewQueue(approval.Options{MaxPendingBytes: charge - 1})
	_, err := q.Approve(ctx, request("acme", `{"n":1}`))
	require.ErrorIs(t, err, approval.ErrQueueFull)
	require.EqualError(t, err, "approval: too many requests are waiting for a decision: the queue has no room for this request's 372 bytes (MaxPendingBytes 371)")

	q = approval.NewQueue(approval.Options{MaxPendingBytes: charge})
	first, ch := park(t, ctx, q, request("acme", `{"n":1}`))
	require.EqualValues(t, charge, q.Bytes(), "at the limit")
	_, err = q.Approve(ctx, request("globex", `{"n":2}`))
	require.ErrorIs(t, err, approval.ErrQueueFull)
	require.EqualError(t, err, "approval: too many requests are waiting for a decision: the queue has no room for this request's 374 bytes (MaxPendingBytes 372)")
	require.Equal(t, 1, q.Len())

	_, err = q.Decide("acme", first.ID, invoker.Denied, first.ArgsHash)
	require.NoError(t, err)
	<-ch
	require.Zero(t, q.Bytes(), "a settled request frees its bytes")
	_, ch = park(t, ctx, q, request("acme", `{"n":3}`))
	cancel()
	<-ch
}

// TestStoredArgsThroughInvoker: a risky call with large arguments is shown
// by preview and ref, approved on its hash, and runs with its whole
// arguments; without a store it is denied with a clear message.
func TestStoredArgsThroughInvoker(t *testing.T) {
	var got string
	send := toolbox.Func("send", "send a message", func(_ context.Context, in struct {
		Body string `json:"body"`
	}) (int, error) {
		got = in.Body
		return len(in.Body), nil
	}).WithRisk(toolbox.High)
	box, err := toolbox.New(send)
	require.NoError(t, err)
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()

	for _, withStore := range []bool{true, false} {
		opts := approval.Options{PreviewBytes: 32}
		if withStore {
			opts.Store = store
		}
		q := approval.NewQueue(opts)
		var seen approval.Request
		stop := q.Subscribe(func(ev approval.Event) {
			if ev.Kind == approval.Pending {
				seen = ev.Request
				go q.Decide(ev.Request.Tenant, ev.Request.ID, invoker.Approved, ev.Request.ArgsHash)
			}
		})
		inv, err := invoker.New(box, invoker.Options{Approver: q, Store: store})
		require.NoError(t, err)
		sess := inv.NewSession(session.Options{Tenant: "acme"})
		args := argsOf(100)
		res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "send", Args: json.RawMessage(args)})
		stop()
		require.NoError(t, sess.Close(context.Background()))
		if !withStore {
			require.Equal(t, invoker.ReasonApprovalFailed, res.Reason)
			require.Equal(t, `the approval request for "send" was refused (approval: the arguments are too large to queue for review: they are 100 bytes, more than the 32 a preview shows, and no blob store is configured to keep them for review); the call did not run`, res.Message)
			continue
		}
		require.True(t, res.OK(), res.Message)
		require.Equal(t, strings.Repeat("x", 100-11), got)
		require.Equal(t, args[:32], seen.ArgsPreview)
		sum := sha256.Sum256([]byte(args))
		require.Equal(t, hex.EncodeToString(sum[:]), seen.ArgsHash)
	}
}
