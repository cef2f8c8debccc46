package quickjs

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"slices"
	"sync"
)

// A parked instance is a Snapshot of an instance in the middle of a run,
// between two guest entries, that a later Restore (possibly in another
// process) continues from. Unlike a warm-pool Snapshot it may hold the host's
// clock readings: the run that resumes it is the same run. Its memory is
// recorded against a base, the engine's prepared Snapshot when there is one
// (so only what the script itself changed is kept), else the module as
// instantiated; Marshal writes it out and Unmarshal reads it back.

// Base is what a parked instance's memory is a difference against: the image
// of a prepared Snapshot, or of the bare module.
type Base struct {
	snap *Snapshot // nil: the bare module
	once sync.Once
	img  []byte
	id   string
	err  error
}

// BaseOf returns the base for s (nil: the bare module). The image is built
// once, on first use, by instantiating the module.
func BaseOf(s *Snapshot) *Base {
	if s == nil {
		return &Base{}
	}
	s.baseOnce.Do(func() { s.base = &Base{snap: s} })
	return s.base
}

// image returns the base's memory and its identity: the SHA-256 of the
// module and of that memory, so that a state captured against one base is
// never restored onto another.
func (b *Base) image(ctx context.Context, r *Runtime, heapLimit uint64) ([]byte, string, error) {
	if b.snap != nil {
		heapLimit = b.snap.heapLimit
	}
	b.once.Do(func() {
		bare, err := r.instantiate(ctx, r.newSysState(), heapLimit)
		if err != nil {
			b.err = err
			return
		}
		defer bare.Close(ctx)
		mem, _ := bare.mem.Read(0, bare.mem.Size())
		img := slices.Clone(mem)
		if s := b.snap; s != nil {
			if need := int(s.pages) * PageSize; need > len(img) {
				img = append(img, make([]byte, need-len(img))...)
			}
			for _, c := range s.chunks {
				copy(img[c.off:], c.data)
			}
		}
		h := sha256.New()
		h.Write(moduleHash())
		h.Write(img)
		b.img, b.id = img, hex.EncodeToString(h.Sum(nil))
	})
	return b.img, b.id, b.err
}

var moduleHash = sync.OnceValue(func() []byte {
	sum := sha256.Sum256(wasmBytes)
	return sum[:]
})

// Capture records in's whole state, in the middle of a run, as a difference
// against base. in must be between guest calls; it is not changed.
func (r *Runtime) Capture(ctx context.Context, in *Instance, base *Base) (*Snapshot, error) {
	if !in.layout.SnapshotSafe {
		return nil, fmt.Errorf("%w: the module changes its tables or segments", ErrNoSnapshot)
	}
	if in.closed {
		return nil, fmt.Errorf("%w: instance closed", ErrGuest)
	}
	if base.snap != nil && base.snap.heapLimit != in.heapLimit {
		return nil, errors.New("quickjs: capturing: the base was prepared for another memory limit")
	}
	img, id, err := base.image(ctx, r, in.heapLimit)
	if err != nil {
		return nil, err
	}
	cur, _ := in.mem.Read(0, in.mem.Size())
	if len(cur) < len(img) {
		return nil, errors.New("quickjs: capturing: the instance's memory is smaller than its base")
	}
	s := &Snapshot{heapLimit: in.heapLimit, pages: in.mem.Size() / PageSize, rt: in.rt, ctx: in.ctx,
		undefined: in.undefined, compiled: maps.Clone(in.compiled), baseID: id}
	// Between guest calls the stack pointer is at the top of the stack
	// region and everything below it is dead: the region is left out (a
	// restored instance reads the base's bytes there), so a chain that
	// once recursed deep does not park its stale frames.
	var dead [2]uint32
	if in.sp != nil {
		if sp, top := uint32(in.sp.Get()), in.stackTop(); sp == top && top >= StackRegion {
			dead = [2]uint32{top - StackRegion, top}
		}
	}
	s.chunks, s.size = diff(cur, img, true, dead)
	if s.globals, err = in.globals(); err != nil {
		return nil, err
	}
	s.sys = sysState{wallReads: in.sys.wallReads, monoReads: in.sys.monoReads, randBytes: in.sys.randBytes}
	return s, nil
}

// diff returns the chunks of cur that differ from ref (zero beyond it), as
// they are, or with xor, XORed with ref: a script changes a few bytes here
// and there in most pages it touches, and the runs of zeros this leaves
// compress to almost nothing. Chunks wholly inside [dead[0], dead[1]) are
// left out.
func diff(cur, ref []byte, xor bool, dead [2]uint32) ([]chunk, int) {
	var chunks []chunk
	size := 0
	var zero [chunkSize]byte
	for off := 0; off+chunkSize <= len(cur); off += chunkSize {
		if uint32(off) >= dead[0] && uint32(off+chunkSize) <= dead[1] {
			continue
		}
		page := cur[off : off+chunkSize]
		want := zero[:]
		if off+chunkSize <= len(ref) {
			want = ref[off : off+chunkSize]
		}
		if bytes.Equal(page, want) {
			continue
		}
		x := slices.Clone(page)
		if xor {
			subtle.XORBytes(x, page, want)
		}
		if n := len(chunks); n > 0 && int(chunks[n-1].off)+len(chunks[n-1].data) == off {
			chunks[n-1].data = append(chunks[n-1].data, x...)
		} else {
			chunks = append(chunks, chunk{off: uint32(off), data: x})
		}
		size += chunkSize
	}
	return chunks, size
}

func (in *Instance) globals() ([]uint64, error) {
	out := make([]uint64, 0, len(in.layout.Globals))
	for _, name := range in.layout.Globals {
		g := in.mod.ExportedGlobal(name)
		if g == nil {
			return nil, fmt.Errorf("quickjs: module lacks export %s", name)
		}
		out = append(out, g.Get())
	}
	return out, nil
}

// BaseID returns the identity of the base a captured Snapshot differs from.
func (s *Snapshot) BaseID() string { return s.baseID }

// HeapLimit returns the QuickJS heap limit of the captured instance.
func (s *Snapshot) HeapLimit() uint64 { return s.heapLimit }

// The marshalled form: a header, the chunks through DEFLATE, then a
// CRC-32C of the header and the chunks as decompressed (castagnoli).
const (
	parkMagic   = "AQJS"
	parkVersion = 2
	// maxCompiled bounds the precompiled entries a marshalled Snapshot may
	// name, and maxCodeBytes the length of each one's code.
	maxCompiled  = 16
	maxCodeBytes = 256
)

// ErrIncompatible is returned by Unmarshal and Runtime.RestoreParked for a
// state written by another version of the engine or captured against a
// base this runtime does not have.
var ErrIncompatible = errors.New("quickjs: parked state from an incompatible engine")

// ErrCorrupt is returned by Unmarshal for bytes that are not a well-formed
// parked state.
var ErrCorrupt = errors.New("quickjs: malformed parked state")

// Marshal writes a captured Snapshot.
func (s *Snapshot) Marshal(w io.Writer) error {
	var hdr bytes.Buffer
	hdr.WriteString(parkMagic)
	put := func(v uint64) { hdr.Write(binary.AppendUvarint(nil, v)) }
	putStr := func(v string) { put(uint64(len(v))); hdr.WriteString(v) }
	put(parkVersion)
	putStr(s.baseID)
	put(s.heapLimit)
	put(uint64(s.pages))
	put(s.rt)
	put(s.ctx)
	put(s.undefined)
	put(uint64(s.sys.wallReads))
	put(uint64(s.sys.monoReads))
	put(uint64(s.sys.randBytes))
	put(uint64(len(s.globals)))
	for _, g := range s.globals {
		put(g)
	}
	keys := slices.Sorted(maps.Keys(s.compiled))
	put(uint64(len(keys)))
	for _, k := range keys {
		putStr(k)
		put(uint64(s.compiled[k]))
	}
	put(uint64(len(s.chunks)))
	for _, c := range s.chunks {
		put(uint64(c.off))
		put(uint64(len(c.data)))
	}
	if _, err := w.Write(hdr.Bytes()); err != nil {
		return err
	}
	fw, err := flate.NewWriter(w, flate.BestSpeed)
	if err != nil {
		return err
	}
	sum := crc32.New(castagnoli)
	sum.Write(hdr.Bytes())
	for _, c := range s.chunks {
		sum.Write(c.data)
		if _, err := fw.Write(c.data); err != nil {
			return err
		}
	}
	if err := fw.Close(); err != nil {
		return err
	}
	_, err = w.Write(sum.Sum(nil))
	return err
}

// castagnoli is the CRC-32C table of the check a state ends with: over its
// header and its memory as decompressed, so that a state damaged anywhere
// (DEFLATE itself has no check: a changed byte may decompress to other
// memory without an error) is refused rather than resumed. It guards
// against damage, not forgery: durable seals what it stores.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Unmarshal reads a Snapshot Marshal wrote. Nothing in data is trusted:
// every count and offset is checked against maxPages of memory before
// anything is allocated for it.
func Unmarshal(data []byte, maxPages uint32) (*Snapshot, error) {
	rd := bytes.NewReader(data)
	magic := make([]byte, len(parkMagic))
	if _, err := io.ReadFull(rd, magic); err != nil || string(magic) != parkMagic {
		return nil, fmt.Errorf("%w: not a parked engine state", ErrCorrupt)
	}
	var err error
	get := func() uint64 {
		if err != nil {
			return 0
		}
		v, rerr := binary.ReadUvarint(rd)
		if rerr != nil {
			// Every read error is the state's fault: cut short, or a
			// number too long.
			err = fmt.Errorf("%w: %v", ErrCorrupt, rerr)
		}
		return v
	}
	getStr := func(max uint64) string {
		n := get()
		if err != nil || n > max || n > uint64(rd.Len()) {
			if err == nil {
				err = fmt.Errorf("%w: string too long", ErrCorrupt)
			}
			return ""
		}
		b := make([]byte, n)
		_, _ = io.ReadFull(rd, b)
		return string(b)
	}
	if v := get(); err == nil && v != parkVersion {
		return nil, fmt.Errorf("%w: format version %d, this engine reads %d", ErrIncompatible, v, parkVersion)
	}
	s := &Snapshot{baseID: getStr(128), heapLimit: get()}
	pages := get()
	s.rt, s.ctx, s.undefined = get(), get(), get()
	s.sys.wallReads, s.sys.monoReads, s.sys.randBytes = int64(get()), int64(get()), int64(get())
	if err != nil {
		return nil, err
	}
	if pages == 0 || pages > uint64(maxPages) {
		return nil, fmt.Errorf("%w: %d pages of memory, more than the %d this engine allows", ErrCorrupt, pages, maxPages)
	}
	s.pages = uint32(pages)
	memSize := pages * PageSize
	if ng := get(); err == nil && ng <= 64 {
		for range ng {
			s.globals = append(s.globals, get())
		}
	} else if err == nil {
		err = fmt.Errorf("%w: %d globals", ErrCorrupt, ng)
	}
	if nc := get(); err == nil && nc <= maxCompiled {
		s.compiled = make(map[string]uint32, nc)
		for range nc {
			k := getStr(maxCodeBytes)
			v := get()
			if v >= memSize {
				err = fmt.Errorf("%w: precompiled code outside memory", ErrCorrupt)
			}
			s.compiled[k] = uint32(v)
		}
	} else if err == nil {
		err = fmt.Errorf("%w: %d precompiled entries", ErrCorrupt, nc)
	}
	nchunks := get()
	if err == nil && nchunks > memSize/chunkSize {
		err = fmt.Errorf("%w: %d memory chunks", ErrCorrupt, nchunks)
	}
	if err != nil {
		return nil, err
	}
	end := uint64(0)
	sizes := make([]uint64, 0, min(nchunks, 1024))
	for range nchunks {
		off, n := get(), get()
		if err != nil {
			return nil, err
		}
		// Each bound on its own: off+n must not wrap.
		if off < end || off%chunkSize != 0 || n == 0 || n%chunkSize != 0 || n > memSize || off > memSize-n {
			return nil, fmt.Errorf("%w: memory chunk out of order or out of bounds", ErrCorrupt)
		}
		end = off + n
		s.chunks = append(s.chunks, chunk{off: uint32(off)})
		sizes = append(sizes, n)
		s.size += int(n)
	}
	sum := crc32.New(castagnoli)
	sum.Write(data[:len(data)-rd.Len()])
	// The bytes are allocated as they decompress, never ahead of them: a
	// short state cannot make this allocate the memory it claims.
	fr := flate.NewReader(rd)
	defer fr.Close()
	for i := range s.chunks {
		var buf bytes.Buffer
		if n, err := io.Copy(&buf, io.LimitReader(fr, int64(sizes[i]))); err != nil || uint64(n) != sizes[i] {
			return nil, fmt.Errorf("%w: memory cut short (%v)", ErrCorrupt, err)
		}
		s.chunks[i].data = buf.Bytes()
		sum.Write(s.chunks[i].data)
	}
	// The stream must end where the chunks do, and the state with it: a
	// state cut inside the stream's last block, or with bytes after it, is
	// not one Marshal wrote.
	switch n, err := fr.Read(make([]byte, 1)); {
	case n != 0:
		return nil, fmt.Errorf("%w: trailing memory bytes", ErrCorrupt)
	case err != io.EOF:
		return nil, fmt.Errorf("%w: memory stream cut short (%v)", ErrCorrupt, err)
	case rd.Len() != crc32.Size:
		return nil, fmt.Errorf("%w: %d bytes after the memory stream, want its %d-byte check", ErrCorrupt, rd.Len(), crc32.Size)
	}
	if want := data[len(data)-crc32.Size:]; !bytes.Equal(sum.Sum(nil), want) {
		return nil, fmt.Errorf("%w: its check does not match its bytes", ErrCorrupt)
	}
	return s, nil
}

// RestoreParked creates an instance in the state a captured Snapshot
// recorded, over base, which must be the base it was captured against.
func (r *Runtime) RestoreParked(ctx context.Context, s *Snapshot, base *Base) (*Instance, error) {
	if base.snap != nil && base.snap.heapLimit != s.heapLimit {
		return nil, fmt.Errorf("%w: prepared for another memory limit", ErrIncompatible)
	}
	img, id, err := base.image(ctx, r, s.heapLimit)
	if err != nil {
		return nil, err
	}
	if id != s.baseID {
		return nil, fmt.Errorf("%w: its base engine image differs from this one's", ErrIncompatible)
	}
	if len(s.globals) != len(r.mod.layout.Globals) {
		return nil, fmt.Errorf("%w: %d globals, the module has %d", ErrIncompatible, len(s.globals), len(r.mod.layout.Globals))
	}
	if base.snap != nil && s.pages < base.snap.pages {
		return nil, fmt.Errorf("%w: memory smaller than its base", ErrCorrupt)
	}
	// Each chunk is the XOR of the page with the base's: undo it into a
	// copy (s stays as it was), then lay the pages over the base.
	pages := make([]chunk, len(s.chunks))
	for i, c := range s.chunks {
		p := chunk{off: c.off, data: slices.Clone(c.data)}
		if int(c.off) < len(img) {
			subtle.XORBytes(p.data, p.data, img[c.off:min(int(c.off)+len(c.data), len(img))])
		}
		pages[i] = p
	}
	layered := &Snapshot{pages: s.pages, chunks: pages, globals: s.globals, rt: s.rt, ctx: s.ctx,
		undefined: s.undefined, compiled: s.compiled, sys: s.sys, heapLimit: s.heapLimit}
	if base.snap != nil {
		layered.chunks = append(slices.Clone(base.snap.chunks), pages...)
	}
	return r.Restore(ctx, layered)
}
