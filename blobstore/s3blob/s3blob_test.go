package s3blob_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/lifecycle"
	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/blobstore/storetest"
)

const howToRun = "run: scripts/minio.sh run -- go test ./blobstore/..."

// envConfig returns the server configuration from the environment, or
// skips the test (fails it under CI=true) when there is none.
func envConfig(t testing.TB) s3blob.Config {
	t.Helper()
	if os.Getenv(s3blob.EnvEndpoint) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is unset: the S3 tests need MinIO; %s", s3blob.EnvEndpoint, howToRun)
		}
		t.Skipf("%s is unset; these tests need a MinIO server; %s", s3blob.EnvEndpoint, howToRun)
	}
	cfg, err := s3blob.ConfigFromEnv()
	require.NoError(t, err)
	return cfg
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// freshBucket returns cfg naming a new, unique bucket that is removed with
// everything in it when the test ends.
func freshBucket(t testing.TB, cfg s3blob.Config) s3blob.Config {
	t.Helper()
	cfg.Bucket = "airlock-test-" + randomHex(8)
	t.Cleanup(func() { removeBucket(t, cfg) })
	return cfg
}

func rawClient(t testing.TB, cfg s3blob.Config) *minio.Client {
	t.Helper()
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: cfg.UseTLS,
		Region: cfg.Region,
	})
	require.NoError(t, err)
	return c
}

func removeBucket(t testing.TB, cfg s3blob.Config) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := rawClient(t, cfg)
	if ok, err := c.BucketExists(ctx, cfg.Bucket); err != nil || !ok {
		return
	}
	if err := c.RemoveBucketWithOptions(ctx, cfg.Bucket, minio.RemoveBucketOptions{ForceDelete: true}); err != nil {
		t.Logf("removing bucket %s: %v", cfg.Bucket, err)
	}
}

func backend(t *testing.T) storetest.Opener {
	cfg := freshBucket(t, envConfig(t))
	return func() blobstore.Driver {
		d, err := s3blob.New(t.Context(), cfg)
		require.NoError(t, err)
		return d
	}
}

func TestConformance(t *testing.T) {
	envConfig(t)
	storetest.Run(t, backend)
}

func TestConformanceWithPrefix(t *testing.T) {
	envConfig(t)
	if testing.Short() {
		t.Skip("second full conformance run; skipped with -short")
	}
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		cfg := freshBucket(t, envConfig(t))
		cfg.Prefix = "shared/airlock/"
		return func() blobstore.Driver {
			d, err := s3blob.New(t.Context(), cfg)
			require.NoError(t, err)
			return d
		}
	})
}

func TestStreaming(t *testing.T) {
	envConfig(t)
	storetest.RunStreaming(t, backend)
}

func TestPrefixKeepsObjectsApart(t *testing.T) {
	ctx := t.Context()
	cfg := freshBucket(t, envConfig(t))
	c := rawClient(t, cfg)
	require.NoError(t, c.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{}))
	_, err := c.PutObject(ctx, cfg.Bucket, "unrelated/file", strings.NewReader("x"), 1, minio.PutObjectOptions{})
	require.NoError(t, err)

	cfg.Prefix = "airlock/"
	d, err := s3blob.New(ctx, cfg)
	require.NoError(t, err)
	store := blobstore.New(d, blobstore.Options{})
	defer store.Close()
	a, err := store.Put(ctx, "acme", strings.NewReader("data"), "text/plain")
	require.NoError(t, err)

	var names []string
	for obj := range c.ListObjects(ctx, cfg.Bucket, minio.ListObjectsOptions{Recursive: true}) {
		require.NoError(t, obj.Err)
		names = append(names, obj.Key)
	}
	require.Contains(t, names, "unrelated/file")
	for _, n := range names {
		require.True(t, n == "unrelated/file" || strings.HasPrefix(n, "airlock/b/acme/"), n)
	}
	// The bytes carry the blob's content type for people browsing the bucket.
	var data string
	for _, n := range names {
		if strings.HasSuffix(n, "/data") {
			data = n
		}
	}
	info, err := c.StatObject(ctx, cfg.Bucket, data, minio.StatObjectOptions{})
	require.NoError(t, err)
	require.Equal(t, "text/plain", info.ContentType)

	stats, err := store.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Scanned)
	_, err = c.StatObject(ctx, cfg.Bucket, "unrelated/file", minio.StatObjectOptions{})
	require.NoError(t, err, "the sweeper touched an object outside its prefix")
	require.NoError(t, store.Delete(ctx, "acme", a.Ref))
}

func TestBadCredentialsDoNotLeakSecret(t *testing.T) {
	cfg := freshBucket(t, envConfig(t))
	cfg.SecretKey = "wrong-" + randomHex(16)
	cfg.MaxRetries = 1
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	logger.Info("config", "s3", cfg)

	_, err := s3blob.New(t.Context(), cfg)
	require.ErrorIs(t, err, s3blob.ErrBucket)
	t.Log(err)
	for _, s := range []string{
		err.Error(), fmt.Sprintf("%v|%+v|%#v", err, err, err),
		cfg.String(), fmt.Sprintf("%v|%+v|%#v|%s", cfg, cfg, cfg, cfg), logs.String(),
	} {
		require.NotContains(t, s, cfg.SecretKey)
	}
	require.Contains(t, cfg.String(), "[REDACTED]")
}

func TestUnreachableEndpoint(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	_, err = s3blob.New(t.Context(), s3blob.Config{Endpoint: addr, Bucket: "b", AccessKey: "k", SecretKey: "s3cr3t-value", MaxRetries: 1})
	require.ErrorIs(t, err, s3blob.ErrBucket)
	require.ErrorContains(t, err, addr)
	require.NotContains(t, err.Error(), "s3cr3t-value")
}

func TestLifecycleRules(t *testing.T) {
	ctx := t.Context()
	cfg := freshBucket(t, envConfig(t))
	c := rawClient(t, cfg)
	require.NoError(t, c.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{}))
	foreign := lifecycle.Rule{
		ID:         "someone-elses",
		Status:     "Enabled",
		RuleFilter: lifecycle.Filter{Prefix: "logs/"},
		Expiration: lifecycle.Expiration{Days: 30},
	}
	require.NoError(t, c.SetBucketLifecycle(ctx, cfg.Bucket, &lifecycle.Configuration{Rules: []lifecycle.Rule{foreign}}))

	rules := func() map[string]lifecycle.Rule {
		lc, err := c.GetBucketLifecycle(ctx, cfg.Bucket)
		require.NoError(t, err)
		m := map[string]lifecycle.Rule{}
		for _, r := range lc.Rules {
			m[r.ID] = r
		}
		return m
	}

	cfg.Prefix = "airlock/"
	cfg.ExpireAfterDays = 7
	d, err := s3blob.New(ctx, cfg)
	require.NoError(t, err)
	require.NoError(t, d.Close())
	got := rules()
	require.Contains(t, got, "someone-elses")
	require.Contains(t, got, "airlock-expire")
	require.EqualValues(t, 7, got["airlock-expire"].Expiration.Days)
	require.Equal(t, "airlock/", got["airlock-expire"].RuleFilter.Prefix)

	cfg.ExpireAfterDays = 0
	d, err = s3blob.New(ctx, cfg)
	require.NoError(t, err)
	require.NoError(t, d.Close())
	got = rules()
	require.Contains(t, got, "someone-elses")
	require.NotContains(t, got, "airlock-expire")
}

func TestSkipBucketSetup(t *testing.T) {
	cfg := freshBucket(t, envConfig(t))
	cfg.SkipBucketSetup = true
	_, err := s3blob.New(t.Context(), cfg)
	require.ErrorIs(t, err, s3blob.ErrBucket)
	require.ErrorContains(t, err, "does not exist")
}

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    s3blob.Config
		wantErr bool
	}{
		{"all set", map[string]string{
			s3blob.EnvEndpoint: "minio:9000", s3blob.EnvBucket: "blobs", s3blob.EnvAccessKey: "ak",
			s3blob.EnvSecretKey: "sk", s3blob.EnvUseTLS: "true", s3blob.EnvRegion: "eu-west-1",
		}, s3blob.Config{Endpoint: "minio:9000", Bucket: "blobs", AccessKey: "ak", SecretKey: "sk", UseTLS: true, Region: "eu-west-1"}, false},
		{"nothing set", map[string]string{}, s3blob.Config{}, false},
		{"tls false", map[string]string{s3blob.EnvUseTLS: "0"}, s3blob.Config{}, false},
		{"tls garbage", map[string]string{s3blob.EnvUseTLS: "yes please"}, s3blob.Config{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{s3blob.EnvEndpoint, s3blob.EnvBucket, s3blob.EnvAccessKey, s3blob.EnvSecretKey, s3blob.EnvUseTLS, s3blob.EnvRegion} {
				t.Setenv(k, tc.env[k])
			}
			got, err := s3blob.ConfigFromEnv()
			if tc.wantErr {
				require.ErrorIs(t, err, s3blob.ErrConfig)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestConfigValidation(t *testing.T) {
	ok := s3blob.Config{Endpoint: "127.0.0.1:1", Bucket: "b"}
	tests := []struct {
		name   string
		change func(*s3blob.Config)
	}{
		{"no endpoint", func(c *s3blob.Config) { c.Endpoint = "" }},
		{"endpoint with path", func(c *s3blob.Config) { c.Endpoint = "host:9000/path" }},
		{"endpoint with userinfo", func(c *s3blob.Config) { c.Endpoint = "user@host:9000" }},
		{"no bucket", func(c *s3blob.Config) { c.Bucket = "" }},
		{"access key only", func(c *s3blob.Config) { c.AccessKey = "ak" }},
		{"secret key only", func(c *s3blob.Config) { c.SecretKey = "sk" }},
		{"prefix without slash", func(c *s3blob.Config) { c.Prefix = "airlock" }},
		{"prefix with dot dot", func(c *s3blob.Config) { c.Prefix = "../x/" }},
		{"negative expiry", func(c *s3blob.Config) { c.ExpireAfterDays = -1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			_, err := s3blob.New(t.Context(), c)
			require.ErrorIs(t, err, s3blob.ErrConfig)
		})
	}
}

// minioServer is a MinIO process of this test's own, on a fixed address and
// data directory so that it can be restarted.
type minioServer struct {
	t          *testing.T
	bin, dir   string
	addr       string
	user, pass string
	cmd        *exec.Cmd
}

func minioBinary(t *testing.T) string {
	if p := os.Getenv("AIRLOCK_MINIO_BIN"); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		require.NoError(t, err)
		cache = filepath.Join(home, ".cache")
	}
	p := filepath.Join(cache, "airlock", "bin", "minio")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but no MinIO binary at %s; run scripts/minio.sh install", p)
		}
		t.Skipf("no MinIO binary at %s; run scripts/minio.sh install", p)
	}
	return p
}

func newMinioServer(t *testing.T) *minioServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	s := &minioServer{t: t, bin: minioBinary(t), dir: t.TempDir(), addr: addr, user: "fault-" + randomHex(4), pass: randomHex(16)}
	t.Cleanup(s.stop)
	s.start()
	return s
}

func (s *minioServer) start() {
	s.t.Helper()
	cmd := exec.Command(s.bin, "server", "--quiet", "--address", s.addr, s.dir)
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+s.user, "MINIO_ROOT_PASSWORD="+s.pass,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(s.t, cmd.Start())
	s.cmd = cmd
	deadline := time.Now().Add(60 * time.Second)
	for {
		if probe(s.addr, "live") && probe(s.addr, "cluster") {
			return
		}
		if time.Now().After(deadline) {
			s.stop()
			s.t.Fatalf("MinIO at %s not live after 60s: %s", s.addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func probe(addr, what string) bool {
	resp, err := http.Get("http://" + addr + "/minio/health/" + what)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (s *minioServer) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

func (s *minioServer) config() s3blob.Config {
	return s3blob.Config{Endpoint: s.addr, Bucket: "fault", AccessKey: s.user, SecretKey: s.pass, MaxRetries: 1}
}

// killingReader stops the server once it has yielded after bytes, then
// keeps yielding data as if nothing happened.
type killingReader struct {
	r     io.Reader
	after int64
	n     int64
	once  sync.Once
	kill  func()
}

func (k *killingReader) Read(p []byte) (int, error) {
	if k.n >= k.after {
		k.once.Do(k.kill)
	}
	n, err := k.r.Read(p)
	k.n += int64(n)
	return n, err
}

// TestServerStoppedMidUpload kills MinIO in the middle of a multipart
// upload: Put must fail with a clear error, no partial object may become
// visible, and after a restart the next Put works.
func TestServerStoppedMidUpload(t *testing.T) {
	envConfig(t)
	if testing.Short() {
		t.Skip("starts its own MinIO; skipped with -short")
	}
	srv := newMinioServer(t)
	ctx := t.Context()
	d, err := s3blob.New(ctx, srv.config())
	require.NoError(t, err)
	store := blobstore.New(d, blobstore.Options{})
	defer store.Close()

	before, err := store.Put(ctx, "acme", strings.NewReader("written before the crash"), "")
	require.NoError(t, err)

	r := &killingReader{r: storetest.NewDataReader(5, 64<<20), after: 20 << 20, kill: srv.stop}
	began := time.Now()
	_, err = store.Put(ctx, "acme", r, "")
	require.Error(t, err)
	t.Logf("Put failed after %v: %v", time.Since(began).Round(time.Millisecond), err)
	require.ErrorContains(t, err, "blobstore: put")
	require.ErrorContains(t, err, "s3blob")
	require.ErrorContains(t, err, "connection refused")
	require.NotContains(t, err.Error(), srv.pass)

	srv.start()
	var keys []string
	require.NoError(t, d.List(ctx, "", func(e blobstore.Entry) error {
		keys = append(keys, e.Key)
		return nil
	}))
	for _, k := range keys {
		require.Contains(t, k, strings.TrimPrefix(before.Ref, "blob_"), "a partial upload became visible as %s", k)
	}
	require.Len(t, keys, 2, "data and meta of the blob written before the crash")

	data := storetest.NewDataReader(6, 12<<20)
	a, err := store.Put(ctx, "acme", data, "")
	require.NoError(t, err)
	rc, _, err := store.Open(ctx, "acme", a.Ref)
	require.NoError(t, err)
	n, err := io.Copy(io.Discard, rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.EqualValues(t, 12<<20, n)
	_, err = store.Stat(ctx, "acme", before.Ref)
	require.NoError(t, err)
}

// TestLockedVersionCannotBeDeleted: on a bucket New created (object
// locking on), a version PutOnce wrote cannot be deleted by its version
// id, even by the bucket's owner, before its retention date; a plain
// delete only adds a delete marker, and ReadOnce still reads it.
func TestLockedVersionCannotBeDeleted(t *testing.T) {
	ctx := t.Context()
	cfg := freshBucket(t, envConfig(t))
	d, err := s3blob.New(ctx, cfg)
	require.NoError(t, err)
	defer d.Close()
	require.True(t, d.Locked(), "a bucket New creates has object locking on")
	v, err := d.PutOnce(ctx, "claim/1", strings.NewReader("first"), blobstore.OnceOptions{RetainUntil: time.Now().Add(time.Minute)})
	require.NoError(t, err)
	require.NoError(t, d.Delete(ctx, "claim/1"))
	err = rawClient(t, cfg).RemoveObject(ctx, cfg.Bucket, "claim/1", minio.RemoveObjectOptions{VersionID: v})
	require.Error(t, err, "a version locked in compliance mode is not deleted")
	got, rc, err := d.ReadOnce(ctx, "claim/1")
	require.NoError(t, err)
	defer rc.Close()
	require.Equal(t, v, got.ID)
	err = rawClient(t, cfg).RemoveObject(ctx, cfg.Bucket, "claim/1", minio.RemoveObjectOptions{VersionID: v, GovernanceBypass: true})
	require.Error(t, err, "nor with the governance bypass")
}

// TestUnlockedBucket: a bucket made without object locking is not
// locked, and PutOnce refuses to write to it.
func TestUnlockedBucket(t *testing.T) {
	ctx := t.Context()
	cfg := freshBucket(t, envConfig(t))
	require.NoError(t, rawClient(t, cfg).MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{}))
	d, err := s3blob.New(ctx, cfg)
	require.NoError(t, err)
	defer d.Close()
	require.False(t, d.Locked())
	_, err = d.PutOnce(ctx, "claim/1", strings.NewReader("x"), blobstore.OnceOptions{RetainUntil: time.Now().Add(time.Minute)})
	require.ErrorIs(t, err, blobstore.ErrNotLocked)
}
