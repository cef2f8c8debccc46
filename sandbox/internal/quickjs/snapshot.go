package quickjs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/tetratelabs/wazero/api"

	"github.com/airlockrt/airlock/sandbox/internal/linmem"
)

// Snapshot is the state of an initialised instance, from which Restore
// creates new instances without running the initialisation again. An
// instance's whole mutable state is its linear memory, its mutable globals
// (Rewrite exports them), its clock and random source (sysState) and the
// host-side fields of Instance; the module's tables and segments never
// change (Layout.SnapshotSafe). A Snapshot is immutable and safe for
// concurrent use.
type Snapshot struct {
	pages     uint32   // memory size
	chunks    []chunk  // memory that differs from a just-instantiated module's
	globals   []uint64 // values of Layout.Globals, in order
	rt, ctx   uint64
	undefined uint64
	compiled  map[string]uint32
	funcs     map[string]uint64 // Instance.funcs; not marshalled: a parked instance looks them up again
	atoms     map[string]uint32 // Instance.atoms; likewise
	sys       sysState          // counters only
	size      int
	heapLimit uint64

	// A captured Snapshot (park.go) records the base it differs from.
	baseID string
	// base is this Snapshot as a Base, built on first use (BaseOf).
	baseOnce sync.Once
	base     *Base

	// A Snapshot taken by Runtime.Snapshot is restored many times: its
	// image, built on first use, is shared copy-on-write by the memories of
	// the instances restored from it (linmem.Image); raw is the image's
	// bytes (the Base's). img stays nil where that is not available.
	shared  bool
	imgOnce sync.Once
	img     *linmem.Image
	raw     []byte
}

// image returns s's shared image and its bytes, or nil.
func (s *Snapshot) image(ctx context.Context, r *Runtime) (*linmem.Image, []byte) {
	if !s.shared {
		return nil, nil
	}
	s.imgOnce.Do(func() {
		// Not bounded by ctx: a run's cancellation must not leave the
		// Base's error behind for every later capture.
		raw, _, err := BaseOf(s).image(context.WithoutCancel(ctx), r, s.heapLimit)
		if err != nil || len(raw) != int(s.pages)*PageSize {
			return
		}
		if img, err := linmem.NewImage(raw); err == nil {
			s.img, s.raw = img, raw
		}
	})
	return s.img, s.raw
}

type chunk struct {
	off  uint32
	data []byte
}

// chunkSize is the granularity at which memory is compared and copied: the
// usual OS page, so that untouched pages of a restored instance are never
// committed.
const chunkSize = 4096

// ErrNoSnapshot is returned by Runtime.Snapshot when an instance's state
// cannot be handed to other instances.
var ErrNoSnapshot = errors.New("quickjs: instance cannot be snapshotted")

// Bytes returns the memory the snapshot holds.
func (s *Snapshot) Bytes() int { return s.size }

// Snapshot records in's state. in must be between guest calls; it is not
// changed. It returns an error wrapping ErrNoSnapshot when in has read the
// host's clock or random source (their readings would be replayed to every
// restored instance) or the module keeps state outside memory and globals.
func (r *Runtime) Snapshot(ctx context.Context, in *Instance) (*Snapshot, error) {
	if !in.layout.SnapshotSafe {
		return nil, fmt.Errorf("%w: the module changes its tables or segments", ErrNoSnapshot)
	}
	if in.sys.readsHost() {
		return nil, fmt.Errorf("%w: it has read the host's clock or random source", ErrNoSnapshot)
	}
	if in.closed {
		return nil, fmt.Errorf("%w: instance closed", ErrGuest)
	}
	// The reference: memory as instantiation leaves it (static data only).
	bare, err := r.instantiate(ctx, r.newSysState(), in.heapLimit)
	if err != nil {
		return nil, err
	}
	defer bare.Close(ctx)
	base, _ := bare.mem.Read(0, bare.mem.Size())
	cur, _ := in.mem.Read(0, in.mem.Size())
	s := &Snapshot{heapLimit: in.heapLimit, pages: in.mem.Size() / PageSize, rt: in.rt, ctx: in.ctx, undefined: in.undefined,
		compiled: maps.Clone(in.compiled), funcs: maps.Clone(in.funcs), atoms: maps.Clone(in.atoms), shared: true}
	s.chunks, s.size = diff(cur, base, false, [2]uint32{})
	if s.globals, err = in.globals(); err != nil {
		return nil, err
	}
	s.sys = sysState{wallReads: in.sys.wallReads, monoReads: in.sys.monoReads, randBytes: in.sys.randBytes}
	return s, nil
}

// Restore creates an instance in the state s recorded: a new wasm instance
// whose memory, globals, clock and random source continue from where the
// snapshotted instance was.
func (r *Runtime) Restore(ctx context.Context, s *Snapshot) (_ *Instance, err error) {
	img, raw := s.image(ctx, r)
	in, fromImage, err := r.instantiateFrom(ctx, s.sys.resume(r), s.heapLimit, img)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			in.Close(ctx)
		}
	}()
	if cur := in.mem.Size() / PageSize; s.pages > cur {
		if _, ok := in.mem.Grow(s.pages - cur); !ok {
			return nil, fmt.Errorf("quickjs: restoring a snapshot of %d pages: memory limit too low", s.pages)
		}
	}
	buf, ok := in.mem.Read(0, s.pages*PageSize)
	if !ok {
		return nil, errors.New("quickjs: restoring a snapshot: memory smaller than recorded")
	}
	if fromImage && in.layout.Data == nil {
		// The memory is the image, except where instantiation wrote the
		// active data segments (all below the stack, Rewrite checks): put
		// back the pages the snapshot changed there. The rest is copied on
		// write.
		for off := 0; off < int(in.layout.StackBase); off += chunkSize {
			end := min(off+chunkSize, int(in.layout.StackBase))
			if !bytes.Equal(buf[off:end], raw[off:end]) {
				copy(buf[off:end], raw[off:end])
			}
		}
	} else if !fromImage {
		for _, c := range s.chunks {
			copy(buf[c.off:], c.data)
		}
	}
	for i, name := range in.layout.Globals {
		g, ok := in.mod.ExportedGlobal(name).(api.MutableGlobal)
		if !ok {
			return nil, fmt.Errorf("quickjs: export %s is not a mutable global", name)
		}
		g.Set(s.globals[i])
	}
	in.rt, in.ctx, in.undefined = s.rt, s.ctx, s.undefined
	// Shared, not copied: s never changes, and in copies them before it
	// writes one (ownMaps).
	in.compiled, in.funcs, in.atoms, in.sharedMaps = s.compiled, s.funcs, s.atoms, true
	return in, nil
}
