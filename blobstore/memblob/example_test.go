package memblob_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
)

func Example() {
	ctx := context.Background()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	defer store.Close()

	a, err := store.Put(ctx, "acme", strings.NewReader("hello"), "text/plain")
	if err != nil {
		panic(err)
	}
	rc, _, err := store.Open(ctx, "acme", a.Ref)
	if err != nil {
		panic(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	fmt.Println(string(b), a.Size, a.ContentType)
	// Output: hello 5 text/plain
}

func ExampleDriver_Reopen() {
	ctx := context.Background()
	d := memblob.New()
	first := blobstore.New(d, blobstore.Options{})
	second := blobstore.New(d.Reopen(), blobstore.Options{})
	defer second.Close()

	a, _ := first.Put(ctx, "acme", strings.NewReader("shared"), "")
	first.Close()
	st, err := second.Stat(ctx, "acme", a.Ref)
	fmt.Println(st.Size, err)
	// Output: 6 <nil>
}
