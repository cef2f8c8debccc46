package fsblob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/airlockrt/airlock/blobstore"
)

const (
	objectsDir = "objects"
	tmpDir     = "tmp"

	// tmpGrace is how old a temporary file must be before New removes it:
	// younger ones may belong to a Put running in another process.
	tmpGrace = time.Hour

	copyBufSize = 1 << 20
	dirPerm     = 0o700
	filePerm    = 0o600
	// mkdirRetries bounds retries when a concurrent Delete removes a
	// parent directory between MkdirAll and the rename into it.
	mkdirRetries = 8
)

// Driver is a blobstore.Driver over a local directory. Create one with New.
type Driver struct {
	root    string // absolute
	objects string // root/objects
	tmp     string // root/tmp
	closed  atomic.Bool
}

var _ blobstore.Driver = (*Driver)(nil)

var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

// DefaultDir returns the directory the embedded default store uses:
// os.UserCacheDir()/airlock/blobs. It does not create it.
func DefaultDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("fsblob: no default directory: %w (set a directory explicitly)", err)
	}
	return filepath.Join(base, "airlock", "blobs"), nil
}

// New returns a Driver storing objects under dir, creating dir (mode 0700)
// if needed. Several Drivers, in this process or others, may share dir. New
// removes temporary files that crashed writes left behind more than an hour
// ago.
func New(dir string) (*Driver, error) {
	if dir == "" {
		return nil, errors.New("fsblob: empty directory: pass a path, or use DefaultDir")
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("fsblob: %w", err)
	}
	d := &Driver{
		root:    root,
		objects: filepath.Join(root, objectsDir),
		tmp:     filepath.Join(root, tmpDir),
	}
	for _, p := range []string{d.objects, d.tmp} {
		if err := os.MkdirAll(p, dirPerm); err != nil {
			return nil, fmt.Errorf("fsblob: creating store directory: %w", err)
		}
	}
	d.removeOldTemps()
	return d, nil
}

// Dir returns the absolute directory the Driver stores objects under.
func (d *Driver) Dir() string { return d.root }

func (d *Driver) removeOldTemps() {
	ents, err := os.ReadDir(d.tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		info, err := e.Info()
		if err == nil && time.Since(info.ModTime()) > tmpGrace {
			_ = os.Remove(filepath.Join(d.tmp, e.Name()))
		}
	}
}

func (d *Driver) path(op, key string) (string, error) {
	if d.closed.Load() {
		return "", blobstore.ErrClosed
	}
	if !blobstore.ValidKey(key) {
		return "", fmt.Errorf("fsblob: %s: %w: %q", op, blobstore.ErrInvalidKey, key)
	}
	return filepath.Join(d.objects, filepath.FromSlash(key)), nil
}

// Put implements blobstore.Driver: it writes r to a temporary file, syncs
// it, and then renames it into place (or hard-links it, for CreateOnly, so
// an existing object is never replaced) and syncs the directory. ctx is
// checked between 1 MiB chunks.
func (d *Driver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) (err error) {
	dst, err := d.path("put", key)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(d.tmp, "put-*")
	if err != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, err)
	}
	tmp := f.Name()
	defer func() {
		if f != nil {
			f.Close()
		}
		if err != nil || opts.CreateOnly {
			os.Remove(tmp)
		}
	}()
	if err := copyCtx(ctx, f, r); err != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsblob: put %s: sync: %w", key, err)
	}
	cerr := f.Close()
	f = nil
	if cerr != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, cerr)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("fsblob: put %s: %w", key, err)
	}
	dir := filepath.Dir(dst)
	for attempt := 0; ; attempt++ {
		err = os.MkdirAll(dir, dirPerm)
		if err == nil {
			if opts.CreateOnly {
				err = os.Link(tmp, dst)
			} else {
				err = os.Rename(tmp, dst)
			}
		}
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrExist) && opts.CreateOnly {
			return fmt.Errorf("fsblob: put %s: %w", key, blobstore.ErrExist)
		}
		if !errors.Is(err, fs.ErrNotExist) || attempt == mkdirRetries {
			return fmt.Errorf("fsblob: put %s: %w", key, err)
		}
		// A concurrent Delete pruned a directory on the way; make it again.
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("fsblob: put %s: sync directory: %w", key, err)
	}
	return nil
}

func copyCtx(ctx context.Context, w io.Writer, r io.Reader) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
		}
		switch {
		case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
			return nil
		case rerr != nil:
			return rerr
		}
	}
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// Get implements blobstore.Driver. ctx bounds only the open.
func (d *Driver) Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	p, err := d.path("get", key)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, notFound("get", key, err)
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, blobstore.ErrNotFound
	}
	if offset < 0 || offset > info.Size() {
		f.Close()
		return nil, fmt.Errorf("fsblob: get %s: offset %d outside object of %d bytes", key, offset, info.Size())
	}
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("fsblob: get %s: %w", key, err)
		}
	}
	if length < 0 {
		return f, nil
	}
	return &limitedFile{Reader: io.LimitReader(f, length), f: f}, nil
}

type limitedFile struct {
	io.Reader
	f *os.File
}

func (l *limitedFile) Close() error { return l.f.Close() }

// Stat implements blobstore.Driver.
func (d *Driver) Stat(ctx context.Context, key string) (blobstore.Entry, error) {
	p, err := d.path("stat", key)
	if err != nil {
		return blobstore.Entry{}, err
	}
	info, err := os.Stat(p)
	if err != nil {
		return blobstore.Entry{}, notFound("stat", key, err)
	}
	if !info.Mode().IsRegular() {
		return blobstore.Entry{}, blobstore.ErrNotFound
	}
	return blobstore.Entry{Key: key, Size: info.Size(), ModTime: info.ModTime()}, nil
}

// Delete implements blobstore.Driver. It also removes the parent
// directories the deletion left empty.
func (d *Driver) Delete(ctx context.Context, key string) error {
	p, err := d.path("delete", key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fsblob: delete %s: %w", key, err)
	}
	// Prune empty parents; a non-empty one (or a concurrent Put filling
	// it) stops the walk.
	for dir := filepath.Dir(p); dir != d.objects && strings.HasPrefix(dir, d.objects); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// List implements blobstore.Driver with a sorted directory walk, so keys
// sharing a '/'-terminated prefix come one after another. Objects removed
// during the walk are skipped.
func (d *Driver) List(ctx context.Context, prefix string, fn func(blobstore.Entry) error) error {
	if d.closed.Load() {
		return blobstore.ErrClosed
	}
	if !blobstore.ValidPrefix(prefix) {
		return fmt.Errorf("fsblob: list: %w: %q", blobstore.ErrInvalidKey, prefix)
	}
	start := d.objects
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		start = filepath.Join(d.objects, filepath.FromSlash(prefix[:i]))
	}
	err := filepath.WalkDir(start, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed under us
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if de.IsDir() || !de.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(d.objects, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) || !blobstore.ValidKey(key) {
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return nil // removed under us
		}
		return fn(blobstore.Entry{Key: key, Size: info.Size(), ModTime: info.ModTime()})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Close implements blobstore.Driver.
func (d *Driver) Close() error {
	d.closed.Store(true)
	return nil
}

func notFound(op, key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return blobstore.ErrNotFound
	}
	return fmt.Errorf("fsblob: %s %s: %w", op, key, err)
}
