package quickjs

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// recursions are scripts that recurse until the stack runs out, through
// each native path that calls back into JavaScript or recurses in C, and
// end by throwing what they got.
var recursions = []struct{ name, src string }{
	{"call", "let d=0; function f(){d++; f()} try{f()}catch(e){} throw String(d>0)"},
	{"getter", "const o={get x(){return o.x}}; try{o.x}catch(e){} throw 'true'"},
	{"toString", "const o={toString(){return String(o)}}; try{String(o)}catch(e){} throw 'true'"},
	{"toPrimitive", "const o={[Symbol.toPrimitive](){return +o}}; try{+o}catch(e){} throw 'true'"},
	{"proxy get", "const p=new Proxy({}, {get(t,k){return p[k]}}); try{p.x}catch(e){} throw 'true'"},
	{"proxy apply", "const p=new Proxy(function(){}, {apply(){return p()}}); try{p()}catch(e){} throw 'true'"},
	{"sort", "function f(){[2,1].sort(f); return 0} try{f()}catch(e){} throw 'true'"},
	{"map", "function f(){[1].map(f)} try{f()}catch(e){} throw 'true'"},
	{"apply", "function f(){f.apply(null,[])} try{f()}catch(e){} throw 'true'"},
	{"apply many", "const a=new Array(65534).fill(0); function f(){f.apply(null,a)} try{f()}catch(e){} throw 'true'"},
	{"Reflect.apply", "function f(){Reflect.apply(f,null,[])} try{f()}catch(e){} throw 'true'"},
	{"bound", "let g; function f(){g()} g=f.bind(null,1,2,3); try{f()}catch(e){} throw 'true'"},
	{"bound many", "let g; function f(){g()} g=f.bind(null,...new Array(60000).fill(0)); try{f()}catch(e){} throw 'true'"},
	{"bound most", "const a=new Array(65000).fill(0); let g; function f(){g.apply(null,a)} g=f.bind(null,...a); try{f()}catch(e){} throw 'true'"},
	{"many parameters", "globalThis.F=new Function(...Array.from({length:65000},(_,i)=>'p'+i), 'return F()'); try{F()}catch(e){} throw 'true'"},
	{"generator", "function* g(){yield* g()} try{g().next()}catch(e){} throw 'true'"},
	{"async", "async function f(){await f()} f().catch(()=>{}); throw 'true'"},
	{"eval", "function f(){eval('f()')} try{f()}catch(e){} throw 'true'"},
	{"new Function", "globalThis.f=function(){new Function('f()')()}; try{f()}catch(e){} throw 'true'"},
	{"JSON reviver", "function f(){JSON.parse('[1]', f)} try{f()}catch(e){} throw 'true'"},
	{"toJSON", "const o={toJSON(){return JSON.stringify(o)}}; try{JSON.stringify(o)}catch(e){} throw 'true'"},
	{"replace", "function f(){'a'.replace(/a/, f)} try{f()}catch(e){} throw 'true'"},
	{"spread", "const o={get 0(){return {...'ab', ...f()}}}; function f(){return {...o}} try{f()}catch(e){} throw 'true'"},
	{"JSON.stringify nesting (slow)", "let a=[1]; for(let i=0;i<100000;i++) a=[a]; try{JSON.stringify(a)}catch(e){} throw 'true'"},
	{"JSON.parse nesting", "try{JSON.parse('['.repeat(1e5)+']'.repeat(1e5))}catch(e){} throw 'true'"},
	{"flat", "let a=[1]; for(let i=0;i<100000;i++) a=[a]; try{a.flat(Infinity)}catch(e){} throw 'true'"},
	{"join", "let a=[1]; for(let i=0;i<100000;i++) a=[a]; try{String(a)}catch(e){} throw 'true'"},
	{"parser", "try{eval('('.repeat(1e5)+'1'+')'.repeat(1e5))}catch(e){} throw 'true'"},
	{"regexp compile", "try{new RegExp('(?:'.repeat(1e5)+'a'+')'.repeat(1e5))}catch(e){} throw 'true'"},
	{"regexp lookahead", "try{new RegExp('(?=a'.repeat(1e4)+')'.repeat(1e4)).test('a')}catch(e){} throw 'true'"},
	{"many locals", "const src='let '+Array.from({length:5000},(_,i)=>'v'+i).join(',')+'; return F()'; globalThis.F=new Function(src); try{F()}catch(e){} throw 'true'"},
	{"prepareStackTrace recursing", "Error.prepareStackTrace=function p(e,s){return p(e,s)}; function f(){f()} try{f()}catch(e){} throw 'true'"},
	{"prepareStackTrace throwing", "Error.prepareStackTrace=()=>{throw new Error('x')}; function f(){f()} try{f()}catch(e){} throw 'true'"},
}

// TestStackStaysInRegion runs each recursion at the largest stack and at a
// small one: whatever the path, no byte of the stack region below the
// floor (less the 128-byte red zone clang's leaf functions may use below
// the stack pointer) is written, and the run ends in its own catch, not in
// the floor's trap. The region lies in the heap, so a byte written below
// it would land in another allocation.
func TestStackStaysInRegion(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	for _, r := range recursions {
		for _, n := range []uint32{0, 64 << 10} {
			if n == 0 && strings.HasSuffix(r.name, "(slow)") && testing.Short() {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", r.name, n), func(t *testing.T) {
				in, err := rt.NewInstance(ctx, 64<<20)
				require.NoError(t, err)
				defer in.Close(ctx)
				in.SetStackLimit(n)
				base := in.stackTop() - StackRegion
				below := uint32(in.floor.Get()) - 128 - base
				before, ok := in.mem.Read(base, below)
				require.True(t, ok)
				before = bytes.Clone(before)
				exc, text, err := in.Eval(ctx, r.src, "r.js")
				require.NoError(t, err, "trapped on the floor: %v", in.StackOverflowed())
				require.True(t, exc)
				require.Equal(t, "true", text)
				after, _ := in.mem.Read(base, below)
				require.True(t, bytes.Equal(before, after), "a frame was written below the floor")
			})
		}
	}
}

// TestOverflowHookLeavesNoStack: whatever the script's own
// Error.prepareStackTrace does while the backtrace hook has lowered
// QuickJS's limit (throw, recurse, make errors of its own, run out of
// memory, replace itself, suspend a generator), the limit is back where
// SetStackLimit put it once the overflow's error is made, and the script
// recurses no deeper afterwards than before: no run of the hook gives it
// stack beyond its limit.
func TestOverflowHookLeavesNoStack(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	const depth = "function d(){ let n=0; function f(){n++; f()} try{f()}catch(e){} return n }\n"
	for _, p := range []struct{ name, prepare string }{
		{"throws", "() => { throw new TypeError('no') }"},
		{"makes errors", "(e, s) => { for (let i = 0; i < 50; i++) new Error('x' + i); return 'ok' }"},
		{"recurses", "function p(e, s) { return p(e, s) }"},
		{"recurses, catches, recurses", "function p(e, s) { try { return p(e, s) } catch (x) { try { return p(e, s) } catch (y) { return 'again' } } }"},
		{"out of memory", "(e, s) => { const a = []; for (;;) a.push(new Array(1e5).fill(1.5)) }"},
		{"captures", "(e, s) => { const o = {}; Error.captureStackTrace(o); return String(o.stack) }"},
		{"replaces itself", "function p(e, s) { Error.prepareStackTrace = (e2, s2) => { throw e2 }; return 'first' }"},
		{"generator", "(e, s) => { function* g() { yield new Error('g').stack; yield d() } const it = g(); it.next(); globalThis.it = it; return 'gen' }"},
		{"proxy", "new Proxy(function () {}, { apply(t, th, a) { return 'proxied ' + d() } })"},
		{"getter stack", "(e, s) => ({ get toString() { return () => String(d()) } })"},
	} {
		t.Run(p.name, func(t *testing.T) {
			for _, limit := range []uint32{0, 24 << 10} {
				in, err := rt.NewInstance(ctx, 16<<20)
				require.NoError(t, err)
				in.SetStackLimit(limit)
				addr := uint32(in.rt) + in.layout.StackSizeOffset + 8
				want, _ := in.mem.ReadUint32Le(addr)
				before := evalText(t, in, depth+"throw String(d())")
				exc, _, err := in.Eval(ctx, "Error.prepareStackTrace = "+p.prepare+";\n"+
					"for (let i = 0; i < 3; i++) { try { (function f() { f() })() } catch (e) { try { String(e.stack) } catch (x) {} } }\n"+
					"if (globalThis.it) try { it.next() } catch (x) {}\n"+
					"Error.prepareStackTrace = undefined; throw 'done'", "hook.js")
				require.NoError(t, err, "trapped on the floor: %v", in.StackOverflowed())
				require.True(t, exc)
				got, _ := in.mem.ReadUint32Le(addr)
				require.Equal(t, want, got, "the limit is restored")
				require.Equal(t, before, evalText(t, in, "throw String(d())"), "no deeper than before")
				in.Close(ctx)
			}
		})
	}
}

// TestStackNativeHeap measures the Go heap that wazero's native stack
// takes while several instances recurse as deep as the largest stack
// allows at once (the heap's peak, sampled): each JavaScript call also
// takes a frame of wazero's stack, which grows by doubling and copying,
// so at the peak a chain holds the old stack and the new. RATIONALE.md
// ("Why a stack region of its own?") gives these figures; the bound
// catches a change that makes them grow (a larger region, a path with a
// larger native frame per byte of the engine's stack).
func TestStackNativeHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes the heap's figures meaningless")
	}
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	const chains = 4
	for _, c := range []struct{ name, src string }{
		{"calls", "let d=0; function f(){d++; f()} try{f()}catch(e){} throw String(d > 1000)"},
		{"bound", "let d=0; let g; function f(){d++; g()} g=f.bind(null,1); try{f()}catch(e){} throw String(d > 500)"},
		{"JSON.parse", "let r; try{JSON.parse('['.repeat(1e5)+']'.repeat(1e5))}catch(e){r=e.name} throw String(r==='RangeError')"},
		{"JSON.stringify", "let o=1; for(let i=0;i<1e5;i++) o=[o]; let r; try{JSON.stringify(o)}catch(e){r=e.name} throw String(r==='RangeError')"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ins := make([]*Instance, chains)
			for i := range ins {
				in, err := rt.NewInstance(ctx, 64<<20)
				require.NoError(t, err)
				defer in.Close(ctx)
				in.SetStackLimit(0)
				ins[i] = in
			}
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			var peak atomic.Uint64
			done := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				var m runtime.MemStats
				for {
					runtime.ReadMemStats(&m)
					if m.HeapInuse > peak.Load() {
						peak.Store(m.HeapInuse)
					}
					select {
					case <-done:
						return
					case <-time.After(200 * time.Microsecond):
					}
				}
			}()
			var wg sync.WaitGroup
			texts := make([]string, chains)
			for i, in := range ins {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, texts[i], _ = in.Eval(ctx, c.src, "deep.js")
				}()
			}
			wg.Wait()
			close(done)
			<-sampled
			for _, s := range texts {
				require.Equal(t, "true", s)
			}
			per := (int64(peak.Load()) - int64(base.HeapInuse)) / chains
			t.Logf("%s: peak Go heap %.1f MiB a chain", c.name, float64(per)/(1<<20))
			require.Less(t, per, int64(40<<20), "Go heap a chain at the largest stack")
		})
	}
}

// TestCaptureLeavesOutTheStack: between guest calls everything in the
// stack region is dead, so a chain that recursed as deep as it may before
// it parks captures about what a chain that did not captures (the region
// was 512 KiB more), and the instance restored from it runs on, deep
// recursion included.
func TestCaptureLeavesOutTheStack(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	seed, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	snap, err := rt.Snapshot(ctx, seed)
	require.NoError(t, err)
	seed.Close(ctx)
	base := BaseOf(snap)
	const deep = "function f(){f()} try{f()}catch(e){}\n"
	sizes := map[bool]int{}
	for _, recurse := range []bool{false, true} {
		in, err := rt.Restore(ctx, snap)
		require.NoError(t, err)
		in.SetStackLimit(0)
		src := "globalThis.x = 41; throw 'ok'"
		if recurse {
			src = deep + src
		}
		require.Equal(t, "ok", evalText(t, in, src))
		c, err := rt.Capture(ctx, in, base)
		require.NoError(t, err)
		in.Close(ctx)
		sizes[recurse] = c.Bytes()
		back, err := rt.RestoreParked(ctx, c, base)
		require.NoError(t, err)
		back.SetStackLimit(0)
		require.Equal(t, "42 true", evalText(t, back, "let d=0; function g(){d++; g()} try{g()}catch(e){} throw (x+1) + ' ' + (d > 1000)"))
		back.Close(ctx)
	}
	require.Less(t, sizes[true], sizes[false]+64<<10, "captured bytes: %v", sizes)
}
