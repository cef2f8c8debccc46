package quickjs

import (
	"context"
	"fmt"
)

// The host's scratch area, below the static data (seal.go): the words the
// calls it makes write through (scratchAddr), the arguments of the
// function Pump calls, the file name JSON values are parsed under, and a
// buffer that holds a JSON value small enough, so that delivering one
// needs no allocation.
const (
	pumpArgvAddr  = scratchAddr + 16 // pumpArgs JSValues
	jsonNameAddr  = pumpArgvAddr + 8*pumpArgs
	jsonName      = "<input>\x00" // as JSON.parse names its text
	jsonBufAddr   = jsonNameAddr + 8
	jsonBufSize   = scratchAddr + scratchSize - jsonBufAddr
	pumpArgs      = 5
	tagFirstRef   = 0xfffffff7 // JS_TAG_FIRST (-9): tags from it up are reference-counted
	tagObjectType = 0xffffffff // JS_TAG_OBJECT (-1)
)

// GlobalFunc returns the value of the global property name, which must
// hold a function the script cannot replace (a non-writable,
// non-configurable property): the instance keeps it, and a Snapshot
// restores it, so that only the first call on an instance, or on one
// restored from a parked state, looks it up.
func (in *Instance) GlobalFunc(ctx context.Context, name string) (uint64, error) {
	if f, ok := in.funcs[name]; ok {
		return f, nil
	}
	g, err := in.call(ctx, fnGetGlobalObject, in.ctx)
	if err != nil {
		return 0, err
	}
	p, err := in.cString(ctx, name)
	if err != nil {
		return 0, err
	}
	// The reference JS_GetPropertyStr returns is the instance's for as long
	// as it lives.
	f, err := in.call(ctx, fnGetPropertyStr, in.ctx, g, p)
	if err != nil {
		return 0, err
	}
	if err := in.freePtr(ctx, p); err != nil {
		return 0, err
	}
	if _, err := in.call(ctx, fnFreeValue, in.ctx, g); err != nil {
		return 0, err
	}
	if uint32(f>>jsTagShift) != tagObjectType {
		return 0, fmt.Errorf("%w: global %s is not a function", ErrGuest, name)
	}
	in.ownMaps()
	if in.funcs == nil {
		in.funcs = map[string]uint64{}
	}
	in.funcs[name] = f
	return f, nil
}

// Pump calls fn(a, b, v, w), where v and w are json and json2 parsed as
// JSON.parse parses them (undefined for nil), then runs the job queue until
// it is empty. It reports exceptions as Eval does; a JSON text that does not
// parse is one. fn is a value GlobalFunc returned.
func (in *Instance) Pump(ctx context.Context, fn uint64, a, b int32, json, json2 []byte) (exception bool, text string, err error) {
	return in.pump(ctx, fn, a, b, json, json2, nil, nil)
}

// Start calls fn(a, b, v, s, t) as Pump does, v being json parsed and s
// and t the strings str and str2 (JS_NewStringLen's decoding of them as
// UTF-8), made in the guest before the call, so that fn need not ask the
// host for them (a host call that calls back into the guest makes it use a
// second call stack).
func (in *Instance) Start(ctx context.Context, fn uint64, a, b int32, json, str, str2 []byte) (exception bool, text string, err error) {
	return in.pump(ctx, fn, a, b, json, nil, str, str2)
}

// pump calls fn(a, b, json, json2), or fn(a, b, json, str, str2) when
// json2 is nil and str is not.
func (in *Instance) pump(ctx context.Context, fn uint64, a, b int32, json, json2, str, str2 []byte) (exception bool, text string, err error) {
	if in.closed {
		return false, "", fmt.Errorf("%w: instance closed", ErrGuest)
	}
	args := [pumpArgs]uint64{Int(a), Int(b), in.undefined, in.undefined, in.undefined}
	defer func() {
		// Not after a failed guest call: the instance is done with.
		for _, v := range args[2:] {
			if err == nil {
				err = in.freeValue(ctx, v)
			}
		}
	}()
	for i, j := range [][]byte{json, json2} {
		if j == nil {
			continue
		}
		v, err := in.parseJSON(ctx, j)
		if err != nil {
			return false, "", err
		}
		if v>>jsTagShift == tagException {
			return in.takeException(ctx)
		}
		args[2+i] = v
	}
	for i, s := range [][]byte{str, str2} {
		if json2 != nil || str == nil {
			break
		}
		v, err := in.NewString(ctx, s)
		if err != nil {
			return false, "", err
		}
		if v>>jsTagShift == tagException {
			return in.takeException(ctx)
		}
		args[3+i] = v
	}
	argv, ok := in.mem.Read(pumpArgvAddr, 8*pumpArgs)
	if !ok {
		return false, "", fmt.Errorf("%w: scratch area out of bounds", ErrGuest)
	}
	for i, x := range args {
		putU64(argv[8*i:], x)
	}
	r, err := in.call(ctx, fnCall, in.ctx, fn, in.undefined, pumpArgs, pumpArgvAddr)
	if err != nil {
		return false, "", err
	}
	if r>>jsTagShift != tagException {
		if err := in.freeValue(ctx, r); err != nil {
			return false, "", err
		}
		if r, err = in.runJobs(ctx); err != nil {
			return false, "", err
		}
	}
	if r>>jsTagShift != tagException {
		return false, "", nil
	}
	return in.takeException(ctx)
}

// parseJSON runs JS_ParseJSON on json: from the scratch buffer when it fits
// there, else from a copy it allocates.
func (in *Instance) parseJSON(ctx context.Context, json []byte) (uint64, error) {
	name, ok := in.mem.Read(jsonNameAddr, uint32(len(jsonName)))
	if !ok {
		return 0, fmt.Errorf("%w: scratch area out of bounds", ErrGuest)
	}
	copy(name, jsonName)
	if len(json) < jsonBufSize {
		buf, ok := in.mem.Read(jsonBufAddr, uint32(len(json)+1))
		if !ok {
			return 0, fmt.Errorf("%w: scratch area out of bounds", ErrGuest)
		}
		copy(buf, json)
		buf[len(json)] = 0 // JS_ParseJSON wants it NUL-terminated
		return in.call(ctx, fnParseJSON, in.ctx, jsonBufAddr, uint64(len(json)), jsonNameAddr)
	}
	if uint64(len(json)) > maxEvalSource {
		return 0, fmt.Errorf("%w: %d bytes of JSON", errOutOfMemory, len(json))
	}
	p, err := in.cString(ctx, string(json))
	if err != nil {
		return 0, err
	}
	v, err := in.call(ctx, fnParseJSON, in.ctx, p, uint64(len(json)), jsonNameAddr)
	if err != nil {
		return 0, err
	}
	return v, in.freePtr(ctx, p)
}

// freeValue drops the host's reference to v. The common case, a value
// something else in the guest still refers to, only decrements its count,
// as JS_FreeValue's inline part does; the last reference goes through
// JS_FreeValue, which frees the value.
func (in *Instance) freeValue(ctx context.Context, v uint64) error {
	if uint32(v>>jsTagShift) < tagFirstRef {
		return nil
	}
	if rc, ok := in.mem.ReadUint32Le(uint32(v)); ok && int32(rc) > 1 {
		in.mem.WriteUint32Le(uint32(v), rc-1)
		return nil
	}
	_, err := in.call(ctx, fnFreeValue, in.ctx, v)
	return err
}

func putU64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}
