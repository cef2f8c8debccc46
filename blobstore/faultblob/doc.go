// Package faultblob is a blobstore.Driver that wraps another and injects
// the store failures of the threat model's T6 on a seeded random schedule:
// latency, errors before an operation, responses lost after a write
// succeeded, create-only writes racing a second writer, a killed process,
// and a clock skewed from the others.
//
//	shared := memblob.New()
//	a := faultblob.New(shared.Reopen(), faultblob.Options{Seed: 1, Faults: faultblob.Faults{ErrorRate: 0.05, LostRate: 0.02}})
//	b := faultblob.New(shared.Reopen(), faultblob.Options{Seed: 2, Skew: 200 * time.Millisecond})
//	fleetA, _ := durable.New(durable.Options{Blobs: blobstore.New(a, blobstore.Options{}), Key: key, Clock: a.Now})
//	…
//	a.SetFaults(false) // faults stop; drive every chain to its end
//	fmt.Println(a.Stats())
//
// One Driver stands for one process: give each process of a test fleet its
// own, over one shared storage (memblob's Reopen, another s3blob over the
// same bucket), each with its own seed and skew. Kill is the process's
// SIGKILL: from then on nothing it does reaches the storage.
//
// The faults, per operation, drawn from the Driver's generator:
//
//   - latency (Faults.LatencyRate, up to Faults.MaxLatency): the operation
//     waits first, bounded by its context;
//   - error (Faults.ErrorRate): the operation fails with ErrInjected before
//     it reaches the wrapped driver, which sees nothing of it;
//   - lost (Faults.LostRate, Put, PutOnce and Delete): the write happens, then the
//     caller gets ErrInjected, as when a connection drops after the
//     storage answered;
//   - race (Faults.RaceRate, create-only Put or PutOnce of at most 1 MiB): the write is
//     sent twice at once, as a client retry racing its first attempt; one
//     attempt wins at the storage, and the caller gets the answer of either,
//     chosen at random, so it may be told blobstore.ErrExist although its
//     own bytes are the ones stored.
//
// A Driver is a blobstore.OnceDriver, locked when its wrapped driver is
// (memblob always is): PutOnce and ReadOnce pass through with the faults
// of a create-only Put and of a read.
//
// With every rate zero (the zero Faults) and no Kill, a Driver is its
// wrapped driver, and passes the storetest conformance suite.
//
// # Concurrency
//
// A Driver is safe for concurrent use, as its wrapped driver is. Its
// generator is shared by the goroutines that call it, so which operation
// draws which fault depends on their interleaving: a seed fixes the rates
// and the stream of draws, not which call gets each.
//
// # Errors
//
// Injected failures are ErrInjected (wrapped, naming the operation and the
// key); a killed Driver's operations fail with ErrKilled. Everything else
// is the wrapped driver's error, unchanged.
package faultblob
