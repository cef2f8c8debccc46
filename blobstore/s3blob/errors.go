package s3blob

import "errors"

// ErrConfig is returned by New and ConfigFromEnv when the configuration is
// incomplete or malformed; the message names the field and the environment
// variable that sets it.
var ErrConfig = errors.New("s3blob: invalid config")

// ErrBucket is returned by New when the bucket cannot be checked, created
// or set up; it wraps the server's answer (bad credentials, no such bucket
// with SkipBucketSetup, unreachable endpoint).
var ErrBucket = errors.New("s3blob: bucket unavailable")
