package memblob

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlockrt/airlock/blobstore"
)

// Driver is an in-memory blobstore.Driver. Create one with New.
type Driver struct {
	st     *storage
	closed atomic.Bool
}

type storage struct {
	mu   sync.RWMutex
	objs map[string]object
}

type object struct {
	data []byte // never modified once stored
	mod  time.Time
}

var _ blobstore.Driver = (*Driver)(nil)

// New returns a Driver over new, empty storage.
func New() *Driver {
	return &Driver{st: &storage{objs: make(map[string]object)}}
}

// Reopen returns a new Driver over the same storage, as a second process
// would see it: writes through either are visible to both, and closing one
// leaves the other open.
func (d *Driver) Reopen() *Driver {
	return &Driver{st: d.st}
}

func (d *Driver) check(key string) error {
	if d.closed.Load() {
		return blobstore.ErrClosed
	}
	if !blobstore.ValidKey(key) {
		return fmt.Errorf("memblob: %w: %q", blobstore.ErrInvalidKey, key)
	}
	return nil
}

// Put implements blobstore.Driver. It reads r fully into memory, checking
// ctx between reads.
func (d *Driver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) error {
	if err := d.check(key); err != nil {
		return err
	}
	var buf bytes.Buffer
	chunk := make([]byte, 32<<10)
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("memblob: put %s: %w", key, err)
		}
		n, err := r.Read(chunk)
		buf.Write(chunk[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("memblob: put %s: %w", key, err)
		}
	}
	d.st.mu.Lock()
	defer d.st.mu.Unlock()
	if _, ok := d.st.objs[key]; ok && opts.CreateOnly {
		return fmt.Errorf("memblob: put %s: %w", key, blobstore.ErrExist)
	}
	d.st.objs[key] = object{data: buf.Bytes(), mod: time.Now()}
	return nil
}

// Get implements blobstore.Driver.
func (d *Driver) Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := d.check(key); err != nil {
		return nil, err
	}
	d.st.mu.RLock()
	o, ok := d.st.objs[key]
	d.st.mu.RUnlock()
	if !ok {
		return nil, blobstore.ErrNotFound
	}
	size := int64(len(o.data))
	if offset < 0 || offset > size {
		return nil, fmt.Errorf("memblob: get %s: offset %d outside object of %d bytes", key, offset, size)
	}
	end := size
	if length >= 0 && offset+length < size {
		end = offset + length
	}
	return io.NopCloser(bytes.NewReader(o.data[offset:end])), nil
}

// Stat implements blobstore.Driver.
func (d *Driver) Stat(ctx context.Context, key string) (blobstore.Entry, error) {
	if err := d.check(key); err != nil {
		return blobstore.Entry{}, err
	}
	d.st.mu.RLock()
	o, ok := d.st.objs[key]
	d.st.mu.RUnlock()
	if !ok {
		return blobstore.Entry{}, blobstore.ErrNotFound
	}
	return blobstore.Entry{Key: key, Size: int64(len(o.data)), ModTime: o.mod}, nil
}

// Delete implements blobstore.Driver.
func (d *Driver) Delete(ctx context.Context, key string) error {
	if err := d.check(key); err != nil {
		return err
	}
	d.st.mu.Lock()
	delete(d.st.objs, key)
	d.st.mu.Unlock()
	return nil
}

// List implements blobstore.Driver. It reports keys in lexical order from a
// snapshot taken when List starts, skipping keys deleted meanwhile.
func (d *Driver) List(ctx context.Context, prefix string, fn func(blobstore.Entry) error) error {
	if d.closed.Load() {
		return blobstore.ErrClosed
	}
	if !blobstore.ValidPrefix(prefix) {
		return fmt.Errorf("memblob: list: %w: %q", blobstore.ErrInvalidKey, prefix)
	}
	d.st.mu.RLock()
	var keys []string
	for k := range d.st.objs {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	d.st.mu.RUnlock()
	slices.Sort(keys)
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		d.st.mu.RLock()
		o, ok := d.st.objs[k]
		d.st.mu.RUnlock()
		if !ok {
			continue
		}
		if err := fn(blobstore.Entry{Key: k, Size: int64(len(o.data)), ModTime: o.mod}); err != nil {
			return err
		}
	}
	return nil
}

// Close implements blobstore.Driver. The storage stays available to other
// Drivers from Reopen.
func (d *Driver) Close() error {
	d.closed.Store(true)
	return nil
}
