package blobstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxRecordBytes bounds how much of a metadata or unpinned record is read.
const maxRecordBytes = 16 << 10

// metaRecord is the JSON stored under a blob's meta key.
type metaRecord struct {
	Version     int       `json:"v"`
	Tenant      string    `json:"tenant"`
	ContentType string    `json:"content_type"`
	Size        int64     `json:"size"`
	SHA256      string    `json:"sha256"`
	Created     time.Time `json:"created"`
}

const metaVersion = 1

func (m metaRecord) attrs(ref string) Attrs {
	return Attrs{
		Ref:         ref,
		Tenant:      m.Tenant,
		ContentType: m.ContentType,
		Size:        m.Size,
		SHA256:      m.SHA256,
		Created:     m.Created,
	}
}

// readRecord reads a small object fully. A missing key yields ErrNotFound.
func readRecord(ctx context.Context, d Driver, key string) ([]byte, error) {
	rc, err := d.Get(ctx, key, 0, -1)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxRecordBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRecordBytes {
		return nil, fmt.Errorf("%w: record %s is larger than %d bytes", ErrCorrupt, key, maxRecordBytes)
	}
	return b, nil
}

func writeRecord(ctx context.Context, d Driver, key string, b []byte, createOnly bool) error {
	return d.Put(ctx, key, bytes.NewReader(b), PutOptions{CreateOnly: createOnly})
}

func (s *Store) readMeta(ctx context.Context, k blobKeys) (metaRecord, error) {
	b, err := readRecord(ctx, s.d, k.meta())
	if err != nil {
		return metaRecord{}, s.driverErr("read metadata", err)
	}
	var m metaRecord
	if err := json.Unmarshal(b, &m); err != nil {
		return metaRecord{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if m.Version != metaVersion || m.Tenant != k.tenant || m.Size < 0 || len(m.SHA256) != 64 {
		return metaRecord{}, fmt.Errorf("%w: unexpected fields in %s", ErrCorrupt, k.meta())
	}
	return m, nil
}

// readUnpinned returns the time of the latest Unpin, or ok=false if the blob
// was never unpinned.
func (s *Store) readUnpinned(ctx context.Context, k blobKeys) (t time.Time, ok bool, err error) {
	b, err := readRecord(ctx, s.d, k.unpinned())
	if errors.Is(err, ErrNotFound) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, s.driverErr("read unpin time", err)
	}
	if err := t.UnmarshalText(b); err != nil {
		return time.Time{}, false, fmt.Errorf("%w: unpin time: %w", ErrCorrupt, err)
	}
	return t, true, nil
}
