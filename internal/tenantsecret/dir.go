package tenantsecret

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/airlockrt/airlock/blobstore"
)

// Dir reads secrets from files: secret NAME of tenant T is the file
// <dir>/T/NAME, read on every call. It implements toolbox.TenantSecrets.
type Dir struct {
	dir string
	max int64
}

// NewDir returns the source of the directory dir (absolute), with values
// of at most maxBytes (<= 0: DefaultMaxBytes). The directory need not exist
// yet: a tenant's secrets are looked up when a call needs them.
func NewDir(dir string, maxBytes int64) *Dir {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Dir{dir: filepath.Clean(dir), max: maxBytes}
}

// TenantSecret implements toolbox.TenantSecrets. The tenant's subdirectory
// is opened as an os.Root, so a symbolic link in it is followed only while
// it stays inside it: the ..data links of a mounted Kubernetes secret
// work, a link to another tenant's subdirectory or anywhere else does not.
// The file is opened without blocking (a FIFO cannot hold the call), must
// be a regular file of at most the size bound, and loses one trailing
// line break ("\n" or "\r\n"), which editors and `echo` add.
func (d *Dir) TenantSecret(ctx context.Context, tenant, name string) (string, error) {
	if !blobstore.ValidTenant(tenant) || !ValidName(name) {
		return "", fmt.Errorf("%w: %q of tenant %q", ErrInvalidName, name, tenant)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	missing := fmt.Errorf("%w: tenant %q has no readable secret %s", ErrUnavailable, tenant, name)
	root, err := os.OpenRoot(filepath.Join(d.dir, tenant))
	if err != nil {
		return "", missing
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", missing
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", missing
	}
	tooLarge := fmt.Errorf("%w: secret %s of tenant %q is larger than %d bytes", ErrTooLarge, name, tenant, d.max)
	if fi.Size() > d.max {
		return "", tooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, d.max+1))
	switch {
	case err != nil:
		return "", missing
	case int64(len(b)) > d.max:
		return "", tooLarge
	}
	v := trimNewline(string(b))
	if v == "" {
		return "", missing
	}
	return v, nil
}

// trimNewline removes one trailing "\n" or "\r\n".
func trimNewline(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
	}
	return s
}
