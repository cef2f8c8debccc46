package quickjs

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/airlockrt/airlock/sandbox/internal/wasmcode"
	"github.com/stretchr/testify/require"
)

// TestReviewRestoredLookupsConcurrently restores many instances from one
// Snapshot at once, each looking up, interning and compiling both what the
// Snapshot holds and what it does not: run with -race, no write may reach
// the shared tables.
func TestReviewRestoredLookupsConcurrently(t *testing.T) {
	rt := testRuntime(t, Config{})
	ctx := context.Background()
	tmpl, err := rt.NewInstance(ctx, 64<<20)
	require.NoError(t, err)
	defer tmpl.Close(ctx)
	exc, _, err := tmpl.Eval(ctx, "globalThis.f = () => 1; globalThis.g = () => 2", "init.js")
	require.NoError(t, err)
	require.False(t, exc)
	_, err = tmpl.GlobalFunc(ctx, "f")
	require.NoError(t, err)
	_, err = tmpl.Atom(ctx, "a")
	require.NoError(t, err)
	require.NoError(t, tmpl.Precompile(ctx, "1+1", "p.js"))
	snap, err := rt.Snapshot(ctx, tmpl)
	require.NoError(t, err)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, err := rt.Restore(ctx, snap)
			if err != nil {
				errs <- err
				return
			}
			defer in.Close(ctx)
			for j := range 20 {
				if _, err := in.GlobalFunc(ctx, "f"); err != nil {
					errs <- err
					return
				}
				if _, err := in.GlobalFunc(ctx, "g"); err != nil {
					errs <- err
					return
				}
				for _, s := range []string{"a", fmt.Sprintf("b%d.%d", i, j)} {
					if _, err := in.Atom(ctx, s); err != nil {
						errs <- err
						return
					}
				}
				if err := in.Precompile(ctx, fmt.Sprintf("%d+%d", i, j), "p.js"); err != nil {
					errs <- err
					return
				}
				if _, _, err := in.Eval(ctx, "1+1", "p.js"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, snap.compiled, 1)
	require.Len(t, snap.atoms, 1)
	require.Len(t, snap.funcs, 1)
}

// reviewModule is what TestReviewDispatchersKeepTypes reads of a module.
type reviewModule struct {
	types    [][2][]byte // params, results
	imports  []string    // function imports, module.name
	funcs    []uint32    // type of each function, imports first
	bodies   [][]byte    // defined functions' code, locals included
	tableMin uint64
	// backtrace is build_backtrace's index by the name section, -1 if
	// none: its slot dispatches to the backtrace hook (backtrace.go).
	backtrace int
}

func parseReviewModule(t *testing.T, b []byte) *reviewModule {
	t.Helper()
	m := &reviewModule{backtrace: -1}
	uleb := func(b []byte, p *int) uint64 {
		v, n, err := wasmcode.ULEB(b[*p:])
		require.NoError(t, err)
		*p += n
		return v
	}
	name := func(b []byte, p *int) string {
		l := int(uleb(b, p))
		s := string(b[*p : *p+l])
		*p += l
		return s
	}
	limits := func(b []byte, p *int) uint64 {
		flag := b[*p]
		*p++
		min := uleb(b, p)
		if flag&1 != 0 {
			uleb(b, p)
		}
		return min
	}
	for rest := b[8:]; len(rest) > 0; {
		id := rest[0]
		size, n, err := wasmcode.ULEB(rest[1:])
		require.NoError(t, err)
		s := rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
		p := 0
		switch id {
		case 1:
			for range uleb(s, &p) {
				require.Equal(t, byte(0x60), s[p])
				p++
				np := int(uleb(s, &p))
				params := s[p : p+np]
				p += np
				nr := int(uleb(s, &p))
				m.types = append(m.types, [2][]byte{params, s[p : p+nr]})
				p += nr
			}
		case 2:
			for range uleb(s, &p) {
				mod := name(s, &p)
				field := name(s, &p)
				kind := s[p]
				p++
				switch kind {
				case 0:
					m.imports = append(m.imports, mod+"."+field)
					m.funcs = append(m.funcs, uint32(uleb(s, &p)))
				case 1:
					p++
					limits(s, &p)
				case 2:
					limits(s, &p)
				case 3:
					p += 2
				}
			}
		case 3:
			for range uleb(s, &p) {
				m.funcs = append(m.funcs, uint32(uleb(s, &p)))
			}
		case 4:
			require.Equal(t, uint64(1), uleb(s, &p))
			p++
			m.tableMin = limits(s, &p)
		case 0:
			if rw := (&rewriter{}); rw.parseNames(s) == nil && rw.hasBacktrace {
				m.backtrace = int(rw.backtrace)
			}
		case 10:
			for range uleb(s, &p) {
				l := int(uleb(s, &p))
				m.bodies = append(m.bodies, s[p:p+l])
				p += l
			}
		}
	}
	return m
}

// TestReviewDispatchersKeepTypes checks, on the rewritten QuickJS module
// itself, what a forged function pointer can reach through the indirect
// dispatchers: each calls only functions of its own type (the type check
// call_indirect made), never an import but the host function, never the
// call dispatcher or another indirect dispatcher (the backtrace hook, in
// build_backtrace's slot, is the one added function besides the
// normaliser it may call), and its br_table has no
// more entries than the original table had slots plus the two added.
func TestReviewDispatchersKeepTypes(t *testing.T) {
	b, lay, err := Rewrite(wasmBytes)
	require.NoError(t, err)
	orig := parseReviewModule(t, wasmBytes)
	m := parseReviewModule(t, b)
	imports := len(m.imports)
	require.Equal(t, len(orig.imports)+1, imports, "one import added: the host function")
	origDefined := len(orig.bodies)
	require.Equal(t, uint64(0), m.tableMin)
	// After the original functions: the normaliser, the call dispatcher
	// and the backtrace hook, then the indirect dispatchers.
	require.GreaterOrEqual(t, orig.backtrace, 0)
	hook := imports + origDefined + 2
	dispatchers := m.bodies[origDefined+3:]
	require.NotEmpty(t, dispatchers)
	hostImport := -1
	for i, name := range m.imports {
		if name == "env.jsFunctionProxy" {
			hostImport = i
		}
	}
	require.GreaterOrEqual(t, hostImport, 0, "imports: %v", m.imports)
	require.Equal(t, orig.tableMin+2, uint64(lay.HostSlot)+1)
	reached := map[int]bool{}
	for k, body := range dispatchers {
		self := imports + origDefined + 3 + k
		dt := m.types[m.funcs[self]]
		require.NotEmpty(t, dt[0])
		require.Equal(t, byte(0x7f), dt[0][len(dt[0])-1], "the slot is an i32")
		want := [2][]byte{dt[0][:len(dt[0])-1], dt[1]}
		groups, q, err := wasmcode.ULEB(body)
		require.NoError(t, err)
		require.Zero(t, groups, "a dispatcher has no locals")
		for q < len(body) {
			l, err := wasmcode.InstrLen(body[q:])
			require.NoError(t, err)
			ins := body[q : q+l]
			q += l
			switch ins[0] {
			case 0x10:
				f, _, err := wasmcode.ULEB(ins[1:])
				require.NoError(t, err)
				require.True(t, int(f) < imports+origDefined+1 || int(f) == hook, "dispatcher %d calls added function %d", k, f)
				if int(f) < imports {
					require.Equal(t, hostImport, int(f), "dispatcher %d calls import %s", k, m.imports[f])
				}
				got := m.types[m.funcs[f]]
				require.Equal(t, want, got, "dispatcher %d calls function %d of another type", k, f)
				reached[int(f)] = true
			case 0x0e:
				n, _, err := wasmcode.ULEB(ins[1:])
				require.NoError(t, err)
				require.LessOrEqual(t, n, orig.tableMin+2, "dispatcher %d has a slot past the table", k)
			case 0x11, 0x13, 0x25, 0x26, 0xd2:
				t.Fatalf("dispatcher %d uses a table (opcode %#x)", k, ins[0])
			}
		}
	}
	require.True(t, reached[hostImport], "the host function stays reachable through its slot")
	require.True(t, reached[imports+origDefined], "the normaliser stays reachable through its slot")
}

// TestReviewDispatchersMatchTheTable checks every slot of the original
// table against the rewritten module: the dispatcher of each type calls,
// for slot s, the function the original table held at s (renumbered) if it
// has that type, and traps for every other slot.
func TestReviewDispatchersMatchTheTable(t *testing.T) {
	b, lay, err := Rewrite(wasmBytes)
	require.NoError(t, err)
	orig := parseReviewModule(t, wasmBytes)
	m := parseReviewModule(t, b)
	imports, origDefined := len(m.imports), len(orig.bodies)
	shift := func(f uint64) int { // as rewriter.shift: the host import goes after the original imports
		if f >= uint64(len(orig.imports)) {
			return int(f) + 1
		}
		return int(f)
	}
	// The original table, from its element section.
	table := make([]int, orig.tableMin+2)
	for i := range table {
		table[i] = -1
	}
	for rest := wasmBytes[8:]; len(rest) > 0; {
		size, n, err := wasmcode.ULEB(rest[1:])
		require.NoError(t, err)
		s := rest[1+n : 1+n+int(size)]
		id := rest[0]
		rest = rest[1+n+int(size):]
		if id != 9 {
			continue
		}
		count, p, _ := wasmcode.ULEB(s)
		for range count {
			require.Equal(t, []byte{0x00, 0x41}, s[p:p+2])
			off, k, _ := wasmcode.SLEB(s[p+2:])
			p += 2 + k
			require.Equal(t, byte(0x0b), s[p])
			p++
			nf, k, _ := wasmcode.ULEB(s[p:])
			p += k
			for j := range nf {
				f, k, _ := wasmcode.ULEB(s[p:])
				p += k
				table[off+int64(j)] = shift(f)
				if int(f) == orig.backtrace {
					table[off+int64(j)] = imports + origDefined + 2 // the backtrace hook
				}
			}
		}
	}
	table[lay.DenySlot] = imports + origDefined
	hostImport := -1
	for i, name := range m.imports {
		if name == "env.jsFunctionProxy" {
			hostImport = i
		}
	}
	table[lay.HostSlot] = hostImport
	checked := 0
	for k, body := range m.bodies[origDefined+3:] {
		dt := m.types[m.funcs[imports+origDefined+3+k]]
		want := [2][]byte{dt[0][:len(dt[0])-1], dt[1]}
		// Decode: blocks, local.get slot, br_table labels, then per label
		// an end and a call.
		var labels []uint64
		var def uint64
		var targets []int
		q := 1
		for q < len(body) {
			l, err := wasmcode.InstrLen(body[q:])
			require.NoError(t, err)
			ins := body[q : q+l]
			q += l
			switch ins[0] {
			case 0x0e:
				n, p, _ := wasmcode.ULEB(ins[1:])
				p++
				for range n + 1 {
					v, k, _ := wasmcode.ULEB(ins[p:])
					p += k
					labels = append(labels, v)
				}
				labels, def = labels[:n], labels[n]
			case 0x10:
				f, _, _ := wasmcode.ULEB(ins[1:])
				targets = append(targets, int(f))
			}
		}
		require.Equal(t, uint64(len(targets)), def, "dispatcher %d: the default traps", k)
		for s := range table {
			f := -1
			if s < len(labels) && labels[s] < uint64(len(targets)) {
				f = targets[labels[s]]
			}
			wantF := table[s]
			if ft := m.types[m.funcs[max(wantF, 0)]]; wantF >= 0 && (string(ft[0]) != string(want[0]) || string(ft[1]) != string(want[1])) {
				wantF = -1
			}
			if wantF >= 0 {
				checked++
			}
			require.Equal(t, wantF, f, "dispatcher %d, slot %d", k, s)
		}
	}
	require.Greater(t, checked, 500)
}
