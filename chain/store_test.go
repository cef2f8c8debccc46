package chain_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/toolbox"
)

// TestOffloadResolveOnRealStores is the blob store's integration with the
// invoker, on the embedded filesystem driver and on a real MinIO: a tool
// returns 5 MiB, the chain gets a ref and passes it to a second tool, which
// receives the bytes; while the chain runs the blob survives a sweep even
// past its TTL (it is pinned); once the chain ends it is unpinned and the
// sweeper removes it after the TTL.
func TestOffloadResolveOnRealStores(t *testing.T) {
	drivers := map[string]func(t *testing.T) blobstore.Driver{
		"fs": func(t *testing.T) blobstore.Driver {
			d, err := fsblob.New(t.TempDir())
			require.NoError(t, err)
			return d
		},
		"s3": func(t *testing.T) blobstore.Driver {
			cfg, err := s3blob.ConfigFromEnv()
			if err != nil || cfg.Endpoint == "" {
				if os.Getenv("CI") == "true" {
					t.Fatalf("CI=true but no MinIO (%v): run the tests with scripts/minio.sh run -- go test ./...", err)
				}
				t.Skip("no S3 endpoint: run scripts/minio.sh run -- go test ./chain/")
			}
			var b [6]byte
			_, _ = rand.Read(b[:])
			cfg.Bucket = "airlock-chain-" + hex.EncodeToString(b[:])
			d, err := s3blob.New(context.Background(), cfg)
			require.NoError(t, err)
			t.Cleanup(func() {
				_ = d.Client().RemoveBucketWithOptions(context.Background(), cfg.Bucket, minio.RemoveBucketOptions{ForceDelete: true})
			})
			return d
		},
	}
	for name, open := range drivers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var skew atomic.Int64 // how far the store's clock is ahead
			const ttl = time.Hour
			store := blobstore.New(open(t), blobstore.Options{TTL: ttl,
				Clock: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
			t.Cleanup(func() { _ = store.Close() })

			var received atomic.Int64
			var probe atomic.Value // what the mid-chain sweep saw
			box, err := toolbox.New(
				toolbox.Func("blob", "Returns MiB mebibytes of text", func(_ context.Context, in blobIn) (string, error) {
					return strings.Repeat("z", in.MiB<<20), nil
				}),
				toolbox.Func("size", "Measures text", func(_ context.Context, in sizeIn) (int, error) {
					received.Store(int64(len(in.Text)))
					return len(in.Text), nil
				}),
				toolbox.Func("sweep_past_ttl", "Sweeps as if the TTL had passed", func(ctx context.Context, in struct {
					Ref string `json:"ref"`
				}) (bool, error) {
					skew.Store(int64(2 * ttl))
					defer skew.Store(0)
					if _, err := store.Sweep(ctx); err != nil {
						return false, err
					}
					_, err := store.Stat(ctx, "acme", in.Ref)
					probe.Store(err == nil)
					return err == nil, nil
				}),
			)
			require.NoError(t, err)
			inv, err := invoker.New(box, invoker.Options{Store: store})
			require.NoError(t, err)
			r, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
			require.NoError(t, err)

			res, err := r.Run(ctx, sandbox.Script{Source: `
				const big = await tools.blob({mib: 5});
				const survived = await tools.sweep_past_ttl({ref: big.$artifact});
				const n = await tools.size({text: big});
				return {ref: big.$artifact, size: big.size, n, survived};`}, chain.Options{Tenant: "acme"})
			require.NoError(t, err)
			require.Equal(t, chain.StatusOK, res.Status, res.Error)
			var v struct {
				Ref      string
				Size, N  int
				Survived bool
			}
			require.NoError(t, json.Unmarshal(res.Value, &v))
			require.Equal(t, 5<<20, v.Size)
			require.Equal(t, 5<<20, v.N)
			require.EqualValues(t, 5<<20, received.Load())
			require.True(t, v.Survived, "a pinned blob survives a sweep past its TTL")

			// The chain is over: unpinned, but within its TTL the blob stays.
			attrs, err := store.Stat(ctx, "acme", v.Ref)
			require.NoError(t, err)
			require.EqualValues(t, 5<<20, attrs.Size)
			_, err = store.Sweep(ctx)
			require.NoError(t, err)
			_, err = store.Stat(ctx, "acme", v.Ref)
			require.NoError(t, err)

			// Past the TTL the sweeper removes it.
			skew.Store(int64(2 * ttl))
			stats, err := store.Sweep(ctx)
			require.NoError(t, err)
			require.GreaterOrEqual(t, stats.Removed, 1)
			skew.Store(0)
			_, err = store.Stat(ctx, "acme", v.Ref)
			require.ErrorIs(t, err, blobstore.ErrNotFound)
		})
	}
}
