package quickjs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/tetratelabs/wazero/api"
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
	sys       sysState // counters only
	size      int
	heapLimit uint64

	// A captured Snapshot (park.go) records the base it differs from.
	baseID string
	// base is this Snapshot as a Base, built on first use (BaseOf).
	baseOnce sync.Once
	base     *Base
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
		compiled: maps.Clone(in.compiled)}
	s.chunks, s.size = diff(cur, base, false)
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
	in, err := r.instantiate(ctx, s.sys.resume(r), s.heapLimit)
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
	for _, c := range s.chunks {
		copy(buf[c.off:], c.data)
	}
	for i, name := range in.layout.Globals {
		g, ok := in.mod.ExportedGlobal(name).(api.MutableGlobal)
		if !ok {
			return nil, fmt.Errorf("quickjs: export %s is not a mutable global", name)
		}
		g.Set(s.globals[i])
	}
	in.rt, in.ctx, in.undefined = s.rt, s.ctx, s.undefined
	in.compiled = maps.Clone(s.compiled)
	return in, nil
}
