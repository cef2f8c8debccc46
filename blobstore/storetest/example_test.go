package storetest_test

import (
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/airlockrt/airlock/blobstore/storetest"
)

// NewDataReader makes large, reproducible test data without holding it.
func ExampleNewDataReader() {
	h := sha256.New()
	n, _ := io.Copy(h, storetest.NewDataReader(1, 10<<20))
	again := sha256.New()
	_, _ = io.Copy(again, storetest.NewDataReader(1, 10<<20))
	fmt.Println(n, fmt.Sprintf("%x", h.Sum(nil)) == fmt.Sprintf("%x", again.Sum(nil)))
	// Output: 10485760 true
}
