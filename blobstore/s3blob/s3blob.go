package s3blob

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/lifecycle"

	"github.com/airlockrt/airlock/blobstore"
)

const (
	// smallRead is how much Put reads before it decides between one PUT
	// and a multipart upload, so that tiny objects (metadata, pin
	// markers) never take a part buffer.
	smallRead = 64 << 10
	// abortTimeout bounds aborting a failed multipart upload, which runs
	// even after the caller's context ended.
	abortTimeout = 30 * time.Second

	ruleAbortUploads = "airlock-abort-incomplete-uploads"
	ruleExpire       = "airlock-expire"
	ruleNoncurrent   = "airlock-expire-noncurrent"
)

// Driver is a blobstore.Driver over an S3 bucket, using minio-go. Create
// one with New.
type Driver struct {
	cfg       Config
	client    *minio.Client
	core      minio.Core
	transport *http.Transport
	bufs      chan *[]byte // free part buffers, at most Concurrency+1
	locked    bool         // the bucket has object locking on
	closed    atomic.Bool
}

var (
	_ blobstore.Driver     = (*Driver)(nil)
	_ blobstore.OnceDriver = (*Driver)(nil)
)

// New connects to the bucket described by cfg and prepares it: it creates
// the bucket if missing and installs the lifecycle rules described at
// Config.ExpireAfterDays, unless cfg.SkipBucketSetup is set. ctx bounds
// this setup. Errors never contain cfg.SecretKey.
func New(ctx context.Context, cfg Config) (*Driver, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	tr, err := minio.DefaultTransport(cfg.UseTLS)
	if err != nil {
		return nil, fmt.Errorf("s3blob: transport: %w", err)
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:      credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:     cfg.UseTLS,
		Transport:  tr,
		Region:     cfg.Region,
		MaxRetries: cfg.MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrConfig, scrub(err.Error(), cfg.SecretKey))
	}
	d := &Driver{
		cfg:       cfg,
		client:    client,
		core:      minio.Core{Client: client},
		transport: tr,
		bufs:      make(chan *[]byte, cfg.Concurrency+1),
	}
	if err := d.setup(ctx); err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	return d, nil
}

// Bucket returns the bucket the Driver stores objects in.
func (d *Driver) Bucket() string { return d.cfg.Bucket }

// Client returns the underlying minio-go client, for operations the Driver
// does not offer. Objects written through it bypass the Store's layout.
func (d *Driver) Client() *minio.Client { return d.client }

func (d *Driver) setup(ctx context.Context) error {
	where := fmt.Sprintf("bucket %q at %s", d.cfg.Bucket, d.cfg.Endpoint)
	ok, err := d.client.BucketExists(ctx, d.cfg.Bucket)
	if err != nil {
		return d.wrap(ErrBucket, "checking "+where, err)
	}
	if !ok {
		if d.cfg.SkipBucketSetup {
			return fmt.Errorf("%w: %s does not exist (create it, or unset SkipBucketSetup)", ErrBucket, where)
		}
		// With object locking (and so versioning): a fleet's create-only
		// records are locked versions (Driver.PutOnce).
		err := d.client.MakeBucket(ctx, d.cfg.Bucket, minio.MakeBucketOptions{Region: d.cfg.Region, ObjectLocking: true})
		if err != nil {
			switch minio.ToErrorResponse(err).Code {
			case "BucketAlreadyOwnedByYou", "BucketAlreadyExists":
				// Created meanwhile by another process.
			default:
				return d.wrap(ErrBucket, "creating "+where, err)
			}
		}
	}
	switch on, _, _, _, err := d.client.GetObjectLockConfig(ctx, d.cfg.Bucket); {
	case err == nil:
		d.locked = on == "Enabled"
	case minio.ToErrorResponse(err).StatusCode == http.StatusNotFound, minio.ToErrorResponse(err).Code == "NotImplemented":
		// No object lock configuration: not locked.
	default:
		return d.wrap(ErrBucket, "reading the object lock configuration of "+where, err)
	}
	if d.cfg.SkipBucketSetup {
		return nil
	}
	if err := d.ensureLifecycle(ctx); err != nil {
		return d.wrap(ErrBucket, "setting lifecycle rules of "+where, err)
	}
	return nil
}

// ensureLifecycle installs the rules Config documents, keeping any other
// rules of the bucket. A server that does not take a rule (MinIO rejects
// abort-only rules and cleans stale uploads by itself) goes without it.
func (d *Driver) ensureLifecycle(ctx context.Context) error {
	cur, err := d.client.GetBucketLifecycle(ctx, d.cfg.Bucket)
	if err != nil {
		switch minio.ToErrorResponse(err).Code {
		case "NoSuchLifecycleConfiguration":
			cur = lifecycle.NewConfiguration()
		case "NotImplemented":
			return nil
		default:
			return err
		}
	}
	var keep []lifecycle.Rule
	for _, r := range cur.Rules {
		if r.ID != ruleAbortUploads && r.ID != ruleExpire && r.ID != ruleNoncurrent {
			keep = append(keep, r)
		}
	}
	filter := lifecycle.Filter{Prefix: d.cfg.Prefix}
	var ours []lifecycle.Rule
	if d.cfg.ExpireAfterDays > 0 {
		ours = append(ours, lifecycle.Rule{
			ID:         ruleExpire,
			Status:     "Enabled",
			RuleFilter: filter,
			Expiration: lifecycle.Expiration{Days: lifecycle.ExpirationDays(d.cfg.ExpireAfterDays)},
		})
	}
	if d.locked {
		// A versioned bucket keeps what Put replaced and Delete removed
		// as noncurrent versions: they go after a day (locked ones only
		// once their retention has ended), with the delete markers left
		// alone.
		ours = append(ours, lifecycle.Rule{
			ID:                          ruleNoncurrent,
			Status:                      "Enabled",
			RuleFilter:                  filter,
			NoncurrentVersionExpiration: lifecycle.NoncurrentVersionExpiration{NoncurrentDays: 1},
			Expiration:                  lifecycle.Expiration{DeleteMarker: true},
		})
	}
	abort := lifecycle.Rule{
		ID:                             ruleAbortUploads,
		Status:                         "Enabled",
		RuleFilter:                     filter,
		AbortIncompleteMultipartUpload: lifecycle.AbortIncompleteMultipartUpload{DaysAfterInitiation: 1},
	}
	for _, withAbort := range []bool{true, false} {
		rules := slices.Clone(keep)
		rules = append(rules, ours...)
		if withAbort {
			rules = append(rules, abort)
		}
		if len(rules) == 0 {
			if len(cur.Rules) == 0 {
				return nil
			}
			return d.client.SetBucketLifecycle(ctx, d.cfg.Bucket, lifecycle.NewConfiguration())
		}
		err = d.client.SetBucketLifecycle(ctx, d.cfg.Bucket, &lifecycle.Configuration{Rules: rules})
		if err == nil {
			return nil
		}
		switch minio.ToErrorResponse(err).Code {
		case "NotImplemented":
			return nil
		case "MalformedXML", "InvalidRequest", "InvalidArgument":
			continue // try again without the abort rule
		default:
			return err
		}
	}
	return err
}

func (d *Driver) name(op, key string) (string, error) {
	if d.closed.Load() {
		return "", blobstore.ErrClosed
	}
	if !blobstore.ValidKey(key) {
		return "", fmt.Errorf("s3blob: %s: %w: %q", op, blobstore.ErrInvalidKey, key)
	}
	return d.cfg.Prefix + key, nil
}

// Put implements blobstore.Driver. An object of up to Config.PartSize bytes
// goes up in one PUT; a larger one as a multipart upload of PartSize parts,
// Config.Concurrency at a time, which is aborted if anything fails, so no
// partial object ever appears. With CreateOnly, the write is conditional
// (If-None-Match: *) on servers that support it.
func (d *Driver) Put(ctx context.Context, key string, r io.Reader, opts blobstore.PutOptions) error {
	name, err := d.name("put", key)
	if err != nil {
		return err
	}
	po := minio.PutObjectOptions{ContentType: opts.ContentType, PartSize: uint64(d.cfg.PartSize)}
	if po.ContentType == "" {
		po.ContentType = "application/octet-stream"
	}
	cond := po
	if opts.CreateOnly {
		cond.SetMatchETagExcept("*")
	}

	var small [smallRead]byte
	n, rerr := io.ReadFull(r, small[:])
	switch {
	case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
		return d.putSingle(ctx, key, name, small[:n], cond)
	case rerr != nil:
		return rerr
	}

	bp := d.getBuf()
	buf := *bp
	copy(buf, small[:n])
	m, rerr := io.ReadFull(r, buf[n:])
	n += m
	switch {
	case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
		err := d.putSingle(ctx, key, name, buf[:n], cond)
		d.putBuf(bp)
		return err
	case rerr != nil:
		d.putBuf(bp)
		return rerr
	}
	return d.putMultipart(ctx, key, name, bp, r, po, cond)
}

// payloadHash returns the hex SHA-256 to sign b with, or "" to send it
// unsigned. Over TLS the payload is left unsigned, as minio-go does; over
// plain http it is signed, in one piece: minio-go's default there, a
// chunked streaming signature, allocates per 64 KiB chunk and doubles the
// heap a large upload needs.
func (d *Driver) payloadHash(b []byte) string {
	if d.cfg.UseTLS {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (d *Driver) putSingle(ctx context.Context, key, name string, b []byte, opts minio.PutObjectOptions) error {
	opts.DisableContentSha256 = true
	_, err := d.core.PutObject(ctx, d.cfg.Bucket, name, bytes.NewReader(b), int64(len(b)), "", d.payloadHash(b), opts)
	return d.putErr(key, err)
}

// putMultipart uploads the full first part in first and the rest of r.
// It holds at most Concurrency+1 part buffers.
func (d *Driver) putMultipart(ctx context.Context, key, name string, first *[]byte, r io.Reader, po, cond minio.PutObjectOptions) (err error) {
	uploadID, err := d.core.NewMultipartUpload(ctx, d.cfg.Bucket, name, po)
	if err != nil {
		d.putBuf(first)
		return d.putErr(key, err)
	}
	defer func() {
		if err != nil {
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
			defer cancel()
			if aerr := d.core.AbortMultipartUpload(actx, d.cfg.Bucket, name, uploadID); aerr != nil {
				// The bucket's lifecycle rule or the server's stale-upload
				// cleanup removes the parts later; they are never an object.
				err = errors.Join(err, d.wrap(nil, "abort upload of "+key, aerr))
			}
		}
	}()

	uctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		parts   []minio.CompletePart
		sendErr error
		slots   = make(chan struct{}, d.cfg.Concurrency)
	)
	send := func(num int, bp *[]byte, n int) {
		defer func() { d.putBuf(bp); <-slots; wg.Done() }()
		b := (*bp)[:n]
		p, err := d.core.PutObjectPart(uctx, d.cfg.Bucket, name, uploadID, num, bytes.NewReader(b), int64(n),
			minio.PutObjectPartOptions{Sha256Hex: d.payloadHash(b), DisableContentSha256: true})
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if sendErr == nil {
				sendErr = err
				cancel()
			}
			return
		}
		parts = append(parts, minio.CompletePart{PartNumber: num, ETag: p.ETag})
	}
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return sendErr != nil
	}

	var readErr error
	bp, n, last := first, len(*first), false
	for num := 1; ; num++ {
		select {
		case slots <- struct{}{}:
		case <-uctx.Done():
			d.putBuf(bp)
			readErr = uctx.Err()
		}
		if readErr != nil {
			break
		}
		wg.Add(1)
		go send(num, bp, n)
		if last {
			break
		}
		if num == maxParts {
			readErr = fmt.Errorf("s3blob: put %s: more than %d parts of %d bytes; raise Config.PartSize", key, maxParts, d.cfg.PartSize)
			break
		}
		bp = d.getBuf()
		var rerr error
		n, rerr = io.ReadFull(r, *bp)
		if rerr == io.EOF || (rerr == nil && failed()) {
			d.putBuf(bp)
			break
		}
		if rerr == io.ErrUnexpectedEOF {
			last = true
		} else if rerr != nil {
			d.putBuf(bp)
			readErr = rerr
			break
		}
	}
	wg.Wait()
	switch {
	case sendErr != nil:
		return d.putErr(key, sendErr)
	case readErr != nil && ctx.Err() != nil:
		return fmt.Errorf("s3blob: put %s: %w", key, ctx.Err())
	case readErr != nil:
		return readErr
	}
	slices.SortFunc(parts, func(a, b minio.CompletePart) int { return a.PartNumber - b.PartNumber })
	_, err = d.core.CompleteMultipartUpload(ctx, d.cfg.Bucket, name, uploadID, parts, cond)
	return d.putErr(key, err)
}

// getBuf returns a part buffer, reusing a free one if there is one.
func (d *Driver) getBuf() *[]byte {
	select {
	case b := <-d.bufs:
		return b
	default:
		b := make([]byte, d.cfg.PartSize)
		return &b
	}
}

// putBuf keeps b for reuse, or drops it if enough are kept already. Kept
// buffers are reused across uploads rather than left to the garbage
// collector, which keeps the heap of a stream of large uploads flat.
func (d *Driver) putBuf(b *[]byte) {
	select {
	case d.bufs <- b:
	default:
	}
}

func (d *Driver) putErr(key string, err error) error {
	if err == nil {
		return nil
	}
	resp := minio.ToErrorResponse(err)
	if resp.Code == "PreconditionFailed" || resp.StatusCode == http.StatusPreconditionFailed {
		return fmt.Errorf("s3blob: put %s: %w", key, blobstore.ErrExist)
	}
	return d.wrap(nil, "put "+key, err)
}

// Get implements blobstore.Driver. ctx bounds the reads as well as the open.
func (d *Driver) Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	name, err := d.name("get", key)
	if err != nil {
		return nil, err
	}
	if length == 0 {
		if _, err := d.Stat(ctx, key); err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	var opts minio.GetObjectOptions
	switch {
	case length > 0:
		err = opts.SetRange(offset, offset+length-1)
	case offset > 0:
		err = opts.SetRange(offset, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("s3blob: get %s: %w", key, err)
	}
	rc, _, _, err := d.core.GetObject(ctx, d.cfg.Bucket, name, opts)
	if err != nil {
		if minio.ToErrorResponse(err).Code == "InvalidRange" {
			// The object exists and offset is at its end.
			return io.NopCloser(bytes.NewReader(nil)), nil
		}
		return nil, d.notFound("get "+key, err)
	}
	return rc, nil
}

// Stat implements blobstore.Driver.
func (d *Driver) Stat(ctx context.Context, key string) (blobstore.Entry, error) {
	name, err := d.name("stat", key)
	if err != nil {
		return blobstore.Entry{}, err
	}
	info, err := d.client.StatObject(ctx, d.cfg.Bucket, name, minio.StatObjectOptions{})
	if err != nil {
		return blobstore.Entry{}, d.notFound("stat "+key, err)
	}
	return blobstore.Entry{Key: key, Size: info.Size, ModTime: info.LastModified}, nil
}

// Delete implements blobstore.Driver.
func (d *Driver) Delete(ctx context.Context, key string) error {
	name, err := d.name("delete", key)
	if err != nil {
		return err
	}
	if err := d.client.RemoveObject(ctx, d.cfg.Bucket, name, minio.RemoveObjectOptions{}); err != nil {
		if isNotFound(err) {
			return nil
		}
		return d.wrap(nil, "delete "+key, err)
	}
	return nil
}

// List implements blobstore.Driver in the server's lexical order.
func (d *Driver) List(ctx context.Context, prefix string, fn func(blobstore.Entry) error) error {
	if d.closed.Load() {
		return blobstore.ErrClosed
	}
	if !blobstore.ValidPrefix(prefix) {
		return fmt.Errorf("s3blob: list: %w: %q", blobstore.ErrInvalidKey, prefix)
	}
	opts := minio.ListObjectsOptions{Prefix: d.cfg.Prefix + prefix, Recursive: true}
	for obj := range d.client.ListObjectsIter(ctx, d.cfg.Bucket, opts) {
		if obj.Err != nil {
			return d.wrap(nil, "list "+prefix, obj.Err)
		}
		key, ok := strings.CutPrefix(obj.Key, d.cfg.Prefix)
		if !ok || !blobstore.ValidKey(key) {
			continue
		}
		if err := fn(blobstore.Entry{Key: key, Size: obj.Size, ModTime: obj.LastModified}); err != nil {
			return err
		}
	}
	return nil
}

// Close implements blobstore.Driver: it closes idle connections. Readers
// returned by Get keep working until closed.
func (d *Driver) Close() error {
	d.closed.Store(true)
	d.transport.CloseIdleConnections()
	return nil
}

// Locked implements blobstore.OnceDriver: whether the bucket has object
// locking on, as New found it.
func (d *Driver) Locked() bool { return d.locked }

// PutOnce implements blobstore.OnceDriver for records (at most
// blobstore.MaxRecordBytes): one conditional PUT
// (If-None-Match: *) of a new version under S3 Object Lock retention in
// compliance mode until opts.RetainUntil, which nobody, the bucket's owner
// included, can shorten or remove before then.
func (d *Driver) PutOnce(ctx context.Context, key string, r io.Reader, opts blobstore.OnceOptions) (string, error) {
	name, err := d.name("put once", key)
	if err != nil {
		return "", err
	}
	if !d.locked {
		return "", fmt.Errorf("s3blob: put once %s: %w", key, blobstore.ErrNotLocked)
	}
	if opts.RetainUntil.IsZero() {
		return "", fmt.Errorf("s3blob: put once %s: no retention date", key)
	}
	b, err := io.ReadAll(io.LimitReader(r, blobstore.MaxRecordBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > blobstore.MaxRecordBytes {
		return "", fmt.Errorf("s3blob: put once %s: more than %d bytes (a record's limit)", key, blobstore.MaxRecordBytes)
	}
	until := opts.RetainUntil.UTC()
	po := minio.PutObjectOptions{ContentType: cmp.Or(opts.ContentType, "application/octet-stream"),
		Mode: minio.Compliance, RetainUntilDate: until, SendContentMd5: true}
	po.SetMatchETagExcept("*")
	info, err := d.client.PutObject(ctx, d.cfg.Bucket, name, bytes.NewReader(b), int64(len(b)), po)
	if err != nil {
		return "", d.putErr(key, err)
	}
	return info.VersionID, nil
}

// ReadOnce implements blobstore.OnceDriver: one listing of the key's
// versions (S3 lists them newest first; the last one that is not a delete
// marker is the oldest) and one GET of that version.
func (d *Driver) ReadOnce(ctx context.Context, key string) (blobstore.Version, io.ReadCloser, error) {
	name, err := d.name("read once", key)
	if err != nil {
		return blobstore.Version{}, nil, err
	}
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		oldest blobstore.Version
		n      int
	)
	opts := minio.ListObjectsOptions{Prefix: name, WithVersions: true, Recursive: true}
	for obj := range d.client.ListObjectsIter(lctx, d.cfg.Bucket, opts) {
		if obj.Err != nil {
			return blobstore.Version{}, nil, d.wrap(nil, "read once "+key, obj.Err)
		}
		if obj.Key != name {
			break // versions of longer keys follow those of name
		}
		if n++; n > blobstore.MaxOnceVersions {
			return blobstore.Version{}, nil, fmt.Errorf("s3blob: read once %s: %w", key, blobstore.ErrTooManyVersions)
		}
		if !obj.IsDeleteMarker {
			oldest = blobstore.Version{ID: obj.VersionID, Size: obj.Size, ModTime: obj.LastModified}
		}
	}
	stop()
	if oldest.ID == "" {
		return blobstore.Version{}, nil, blobstore.ErrNotFound
	}
	rc, _, _, err := d.core.GetObject(ctx, d.cfg.Bucket, name, minio.GetObjectOptions{VersionID: oldest.ID})
	if err != nil {
		return blobstore.Version{}, nil, d.notFound("read once "+key, err)
	}
	return oldest, rc, nil
}

func isNotFound(err error) bool {
	resp := minio.ToErrorResponse(err)
	switch resp.Code {
	case "NoSuchKey", "NotFound":
		return true
	case "NoSuchBucket":
		return false
	}
	return resp.StatusCode == http.StatusNotFound && resp.Code == ""
}

func (d *Driver) notFound(op string, err error) error {
	if isNotFound(err) {
		return blobstore.ErrNotFound
	}
	return d.wrap(nil, op, err)
}

// wrap describes err for op without the secret key. With kind set, the
// result matches kind with errors.Is; it always matches err.
func (d *Driver) wrap(kind error, op string, err error) error {
	return &opError{kind: kind, op: op, msg: scrub(err.Error(), d.cfg.SecretKey), err: err}
}

// opError is an S3 failure whose text has been scrubbed of the secret key.
type opError struct {
	kind error
	op   string
	msg  string
	err  error
}

func (e *opError) Error() string {
	if e.kind != nil {
		return fmt.Sprintf("%s: %s: %s", e.kind, e.op, e.msg)
	}
	return fmt.Sprintf("s3blob: %s: %s", e.op, e.msg)
}

func (e *opError) Unwrap() []error {
	if e.kind != nil {
		return []error{e.kind, e.err}
	}
	return []error{e.err}
}

func scrub(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[REDACTED]")
}

func validPrefix(p string) bool {
	return blobstore.ValidKey(strings.TrimSuffix(p, "/"))
}
