package fsblob_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
	"github.com/airlockrt/airlock/blobstore/storetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func backend(t *testing.T) storetest.Opener {
	dir := t.TempDir()
	return func() blobstore.Driver {
		d, err := fsblob.New(dir)
		require.NoError(t, err)
		return d
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, backend)
}

func TestStreaming(t *testing.T) {
	storetest.RunStreaming(t, backend)
}

func TestNew(t *testing.T) {
	_, err := fsblob.New("")
	require.Error(t, err)

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = fsblob.New(file)
	require.Error(t, err)

	d, err := fsblob.New(filepath.Join(t.TempDir(), "a", "b"))
	require.NoError(t, err)
	require.True(t, filepath.IsAbs(d.Dir()))
	info, err := os.Stat(d.Dir())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), info.Mode().Perm())
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg-cache")
	t.Setenv("HOME", "/home/someone")
	dir, err := fsblob.DefaultDir()
	require.NoError(t, err)
	require.Equal(t, "/tmp/xdg-cache/airlock/blobs", dir)
}

// TestCrashLeftovers plants what a crash leaves behind: temporary files of
// unfinished Puts, and blob bytes whose metadata was never written. Old
// leftovers go (at New and at Sweep); fresh ones may belong to a live Put
// and stay; none is ever visible as a blob.
func TestCrashLeftovers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := fsblob.New(dir)
	require.NoError(t, err)
	store := blobstore.New(d, blobstore.Options{})
	defer store.Close()
	good, err := store.Put(ctx, "acme", strings.NewReader("committed"), "")
	require.NoError(t, err)

	old := time.Now().Add(-2 * time.Hour)
	oldTmp := filepath.Join(dir, "tmp", "put-123")
	freshTmp := filepath.Join(dir, "tmp", "put-456")
	for _, p := range []string{oldTmp, freshTmp} {
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o600))
	}
	require.NoError(t, os.Chtimes(oldTmp, old, old))

	// A Put that crashed after its bytes but before its metadata.
	bytesOnly := func(body string, mtime time.Time) string {
		p := filepath.Join(dir, "objects", "b", "acme", body, "data")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte("orphan"), 0o600))
		require.NoError(t, os.Chtimes(p, mtime, mtime))
		return filepath.Dir(p)
	}
	oldOrphan := bytesOnly(strings.Repeat("a", 32), old)
	freshOrphan := bytesOnly(strings.Repeat("b", 32), time.Now())

	// Reopening (a restart) clears old temporary files only.
	d2, err := fsblob.New(dir)
	require.NoError(t, err)
	require.NoFileExists(t, oldTmp)
	require.FileExists(t, freshTmp)
	store2 := blobstore.New(d2, blobstore.Options{})
	defer store2.Close()

	stats, err := store2.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Orphans)
	require.Equal(t, 1, stats.Scanned)
	require.NoDirExists(t, oldOrphan)
	require.DirExists(t, freshOrphan)
	_, err = store2.Stat(ctx, "acme", good.Ref)
	require.NoError(t, err)
}

// TestRefsStayInsideDir checks that nothing a caller controls reaches the
// file system outside the store directory.
func TestRefsStayInsideDir(t *testing.T) {
	ctx := context.Background()
	parent := t.TempDir()
	dir := filepath.Join(parent, "store")
	d, err := fsblob.New(dir)
	require.NoError(t, err)
	store := blobstore.New(d, blobstore.Options{})
	defer store.Close()
	secret := filepath.Join(parent, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("x"), 0o600))
	for _, ref := range []string{"../secret", "blob_../../../../secret", "/etc/passwd", "blob_" + strings.Repeat(".", 32)} {
		_, _, err := store.Open(ctx, "acme", ref)
		require.Equal(t, blobstore.ErrNotFound, err)
		require.Equal(t, blobstore.ErrNotFound, store.Delete(ctx, "acme", ref))
	}
	require.FileExists(t, secret)
	for _, key := range []string{"../secret", "b/../../secret"} {
		require.ErrorIs(t, d.Delete(ctx, key), blobstore.ErrInvalidKey)
	}
	require.FileExists(t, secret)
}
