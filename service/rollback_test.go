package service_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// Rollback of a parked chain by a bucket writer (THREATS.md, T3;
// docs/durability.md, "Rollback"), end to end through the service.

// sendProc is one process of a small fleet, and how many times its
// HIGH-risk "send" ran.
type sendProc struct {
	svc  *service.Service
	sent *atomic.Int32
}

func newSendProc(t *testing.T, drv blobstore.Driver, node string, sent *atomic.Int32) sendProc {
	t.Helper()
	bs := blobstore.New(drv, blobstore.Options{})
	fleet, err := durable.New(durable.Options{Blobs: bs, Key: faultsKey, Node: node})
	require.NoError(t, err)
	require.NoError(t, fleet.CheckStore(t.Context()))
	box, _ := demo.Toolbox()
	require.NoError(t, box.Add(toolbox.Func("send", "Sends a message", func(_ context.Context, in struct {
		To string `json:"to"`
	}) (string, error) {
		sent.Add(1)
		return "sent " + in.To, nil
	}).WithRisk(toolbox.High)))
	queue := approval.NewQueue(approval.Options{})
	outcomes, err := govern.NewStoreOutcomes(bs, govern.StoreOutcomesOptions{Keys: [][]byte{faultsKey}})
	require.NoError(t, err)
	inv, err := invoker.New(box, invoker.Options{Approver: queue, Store: bs, Governor: govern.New(govern.Options{Outcomes: outcomes})})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	svc, err := service.New(runner, service.Options{Queue: queue, Fleet: fleet, Park: true, ParkTTL: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Close(ctx)
	})
	return sendProc{svc, sent}
}

// lockedDrivers are the stores that lock versions the test runs on:
// memblob's model, and a fresh MinIO bucket when AIRLOCK_S3_ENDPOINT is
// set (scripts/minio.sh). Each call of open is another process.
func lockedDrivers(t *testing.T) map[string]func() blobstore.Driver {
	mem := memblob.New()
	out := map[string]func() blobstore.Driver{"mem": func() blobstore.Driver { return mem.Reopen() }}
	if os.Getenv(s3blob.EnvEndpoint) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but AIRLOCK_S3_ENDPOINT is unset: run the tests with scripts/minio.sh run -- go test ./service/")
		}
		t.Log("no MinIO: the s3 half is skipped (scripts/minio.sh run -- go test ./service/)")
		return out
	}
	cfg, err := s3blob.ConfigFromEnv()
	require.NoError(t, err)
	var b [6]byte
	_, _ = rand.Read(b[:])
	cfg.Bucket = "airlock-service-" + hex.EncodeToString(b[:])
	out["s3"] = func() blobstore.Driver {
		d, err := s3blob.New(context.Background(), cfg)
		require.NoError(t, err)
		return d
	}
	return out
}

const sendScript = `return await tools.send({to: "ops"})`

func submitSend(t *testing.T, p sendProc, tenant string) service.ChainView {
	t.Helper()
	v, err := p.svc.Submit(context.Background(), service.Caller{Tenant: tenant, Role: service.RoleAll},
		&service.SubmitRequest{Script: sendScript}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status)
	return v
}

// TestRolledBackChainRunsApprovedCallOnce (was the hostile review's
// TestAttackRolledBackChainRunsApprovedCallTwice) — a chain parks, a
// person approves its call, it resumes and ends: "send" ran once. A
// bucket writer who copied the parked chain's objects deletes what came
// after (the end, the claim, the call's idempotency record) and puts the
// copies back (record, index entry, seal, state, pins). The chain's claim
// and end are locked versions read as first written: it stays ended, a
// resume on another process is refused, and "send" ran once. A healthy
// chain of another tenant finishes alongside.
func TestRolledBackChainRunsApprovedCallOnce(t *testing.T) {
	for name, open := range lockedDrivers(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			drv := open()
			var sent atomic.Int32
			a, b := newSendProc(t, drv, "node-a", &sent), newSendProc(t, open(), "node-b", &sent)
			g := submitSend(t, a, "globex") // a healthy chain alongside
			v := submitSend(t, a, "acme")
			req, err := a.svc.Approval(ctx, "acme", v.Pending[0].ID)
			require.NoError(t, err)
			_, err = a.svc.Decide(ctx, "acme", req.ID, service.Decision{Approve: true, ArgsHash: req.ArgsHash, Hold: true})
			require.NoError(t, err)

			// T3 copies the chain's objects.
			prefixes := []string{"r/acme/chains/" + v.ID + "/", "r/_fleet/live/acme/" + v.ID, "b/acme/"}
			cp := map[string][]byte{}
			for _, p := range prefixes {
				require.NoError(t, drv.List(ctx, p, func(e blobstore.Entry) error {
					rc, err := drv.Get(ctx, e.Key, 0, -1)
					if err != nil {
						return err
					}
					defer rc.Close()
					cp[e.Key], err = io.ReadAll(rc)
					return err
				}))
			}

			out, err := a.svc.Resume(ctx, "acme", v.ID)
			require.NoError(t, err)
			require.Equal(t, "ok", out.Status)
			require.EqualValues(t, 1, sent.Load())

			// T3 rolls the chain back, its idempotency record too.
			var gone []string
			for _, p := range []string{"r/acme/chains/" + v.ID + "/", "r/acme/idem/"} {
				require.NoError(t, drv.List(ctx, p, func(e blobstore.Entry) error {
					if _, ok := cp[e.Key]; !ok {
						gone = append(gone, e.Key)
					}
					return nil
				}))
			}
			require.NotEmpty(t, gone)
			for _, k := range gone {
				require.NoError(t, drv.Delete(ctx, k))
			}
			for k, v := range cp {
				require.NoError(t, drv.Put(ctx, k, strings.NewReader(string(v)), blobstore.PutOptions{}))
			}

			again, err := b.svc.Resume(ctx, "acme", v.ID)
			require.ErrorIs(t, err, service.ErrNotResumable, "the rolled-back chain is not resumed (it reads as %q)", again.Status)
			require.EqualValues(t, 1, sent.Load(), "the approved call ran once")
			view, err := b.svc.Chain(ctx, "acme", v.ID)
			require.NoError(t, err)
			require.Equal(t, "ok", view.Status, "the chain stays ended")

			req, err = a.svc.Approval(ctx, "globex", g.Pending[0].ID)
			require.NoError(t, err)
			_, err = a.svc.Decide(ctx, "globex", req.ID, service.Decision{Approve: true, ArgsHash: req.ArgsHash, Hold: true})
			require.NoError(t, err)
			out, err = b.svc.Resume(ctx, "globex", g.ID)
			require.NoError(t, err)
			require.Equal(t, "ok", out.Status, "the healthy chain finishes")
			require.EqualValues(t, 2, sent.Load())
		})
	}
}
