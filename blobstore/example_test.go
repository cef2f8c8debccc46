package blobstore_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
)

func Example() {
	ctx := context.Background()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()

	// A tool result too large to inline becomes a blob of the chain's tenant.
	a, err := store.Put(ctx, "acme", strings.NewReader("a large tool result"), "text/plain")
	if err != nil {
		panic(err)
	}
	// The session pins it while the chain runs...
	if err := store.Pin(ctx, "acme", a.Ref, "session-42"); err != nil {
		panic(err)
	}
	// ...a later call reads it back...
	rc, _, err := store.Open(ctx, "acme", a.Ref)
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	fmt.Printf("%s (%d bytes, %s)\n", b, a.Size, a.ContentType)

	// ...and another tenant cannot tell it exists.
	_, err = store.Stat(ctx, "globex", a.Ref)
	fmt.Println(err)

	// When the chain ends, the session unpins it; it expires after Options.TTL.
	if err := store.Unpin(ctx, "acme", a.Ref, "session-42"); err != nil {
		panic(err)
	}
	// Output:
	// a large tool result (19 bytes, text/plain)
	// blobstore: blob not found
}

func ExampleStore_Sweep() {
	ctx := context.Background()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	store := blobstore.New(memblob.New(), blobstore.Options{TTL: time.Hour, Clock: clock})
	defer store.Close()

	kept, _ := store.Put(ctx, "acme", strings.NewReader("pinned"), "")
	_ = store.Pin(ctx, "acme", kept.Ref, "session-1")
	_, _ = store.Put(ctx, "acme", strings.NewReader("forgotten"), "")

	now = now.Add(2 * time.Hour)
	stats, err := store.Sweep(ctx)
	fmt.Printf("scanned %d, removed %d (%d bytes), kept %d pinned, err %v\n",
		stats.Scanned, stats.Removed, stats.RemovedBytes, stats.Pinned, err)
	// Output: scanned 2, removed 1 (9 bytes), kept 1 pinned, err <nil>
}

func ExampleValidRef() {
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()
	a, _ := store.Put(context.Background(), "acme", strings.NewReader("x"), "")
	fmt.Println(len(a.Ref), a.Ref[:5])
	fmt.Println(blobstore.ValidRef("acme", a.Ref), blobstore.ValidRef("globex", a.Ref), blobstore.ValidRef("acme", "../etc/passwd"))
	// Output:
	// 37 blob_
	// true false false
}
