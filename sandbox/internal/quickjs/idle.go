package quickjs

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// An instance restored from a snapshot maps the snapshot's image
// copy-on-write (linmem.Image): a page the guest writes becomes the
// instance's own. Many such writes leave the page as it was (a reference
// count taken and dropped, a free list restored), so a chain waiting for a
// tool would keep pages that hold nothing of its own. While the host waits
// with the guest idle, IdleBegin hands those pages back (linmem.Memory.DropClean)
// once the wait has lasted idleCompact: fast calls pay nothing but a timer.

// idleCompact is how long an idle wait lasts before the instance hands
// back its pages that read as the image again.
const idleCompact = 20 * time.Millisecond

// idler drops an instance's clean pages once it has been idle for
// idleCompact.
type idler struct {
	mu     sync.Mutex  // held while pages are dropped
	idle   bool        // between IdleBegin and IdleEnd; guarded by mu
	closed bool        // guarded by mu
	stop   atomic.Bool // set by IdleEnd: a drop in progress stops early
	timer  *time.Timer
}

// dropSlots bounds the drops running at once, process-wide, to the
// processors Go runs on: a drop that finds none free tries again after
// another idleCompact.
var dropSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// IdleBegin tells the instance that no guest call will be made and nothing
// will write its memory until IdleEnd, which the caller must call before
// either (it waits for a drop in progress). Meanwhile, once idleCompact has
// passed, the instance hands back the pages it has written that read as the
// snapshot image again. IdleBegin must not be called during a guest call.
func (in *Instance) IdleBegin() {
	d := &in.idler
	if in.closed {
		return
	}
	if in.depth != 0 {
		panic("quickjs: IdleBegin during a guest call")
	}
	d.mu.Lock()
	d.idle = true
	d.stop.Store(false)
	if d.timer == nil {
		d.timer = time.AfterFunc(idleCompact, in.dropClean)
	} else {
		d.timer.Reset(idleCompact)
	}
	d.mu.Unlock()
}

// IdleEnd ends what IdleBegin began; it returns once no drop is in
// progress. It does nothing without IdleBegin.
func (in *Instance) IdleEnd() {
	d := &in.idler
	if d.timer != nil {
		d.timer.Stop()
	}
	d.stop.Store(true)
	d.mu.Lock() // waits for a drop in progress, which stops early
	d.idle = false
	d.mu.Unlock()
}

// dropClean runs on the idle timer's goroutine.
func (in *Instance) dropClean() {
	d := &in.idler
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.idle || d.closed {
		return
	}
	select {
	case dropSlots <- struct{}{}:
	default:
		d.timer.Reset(idleCompact)
		return
	}
	in.lin.DropClean(&d.stop)
	<-dropSlots
}

// closeIdle stops the idle timer; a drop in progress finishes first.
func (in *Instance) closeIdle() {
	d := &in.idler
	d.mu.Lock()
	d.closed, d.idle = true, false
	if d.timer != nil {
		d.timer.Stop()
	}
	d.mu.Unlock()
}

// FillFreeChunks allocates, and keeps allocated for good, the free chunks
// the guest's allocator holds below its top, so that what the guest
// allocates next comes from fresh pages at the top rather than from holes
// scattered through memory. Called on an instance about to be snapshotted,
// it makes an instance restored from the snapshot write a few contiguous
// pages of its own where it would have written one page per hole. The
// chunks cost nothing per instance (they are pages of the shared image),
// and the QuickJS heap limit does not count them (they are not the
// engine's allocations). It returns how many chunks it took; it does at
// most maxFillCalls allocations.
func (in *Instance) FillFreeChunks(ctx context.Context) (int, error) {
	// An allocation that grows the memory came from the top: everything
	// the allocator hands out below its address came from a hole. Probes
	// too small to grow it may have landed in a hole: freed, and twice as
	// large tried.
	var probe uint64
	for size := uint64(fillFirstProbe); probe == 0; size *= 2 {
		if size > fillLastProbe {
			return 0, nil // no hole is this large: nothing to fill
		}
		before := in.mem.Size()
		p, err := in.call(ctx, fnMalloc, size)
		if err != nil || p == 0 {
			return 0, err
		}
		if in.mem.Size() > before {
			probe = p
		}
		if _, err := in.call(ctx, fnFree, p); err != nil {
			return 0, err
		}
	}
	n, calls := 0, 0
	for _, size := range fillSizes {
		for calls < maxFillCalls {
			calls++
			p, err := in.call(ctx, fnMalloc, size)
			if err != nil {
				return n, err
			}
			if p == 0 || p >= probe {
				if p != 0 {
					if _, err := in.call(ctx, fnFree, p); err != nil {
						return n, err
					}
				}
				break
			}
			n++
		}
	}
	return n, nil
}

const (
	fillFirstProbe = 64 << 10
	fillLastProbe  = 64 << 20
	maxFillCalls   = 20000
)

// fillSizes are the sizes FillFreeChunks asks for, largest first, so that
// large holes are taken whole and what is left of them by smaller sizes.
var fillSizes = []uint64{65536, 16384, 4096, 2048, 1024, 512, 256, 192, 128, 96, 80, 64, 48, 40, 32, 24, 16, 8}
