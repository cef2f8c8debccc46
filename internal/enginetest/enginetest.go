// Package enginetest gives the tests of every package one script engine per
// test binary: compiling QuickJS is the slow part of starting one.
//
// # Concurrency
//
// Scripts is safe for concurrent use; the engine it returns is shared by
// every test of the binary and is never closed (it ends with the process).
//
// # Errors
//
// Scripts fails the calling test when the engine cannot start.
package enginetest

import (
	"context"
	"sync"
	"testing"

	"github.com/airlockrt/airlock/sandbox"
)

// Scripts returns the test binary's script engine, started on first use
// with the default options.
func Scripts(t testing.TB) *sandbox.ScriptEngine {
	t.Helper()
	e, err := shared()
	if err != nil {
		t.Fatalf("starting the script engine: %v", err)
	}
	return e
}

var shared = sync.OnceValues(func() (*sandbox.ScriptEngine, error) {
	return sandbox.NewScriptEngine(context.Background(), sandbox.ScriptOptions{})
})
