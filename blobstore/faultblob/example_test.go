package faultblob_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/faultblob"
	"github.com/airlockrt/airlock/blobstore/memblob"
)

// A write whose response is lost: the caller hears of a failure, yet the
// bytes are stored.
func Example() {
	ctx := context.Background()
	shared := memblob.New()
	f := faultblob.New(shared.Reopen(), faultblob.Options{Seed: 1, Faults: faultblob.Faults{LostRate: 1}})
	defer f.Close()

	err := f.Put(ctx, "r/acme/x", strings.NewReader("hello"), blobstore.PutOptions{CreateOnly: true})
	fmt.Println(errors.Is(err, faultblob.ErrInjected))
	e, err := shared.Stat(ctx, "r/acme/x")
	fmt.Println(e.Size, err)
	fmt.Println(f.Stats())
	// Output:
	// true
	// 5 <nil>
	// ops=1 latency=0 errors=0 lost=1 races=0 killed=0
}
