package blobstore_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/blobstore/storetest"
)

// Benchmarks for the blob hot paths. Run them against MinIO with
//
//	scripts/minio.sh run -- go test -run '^$' -bench . -benchtime 3x ./blobstore/
//
// "raw" is minio-go's PutObject/GetObject on the same data and server: the
// Store's S3 numbers are meant to be read as a ratio to it. The 256 MiB
// runs also report peak-heap-MiB, the most the heap grew during the run.

var benchSizes = []struct {
	name string
	size int64
}{
	{"1MiB", 1 << 20},
	{"256MiB", 256 << 20},
}

// s3BenchConfig returns the MinIO configuration with a fresh bucket, or
// skips the benchmark.
func s3BenchConfig(b *testing.B) s3blob.Config {
	b.Helper()
	if os.Getenv(s3blob.EnvEndpoint) == "" {
		if os.Getenv("CI") == "true" {
			b.Fatalf("CI=true but %s is unset; run: scripts/minio.sh run -- go test -bench . ./blobstore/", s3blob.EnvEndpoint)
		}
		b.Skipf("%s is unset; run: scripts/minio.sh run -- go test -bench . ./blobstore/", s3blob.EnvEndpoint)
	}
	cfg, err := s3blob.ConfigFromEnv()
	if err != nil {
		b.Fatal(err)
	}
	var r [6]byte
	_, _ = rand.Read(r[:])
	cfg.Bucket = "airlock-bench-" + hex.EncodeToString(r[:])
	b.Cleanup(func() {
		c := rawMinio(b, cfg)
		_ = c.RemoveBucketWithOptions(b.Context(), cfg.Bucket, minio.RemoveBucketOptions{ForceDelete: true})
	})
	return cfg
}

func rawMinio(b *testing.B, cfg s3blob.Config) *minio.Client {
	tr, err := minio.DefaultTransport(cfg.UseTLS)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(tr.CloseIdleConnections)
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:     credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:    cfg.UseTLS,
		Region:    cfg.Region,
		Transport: tr,
	})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// target is one thing to benchmark: put a blob, get it back, remove it.
type target struct {
	put    func(b *testing.B, r io.Reader, size int64) string
	get    func(b *testing.B, id string) io.ReadCloser
	remove func(b *testing.B, id string)
}

func storeTarget(s *blobstore.Store) target {
	return target{
		put: func(b *testing.B, r io.Reader, size int64) string {
			a, err := s.Put(b.Context(), "bench", r, "application/octet-stream")
			if err != nil {
				b.Fatal(err)
			}
			return a.Ref
		},
		get: func(b *testing.B, ref string) io.ReadCloser {
			rc, _, err := s.Open(b.Context(), "bench", ref)
			if err != nil {
				b.Fatal(err)
			}
			return rc
		},
		remove: func(b *testing.B, ref string) {
			if err := s.Delete(b.Context(), "bench", ref); err != nil {
				b.Fatal(err)
			}
		},
	}
}

func rawTarget(c *minio.Client, bucket string) target {
	n := 0
	return target{
		put: func(b *testing.B, r io.Reader, size int64) string {
			n++
			name := fmt.Sprintf("raw/%d", n)
			if _, err := c.PutObject(b.Context(), bucket, name, r, size, minio.PutObjectOptions{ContentType: "application/octet-stream"}); err != nil {
				b.Fatal(err)
			}
			return name
		},
		get: func(b *testing.B, name string) io.ReadCloser {
			o, err := c.GetObject(b.Context(), bucket, name, minio.GetObjectOptions{})
			if err != nil {
				b.Fatal(err)
			}
			return o
		},
		remove: func(b *testing.B, name string) {
			if err := c.RemoveObject(b.Context(), bucket, name, minio.RemoveObjectOptions{}); err != nil {
				b.Fatal(err)
			}
		},
	}
}

func targets(b *testing.B) map[string]func(b *testing.B) target {
	return map[string]func(b *testing.B) target{
		"fs": func(b *testing.B) target {
			d, err := fsblob.New(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			s := blobstore.New(d, blobstore.Options{})
			b.Cleanup(func() { s.Close() })
			return storeTarget(s)
		},
		"s3": func(b *testing.B) target {
			d, err := s3blob.New(b.Context(), s3BenchConfig(b))
			if err != nil {
				b.Fatal(err)
			}
			s := blobstore.New(d, blobstore.Options{})
			b.Cleanup(func() { s.Close() })
			return storeTarget(s)
		},
		"raw": func(b *testing.B) target {
			cfg := s3BenchConfig(b)
			c := rawMinio(b, cfg)
			if err := c.MakeBucket(b.Context(), cfg.Bucket, minio.MakeBucketOptions{}); err != nil {
				b.Fatal(err)
			}
			return rawTarget(c, cfg.Bucket)
		},
	}
}

var targetOrder = []string{"fs", "s3", "raw"}

// peak samples the heap for large runs and reports the peak growth.
func peak(b *testing.B, size int64) func() {
	if size < 64<<20 {
		return func() {}
	}
	h := storetest.StartHeapSampler()
	return func() {
		b.ReportMetric(float64(h.Stop())/(1<<20), "peak-heap-MiB")
	}
}

func BenchmarkPut(b *testing.B) {
	all := targets(b)
	for _, name := range targetOrder {
		for _, sz := range benchSizes {
			b.Run(name+"/"+sz.name, func(b *testing.B) {
				tg := all[name](b)
				b.SetBytes(sz.size)
				done := peak(b, sz.size)
				b.ResetTimer()
				var ids []string
				for i := 0; b.Loop(); i++ {
					ids = append(ids, tg.put(b, storetest.NewDataReader(uint64(i), sz.size), sz.size))
				}
				done()
				for _, id := range ids {
					tg.remove(b, id)
				}
			})
		}
	}
}

func BenchmarkGet(b *testing.B) {
	all := targets(b)
	buf := make([]byte, 256<<10)
	for _, name := range targetOrder {
		for _, sz := range benchSizes {
			b.Run(name+"/"+sz.name, func(b *testing.B) {
				tg := all[name](b)
				id := tg.put(b, storetest.NewDataReader(1, sz.size), sz.size)
				b.SetBytes(sz.size)
				done := peak(b, sz.size)
				b.ResetTimer()
				for b.Loop() {
					rc := tg.get(b, id)
					n, err := io.CopyBuffer(io.Discard, rc, buf)
					rc.Close()
					if err != nil || n != sz.size {
						b.Fatalf("read %d bytes, %v", n, err)
					}
				}
				done()
			})
		}
	}
}
