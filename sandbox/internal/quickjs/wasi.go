package quickjs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The engine's WASI host: the package's own implementation of exactly the
// wasi_snapshot_preview1 functions the reactor build imports, which denies
// by default. No file descriptor exists (not even stdio) and no directory is
// preopened, so every fd_* and path_* call fails; the environment is empty;
// poll_oneoff is refused; proc_exit traps. Only the clocks answer, from the
// instance's own sysState, and random_get (which this build does not
// import) from its random source. The build's libc and QuickJS's C modules
// (qjs:std, qjs:os), which the host never registers, are the only code that
// would make the denied calls; the denial is here so that no path through
// the C code can reach the host's files, environment or process either.
//
// Instantiation fails if the module imports a WASI function not listed
// here: a new engine build that needs one is a decision, not an accident.

// WASI errno values the host answers with.
const (
	errnoSuccess    = 0
	errnoBadf       = 8  // no such file descriptor
	errnoFault      = 21 // a pointer outside memory
	errnoInval      = 28
	errnoNosys      = 52
	errnoNotcapable = 76 // no capability for the path
)

// errProcExit is the trap proc_exit causes.
var errProcExit = errors.New("quickjs: the engine called proc_exit")

type wasiFunc struct {
	name    string
	params  []api.ValueType
	results []api.ValueType
	fn      api.GoModuleFunc
}

// deny answers every call with errno.
func deny(errno uint64) api.GoModuleFunc {
	return func(_ context.Context, _ api.Module, stack []uint64) { stack[0] = errno }
}

// instantiateWASI adds the WASI host module to wrt.
func (r *Runtime) instantiateWASI(ctx context.Context, wrt wazero.Runtime) error {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	errno := []api.ValueType{i32}
	n := func(k int) []api.ValueType {
		p := make([]api.ValueType, k)
		for j := range p {
			p[j] = i32
		}
		return p
	}
	funcs := []wasiFunc{
		{"environ_sizes_get", n(2), errno, wasiEnvironSizes},
		{"environ_get", n(2), errno, deny(errnoSuccess)}, // nothing to copy
		{"clock_time_get", []api.ValueType{i32, i64, i32}, errno, r.wasiClock},
		{"random_get", n(2), errno, r.wasiRandom},
		{"fd_close", n(1), errno, deny(errnoBadf)},
		{"fd_fdstat_get", n(2), errno, deny(errnoBadf)},
		{"fd_fdstat_set_flags", n(2), errno, deny(errnoBadf)},
		{"fd_prestat_get", n(2), errno, deny(errnoBadf)}, // no preopens
		{"fd_prestat_dir_name", n(3), errno, deny(errnoBadf)},
		{"fd_read", n(4), errno, deny(errnoBadf)},
		{"fd_readdir", []api.ValueType{i32, i32, i32, i64, i32}, errno, deny(errnoBadf)},
		{"fd_seek", []api.ValueType{i32, i64, i32, i32}, errno, deny(errnoBadf)},
		{"fd_write", n(4), errno, deny(errnoBadf)},
		{"path_create_directory", n(3), errno, deny(errnoNotcapable)},
		{"path_filestat_get", n(5), errno, deny(errnoNotcapable)},
		{"path_filestat_set_times", []api.ValueType{i32, i32, i32, i32, i64, i64, i32}, errno, deny(errnoNotcapable)},
		{"path_open", []api.ValueType{i32, i32, i32, i32, i32, i64, i64, i32, i32}, errno, deny(errnoNotcapable)},
		{"path_remove_directory", n(3), errno, deny(errnoNotcapable)},
		{"path_rename", n(6), errno, deny(errnoNotcapable)},
		{"path_unlink_file", n(3), errno, deny(errnoNotcapable)},
		{"poll_oneoff", n(4), errno, deny(errnoNosys)},
		{"proc_exit", n(1), nil, func(context.Context, api.Module, []uint64) { panic(errProcExit) }},
	}
	b := wrt.NewHostModuleBuilder(wasiModule)
	for _, f := range funcs {
		b.NewFunctionBuilder().WithGoModuleFunction(f.fn, f.params, f.results).Export(f.name)
	}
	if _, err := b.Instantiate(ctx); err != nil {
		return fmt.Errorf("quickjs: instantiating the WASI host: %w", err)
	}
	return nil
}

// wasiEnvironSizes reports an empty environment.
func wasiEnvironSizes(_ context.Context, mod api.Module, stack []uint64) {
	mem := mod.Memory()
	if !mem.WriteUint32Le(uint32(stack[0]), 0) || !mem.WriteUint32Le(uint32(stack[1]), 0) {
		stack[0] = errnoFault
		return
	}
	stack[0] = errnoSuccess
}

// sysOf returns the clock and random source of the instance of mod.
func (r *Runtime) sysOf(mod api.Module) *sysState {
	v, _ := r.instances.Load(mod)
	in, _ := v.(*Instance)
	if in == nil {
		panic(errors.New("quickjs: a WASI call from an unknown instance"))
	}
	return in.sys
}

// wasiClock implements clock_time_get(id, precision, result*) for the
// realtime (0) and monotonic (1) clocks.
func (r *Runtime) wasiClock(_ context.Context, mod api.Module, stack []uint64) {
	s := r.sysOf(mod)
	var ns int64
	switch uint32(stack[0]) {
	case 0:
		sec, nsec := s.readWall()
		ns = sec*1e9 + int64(nsec)
	case 1:
		ns = s.readMono()
	default:
		stack[0] = errnoInval
		return
	}
	if !mod.Memory().WriteUint64Le(uint32(stack[2]), uint64(ns)) {
		stack[0] = errnoFault
		return
	}
	stack[0] = errnoSuccess
}

// wasiRandom implements random_get(buf*, len).
func (r *Runtime) wasiRandom(_ context.Context, mod api.Module, stack []uint64) {
	s := r.sysOf(mod)
	buf, ok := mod.Memory().Read(uint32(stack[0]), uint32(stack[1]))
	if !ok {
		stack[0] = errnoFault
		return
	}
	if _, err := (countingReader{s}).Read(buf); err != nil {
		stack[0] = errnoNosys
		return
	}
	stack[0] = errnoSuccess
}
