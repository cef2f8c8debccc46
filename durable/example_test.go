package durable_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/durable"
)

// Two processes share one bucket: the first decision on a parked call wins,
// and exactly one of them claims the parked state.
func Example() {
	ctx := context.Background()
	bucket := blobstore.New(memblob.New(), blobstore.Options{})
	defer bucket.Close()
	fleetKey := []byte("example-fleet-key-0123456789abcdef")
	a, _ := durable.New(durable.Options{Blobs: bucket, Key: fleetKey, Node: "a"})
	b, _ := durable.New(durable.Options{Blobs: bucket, Key: fleetKey, Node: "b"})

	args := []byte(`{"to":"bob"}`)
	sum := sha256.Sum256(args)
	req := durable.Approval{ID: durable.ApprovalID("ch1", 1), Tenant: "acme", ChainID: "ch1", Seq: 1, Tool: "send",
		Risk: "HIGH", Args: args, ArgsHash: hex.EncodeToString(sum[:]), ArgsSize: len(args)}
	if err := a.SavePark(ctx, &durable.Park{Tenant: "acme", ChainID: "ch1", Gen: 1,
		Approvals: []durable.Approval{req}, State: []byte("the chain's state")}); err != nil {
		fmt.Println(err)
		return
	}

	d, err := a.Decide(ctx, "acme", req.ID, durable.Decision{Approved: true, ArgsHash: req.ArgsHash, By: "alice"})
	fmt.Println(d.Approved, d.By, err)
	d, err = b.Decide(ctx, "acme", req.ID, durable.Decision{Approved: false, ArgsHash: req.ArgsHash, By: "bob"})
	fmt.Println(d.Approved, d.By, errors.Is(err, durable.ErrAlreadyDecided))

	wonA, _ := a.Claim(ctx, "acme", "ch1", 1, "resume")
	wonB, _ := b.Claim(ctx, "acme", "ch1", 1, "resume")
	fmt.Println(wonA, wonB)

	p, err := b.LoadPark(ctx, "acme", "ch1", 1)
	fmt.Println(string(p.State), err)
	// Output:
	// true alice <nil>
	// true alice true
	// true false
	// the chain's state <nil>
}
