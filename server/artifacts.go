package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/service"
)

// artifact handles GET /v1/artifacts/{ref}: the blob's bytes, if ref is a
// live artifact of the tenant.
func (s *Server) artifact(w http.ResponseWriter, r *http.Request, c service.Caller) {
	ref := r.PathValue("ref")
	if s.opts.Store == nil {
		artifactNotFound(w, ref)
		return
	}
	rc, attrs, err := s.opts.Store.Open(r.Context(), c.Tenant, ref)
	if err != nil {
		if errors.Is(err, blobstore.ErrNotFound) {
			artifactNotFound(w, ref)
			return
		}
		s.log.Error("reading an artifact failed", "err", err)
		writeError(w, http.StatusInternalServerError, ReasonInternal, "reading the artifact from the blob store failed")
		return
	}
	defer rc.Close()
	h := w.Header()
	h.Set("Content-Type", attrs.ContentType)
	h.Set("Content-Length", strconv.FormatInt(attrs.Size, 10))
	h.Set("ETag", `"`+attrs.SHA256+`"`)
	h.Set("Digest", "sha-256="+attrs.SHA256)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "private, max-age=300")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": ref + extension(attrs.ContentType)}))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, rc); err != nil {
		s.log.Debug("artifact download ended early", "err", err)
	}
}

func artifactNotFound(w http.ResponseWriter, ref string) {
	writeError(w, http.StatusNotFound, ReasonArtifactNotFound,
		fmt.Sprintf("no artifact %q for this API key (unpinned artifacts expire with the store's TTL)", clip(ref)))
}

func extension(contentType string) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "application/json":
		return ".json"
	case "text/plain":
		return ".txt"
	case "text/csv":
		return ".csv"
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/svg+xml":
		return ".svg"
	case "application/pdf":
		return ".pdf"
	}
	return ".bin"
}
