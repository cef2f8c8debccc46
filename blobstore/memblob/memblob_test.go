package memblob_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/blobstore/storetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		d := memblob.New()
		return func() blobstore.Driver { return d.Reopen() }
	})
}
