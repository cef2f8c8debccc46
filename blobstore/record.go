package blobstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Records are small named objects a Store keeps per tenant beside its
// blobs, for state several processes sharing the storage must agree on
// (idempotency outcomes, for instance). They live under their own key
// prefix: they are never blobs, never pinned and never swept; whoever
// writes them deletes them.

// MaxRecordBytes is the largest record PutRecord accepts and GetRecord
// reads back.
const MaxRecordBytes = 1 << 20

// ErrRecordTooLarge is returned by PutRecord for data over MaxRecordBytes
// and by GetRecord for a stored object over it (which the Store did not
// write).
var ErrRecordTooLarge = errors.New("blobstore: record too large")

// ErrInvalidRecordName is returned for a record name that is not 1 to 200
// of a-z, 0-9, '_', '-', '.' and '/' in segments that are neither empty,
// "." nor "..".
var ErrInvalidRecordName = errors.New("blobstore: invalid record name")

const keyRecords = "r/"

// FleetTenant is the record namespace of state that belongs to no tenant:
// the index a fleet of processes keeps of the chains it runs. ValidTenant
// refuses it (a leading '_'), so no API caller can name it; only the record
// functions accept it, never the blob ones.
const FleetTenant = "_fleet"

func (s *Store) recordKey(tenant, name string) (string, error) {
	if s.closed.Load() {
		return "", ErrClosed
	}
	if !ValidTenant(tenant) && tenant != FleetTenant {
		return "", ErrInvalidTenant
	}
	if len(name) > 200 || !ValidKey(name) {
		return "", fmt.Errorf("%w: %q", ErrInvalidRecordName, name)
	}
	return keyRecords + tenant + "/" + name, nil
}

// PutRecord stores data as the tenant's record name. With createOnly it
// fails with ErrExist when the record exists (a conditional write: of
// several writers, exactly one wins); otherwise it replaces it.
func (s *Store) PutRecord(ctx context.Context, tenant, name string, data []byte, createOnly bool) error {
	key, err := s.recordKey(tenant, name)
	if err != nil {
		return err
	}
	if len(data) > MaxRecordBytes {
		return fmt.Errorf("%w: %d bytes (the limit is %d)", ErrRecordTooLarge, len(data), MaxRecordBytes)
	}
	err = s.d.Put(ctx, key, bytes.NewReader(data), PutOptions{CreateOnly: createOnly, ContentType: "application/json"})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrExist):
		return ErrExist
	}
	return s.driverErr("put record", err)
}

// GetRecord returns the tenant's record name and when it was last
// written (by the backend's clock), or ErrNotFound.
func (s *Store) GetRecord(ctx context.Context, tenant, name string) ([]byte, time.Time, error) {
	key, err := s.recordKey(tenant, name)
	if err != nil {
		return nil, time.Time{}, err
	}
	e, err := s.d.Stat(ctx, key)
	if err != nil {
		return nil, time.Time{}, s.driverErr("stat record", err)
	}
	if e.Size > MaxRecordBytes {
		return nil, time.Time{}, fmt.Errorf("%w: %d bytes stored under %q", ErrRecordTooLarge, e.Size, name)
	}
	rc, err := s.d.Get(ctx, key, 0, MaxRecordBytes+1)
	if err != nil {
		return nil, time.Time{}, s.driverErr("get record", err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, MaxRecordBytes+1))
	if err != nil {
		return nil, time.Time{}, s.driverErr("read record", err)
	}
	if len(data) > MaxRecordBytes {
		return nil, time.Time{}, fmt.Errorf("%w: more than %d bytes under %q", ErrRecordTooLarge, MaxRecordBytes, name)
	}
	return data, e.ModTime, nil
}

// DeleteRecord removes the tenant's record name; a missing one is not an
// error.
func (s *Store) DeleteRecord(ctx context.Context, tenant, name string) error {
	key, err := s.recordKey(tenant, name)
	if err != nil {
		return err
	}
	if err := s.d.Delete(ctx, key); err != nil {
		return s.driverErr("delete record", err)
	}
	return nil
}

// ListRecords calls fn with the name and last write time of each of the
// tenant's records whose name starts with prefix ("" for all), in the
// driver's order; fn's error stops it.
func (s *Store) ListRecords(ctx context.Context, tenant, prefix string, fn func(name string, modTime time.Time) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if !ValidTenant(tenant) && tenant != FleetTenant {
		return ErrInvalidTenant
	}
	base := keyRecords + tenant + "/"
	var stopped error // fn's own error, returned as it is
	err := s.d.List(ctx, base+prefix, func(e Entry) error {
		if stopped = fn(strings.TrimPrefix(e.Key, base), e.ModTime); stopped != nil {
			return stopped
		}
		return nil
	})
	switch {
	case stopped != nil:
		return stopped
	case err != nil:
		return s.driverErr("list records", err)
	}
	return nil
}

// Locked reports whether the Store's driver keeps locked versions
// (OnceDriver with Locked true): then PutRecordOnce's records cannot be
// taken back by anyone before their retention date, and GetRecordOnce
// reads the first one written whatever was written or deleted since.
func (s *Store) Locked() bool {
	o, ok := s.d.(OnceDriver)
	return ok && o.Locked()
}

// PutRecordOnce writes data as the tenant's record name if it has no
// current record, locked until retainUntil on a locked store (Locked), and
// returns the written version's id. It fails with ErrExist when the record
// exists. On a locked store a write that succeeds may still not be the
// first (a bucket writer may have deleted the first one: a delete marker
// hides it from a conditional write, not from GetRecordOnce), so a writer
// that must know whether it was first reads back with GetRecordOnce. On a
// store that is not locked it is PutRecord with createOnly, and the
// version is "".
func (s *Store) PutRecordOnce(ctx context.Context, tenant, name string, data []byte, retainUntil time.Time) (string, error) {
	if !s.Locked() {
		return "", s.PutRecord(ctx, tenant, name, data, true)
	}
	key, err := s.recordKey(tenant, name)
	if err != nil {
		return "", err
	}
	if len(data) > MaxRecordBytes {
		return "", fmt.Errorf("%w: %d bytes (the limit is %d)", ErrRecordTooLarge, len(data), MaxRecordBytes)
	}
	v, err := s.d.(OnceDriver).PutOnce(ctx, key, bytes.NewReader(data), OnceOptions{RetainUntil: retainUntil, ContentType: "application/json"})
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, ErrExist):
		return "", ErrExist
	}
	return "", s.driverErr("put record once", err)
}

// GetRecordOnce returns the first version of the tenant's record name that
// nobody removed, and its version id, on a locked store; a record that is
// absent, or whose every version is deleted, is ErrNotFound, one with more
// than MaxOnceVersions versions ErrTooManyVersions. On a store that is not
// locked it is GetRecord, and the version is "".
func (s *Store) GetRecordOnce(ctx context.Context, tenant, name string) ([]byte, string, error) {
	if !s.Locked() {
		b, _, err := s.GetRecord(ctx, tenant, name)
		return b, "", err
	}
	key, err := s.recordKey(tenant, name)
	if err != nil {
		return nil, "", err
	}
	v, rc, err := s.d.(OnceDriver).ReadOnce(ctx, key)
	if err != nil {
		return nil, "", s.driverErr("read record once", err)
	}
	defer rc.Close()
	if v.Size > MaxRecordBytes {
		return nil, "", fmt.Errorf("%w: %d bytes stored under %q", ErrRecordTooLarge, v.Size, name)
	}
	data, err := io.ReadAll(io.LimitReader(rc, MaxRecordBytes+1))
	if err != nil {
		return nil, "", s.driverErr("read record once", err)
	}
	if len(data) > MaxRecordBytes {
		return nil, "", fmt.Errorf("%w: more than %d bytes under %q", ErrRecordTooLarge, MaxRecordBytes, name)
	}
	return data, v.ID, nil
}
