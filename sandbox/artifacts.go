package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
)

// ArtifactReader returns the content of the artifact ref, if it holds at
// most max bytes. It fails with a *ReadError for the script to see; any
// other error ends the run as a host error. ctx is the run's.
type ArtifactReader func(ctx context.Context, ref string, max int64) ([]byte, error)

// ReadError is a refused artifact read: the script's promise rejects with
// an Error whose .reason is Reason (a stable code such as
// artifact_not_found or artifact_too_large) and whose .message is Message.
// Size is the artifact's size, when Reason is artifact_too_large.
type ReadError struct {
	Reason, Message string
	Size            int64
}

func (e *ReadError) Error() string { return e.Message }

// Read modes of OpRead.
const (
	readText   = 0
	readBase64 = 1
	readError  = 2 // the last refused read's {"reason","message"}
)

// maxRefBytes bounds an artifact ref a script passes to OpRead.
const maxRefBytes = 256

// MinReadCharge is the least an artifact read costs against
// Limits.MaxReadBytes, whether it is answered or refused.
const MinReadCharge = 4 << 10

// read handles OpRead (ref, mode): it reads an artifact through the
// script's ArtifactReader, within what is left of Limits.MaxReadBytes and
// never more than the memory limit, and answers its content as a string
// (text, or base64), or -1 when the read was refused; mode readError then
// answers why, as {"reason","message"}.
func (r *scriptRun) read(ctx context.Context, args []uint64) uint64 {
	ref := string(r.copyStr(ctx, r.str(ctx, args, 1), maxRefBytes+1))
	mode := int32(readText)
	if len(args) > 2 {
		mode, _ = quickjs.DecodeInt(args[2])
	}
	if mode == readError {
		return r.newString(ctx, r.readErr)
	}
	refuse := func(reason, format string, a ...any) uint64 {
		r.readErr, _ = json.Marshal(map[string]string{"reason": reason, "message": fmt.Sprintf(format, a...)})
		return quickjs.Int(-1)
	}
	if len(ref) > maxRefBytes || r.artifacts == nil {
		return refuse("artifact_not_found", "artifact %.64q not found", ref)
	}
	left := r.lim.MaxReadBytes - r.readBytes
	if left < MinReadCharge {
		return refuse("read_limit", "the chain's artifact reads are past max_read_bytes (%d)", r.lim.MaxReadBytes)
	}
	room := int64(r.lim.MemoryBytes) // what the guest could hold
	if mode == readBase64 {
		room = room / 4 * 3 // the base64 text must fit
	}
	limit := min(left, room)
	data, err := r.artifacts(ctx, ref, limit)
	// Every read costs at least MinReadCharge, refused or not, so that a
	// loop of reads cannot hit the store without bound.
	r.readBytes += max(int64(len(data)), MinReadCharge)
	var re *ReadError
	switch {
	case errors.As(err, &re):
		if re.Reason == "artifact_too_large" && re.Size <= room {
			return refuse("read_limit", "reading artifact %s (%d bytes) would pass the chain's read budget (max_read_bytes %d; %d left)",
				ref, re.Size, r.lim.MaxReadBytes, left)
		}
		if re.Reason == "artifact_too_large" {
			return refuse(re.Reason, "artifact %s holds %d bytes, more than the guest's memory limit of %s can read", ref, re.Size, mib(r.lim.MemoryBytes))
		}
		return refuse(re.Reason, "%s", re.Message)
	case err != nil:
		r.stop(&ExitError{Kind: HostError, Message: "reading an artifact failed", Err: err})
	case int64(len(data)) > limit:
		r.stop(&ExitError{Kind: HostError, Message: "reading an artifact failed",
			Err: fmt.Errorf("sandbox: ArtifactReader returned %d bytes, more than the %d asked for", len(data), limit)})
	}
	if mode == readBase64 {
		return r.newString(ctx, base64.StdEncoding.AppendEncode(nil, data))
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return refuse("not_text", "artifact %s holds binary data (a NUL byte at offset %d): read it with bytes()", ref, i)
	}
	return r.newString(ctx, data)
}
