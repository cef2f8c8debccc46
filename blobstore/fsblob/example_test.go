package fsblob_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/fsblob"
)

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "airlock-blobs-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	d, err := fsblob.New(dir) // in production: fsblob.DefaultDir()
	if err != nil {
		panic(err)
	}
	store := blobstore.New(d, blobstore.Options{})
	defer store.Close()

	a, err := store.Put(ctx, "acme", strings.NewReader(`{"rows":42}`), "application/json")
	if err != nil {
		panic(err)
	}
	if err := store.Pin(ctx, "acme", a.Ref, "session-1"); err != nil {
		panic(err)
	}
	st, err := store.Stat(ctx, "acme", a.Ref)
	fmt.Println(st.Size, st.ContentType, st.SHA256[:12], err)
	// Output: 11 application/json 90f11e42fd7a <nil>
}
