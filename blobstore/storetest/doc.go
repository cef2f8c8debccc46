// Package storetest is the conformance suite for blobstore drivers: one set
// of tests that every blobstore.Driver must pass under a blobstore.Store.
//
// A driver's test calls Run with a function that makes fresh, empty storage
// and returns an opener for driver instances over it:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storetest.Opener {
//			dir := t.TempDir()
//			return func() blobstore.Driver {
//				d, err := fsblob.New(dir)
//				require.NoError(t, err)
//				return d
//			}
//		})
//	}
//
// Opening a second instance over the same storage must behave like a second
// process: the suite pins, unpins and sweeps one blob from two instances at
// once and checks that a pinned blob is never swept. Run the suite with
// -race. Drivers need no tests of their own for what the suite covers, only
// for their own faults (crash leftovers, a server that goes away).
//
// RunStreaming checks that a 256 MiB blob goes in and out with bounded heap;
// drivers that hold objects in memory (memblob) skip it.
//
// # Concurrency
//
// Run and RunStreaming must be called from the test goroutine. The helpers
// DataReader and HeapSampler are safe to use from one goroutine each.
//
// # Errors
//
// Failures are reported through testing.T; nothing here returns an error.
package storetest
