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
	objs map[string]object // the current version of each key
	// vers holds every version, oldest first, of the keys that have a
	// locked one (PutOnce), as a versioned bucket with object locking
	// keeps them; other keys keep only their current version (a versioned
	// bucket whose lifecycle expires noncurrent versions at once). A key
	// leaves vers when no version of it is locked any more.
	vers   map[string][]version
	nextID int64
}

// version is one version of a key of vers.
type version struct {
	id     string
	obj    object
	marker bool      // a delete marker
	until  time.Time // locked until then; zero: not locked
}

type object struct {
	data []byte // never modified once stored
	mod  time.Time
}

var (
	_ blobstore.Driver     = (*Driver)(nil)
	_ blobstore.OnceDriver = (*Driver)(nil)
)

// New returns a Driver over new, empty storage.
func New() *Driver {
	return &Driver{st: &storage{objs: make(map[string]object), vers: make(map[string][]version)}}
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
	d.st.put(key, version{obj: object{data: buf.Bytes(), mod: time.Now()}})
	return nil
}

// put adds v as key's current version. The caller holds mu.
func (st *storage) put(key string, v version) {
	st.nextID++
	v.id = fmt.Sprintf("v%d", st.nextID)
	if v.marker {
		delete(st.objs, key)
	} else {
		st.objs[key] = v.obj
	}
	vs, ok := st.vers[key]
	if !ok && v.until.IsZero() {
		return
	}
	// Noncurrent versions whose lock has ended go, as a lifecycle rule
	// expiring noncurrent versions would remove them.
	now := time.Now()
	kept := vs[:0]
	locked := !v.until.IsZero()
	for _, o := range vs {
		if o.until.After(now) {
			kept = append(kept, o)
			locked = true
		}
	}
	if !locked {
		delete(st.vers, key)
		return
	}
	st.vers[key] = append(kept, v)
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
	defer d.st.mu.Unlock()
	if _, ok := d.st.vers[key]; ok {
		if _, cur := d.st.objs[key]; cur {
			d.st.put(key, version{marker: true, obj: object{mod: time.Now()}})
		}
		return nil
	}
	delete(d.st.objs, key)
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

// Locked implements blobstore.OnceDriver: memblob models a bucket with
// object locking, so it is always true.
func (d *Driver) Locked() bool { return true }

// PutOnce implements blobstore.OnceDriver.
func (d *Driver) PutOnce(ctx context.Context, key string, r io.Reader, opts blobstore.OnceOptions) (string, error) {
	if err := d.check(key); err != nil {
		return "", err
	}
	if opts.RetainUntil.IsZero() {
		return "", fmt.Errorf("memblob: put once %s: no retention date", key)
	}
	b, err := io.ReadAll(io.LimitReader(r, blobstore.MaxRecordBytes+1))
	if err != nil {
		return "", fmt.Errorf("memblob: put once %s: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("memblob: put once %s: %w", key, err)
	}
	d.st.mu.Lock()
	defer d.st.mu.Unlock()
	if _, ok := d.st.objs[key]; ok {
		return "", fmt.Errorf("memblob: put once %s: %w", key, blobstore.ErrExist)
	}
	d.st.put(key, version{obj: object{data: b, mod: time.Now()}, until: opts.RetainUntil})
	vs := d.st.vers[key]
	return vs[len(vs)-1].id, nil
}

// ReadOnce implements blobstore.OnceDriver.
func (d *Driver) ReadOnce(ctx context.Context, key string) (blobstore.Version, io.ReadCloser, error) {
	if err := d.check(key); err != nil {
		return blobstore.Version{}, nil, err
	}
	d.st.mu.RLock()
	defer d.st.mu.RUnlock()
	vs, ok := d.st.vers[key]
	if !ok {
		// Only its current version is kept (none locked).
		o, ok := d.st.objs[key]
		if !ok {
			return blobstore.Version{}, nil, blobstore.ErrNotFound
		}
		return blobstore.Version{ID: "current", Size: int64(len(o.data)), ModTime: o.mod}, io.NopCloser(bytes.NewReader(o.data)), nil
	}
	if len(vs) > blobstore.MaxOnceVersions {
		return blobstore.Version{}, nil, fmt.Errorf("memblob: read once %s: %w", key, blobstore.ErrTooManyVersions)
	}
	for _, v := range vs {
		if !v.marker {
			return blobstore.Version{ID: v.id, Size: int64(len(v.obj.data)), ModTime: v.obj.mod}, io.NopCloser(bytes.NewReader(v.obj.data)), nil
		}
	}
	return blobstore.Version{}, nil, blobstore.ErrNotFound
}

// Versions returns the ids of key's versions, oldest first, as a bucket
// writer listing them would see them (delete markers included), for tests
// that play one. A key with no locked version has only its current one.
func (d *Driver) Versions(key string) []string {
	d.st.mu.RLock()
	defer d.st.mu.RUnlock()
	vs, ok := d.st.vers[key]
	if !ok {
		if _, ok := d.st.objs[key]; ok {
			return []string{"current"}
		}
		return nil
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = v.id
	}
	return ids
}

// DeleteVersion removes one version of key, as a bucket writer deleting it
// by its id can, for tests that play one: a version locked until a date
// still ahead fails with blobstore.ErrLocked. Removing the current version
// makes the one before it current.
func (d *Driver) DeleteVersion(key, id string) error {
	if err := d.check(key); err != nil {
		return err
	}
	d.st.mu.Lock()
	defer d.st.mu.Unlock()
	vs, ok := d.st.vers[key]
	if !ok {
		if id == "current" {
			delete(d.st.objs, key)
		}
		return nil
	}
	i := slices.IndexFunc(vs, func(v version) bool { return v.id == id })
	switch {
	case i < 0:
		return nil
	case vs[i].until.After(time.Now()):
		return fmt.Errorf("memblob: delete %s version %s: %w until %s", key, id, blobstore.ErrLocked, vs[i].until.Format(time.RFC3339))
	}
	vs = slices.Delete(vs, i, i+1)
	d.st.vers[key] = vs
	if len(vs) == 0 || vs[len(vs)-1].marker {
		delete(d.st.objs, key)
	} else {
		d.st.objs[key] = vs[len(vs)-1].obj
	}
	return nil
}
