package s3blob_test

import (
	"fmt"

	"github.com/airlockrt/airlock/blobstore/s3blob"
)

// Config prints without its secret, so it is safe to log.
func ExampleConfig() {
	cfg := s3blob.Config{
		Endpoint:  "127.0.0.1:9000",
		Bucket:    "airlock-artifacts",
		AccessKey: "airlock",
		SecretKey: "do-not-print-me",
	}
	fmt.Println(cfg)
	// Output: s3blob.Config{Endpoint:"127.0.0.1:9000" Bucket:"airlock-artifacts" AccessKey:"airlock" SecretKey:[REDACTED] UseTLS:false Region:"" Prefix:""}
}
