package s3blob

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
)

// Environment variables read by ConfigFromEnv.
const (
	// EnvEndpoint sets Config.Endpoint, for example "127.0.0.1:9000".
	EnvEndpoint = "AIRLOCK_S3_ENDPOINT"
	// EnvBucket sets Config.Bucket.
	EnvBucket = "AIRLOCK_S3_BUCKET"
	// EnvAccessKey sets Config.AccessKey.
	EnvAccessKey = "AIRLOCK_S3_ACCESS_KEY"
	// EnvSecretKey sets Config.SecretKey.
	EnvSecretKey = "AIRLOCK_S3_SECRET_KEY"
	// EnvUseTLS sets Config.UseTLS: "true" or "false" (anything
	// strconv.ParseBool takes). Unset means false.
	EnvUseTLS = "AIRLOCK_S3_USE_TLS"
	// EnvRegion sets Config.Region.
	EnvRegion = "AIRLOCK_S3_REGION"
)

// Defaults applied by New to zero Config fields.
const (
	// DefaultPartSize is the multipart upload part size: 5 MiB, the
	// smallest S3 allows, which keeps an upload's buffers at 15 MiB with
	// DefaultConcurrency and was as fast as larger parts against MinIO
	// (BenchmarkPut in package blobstore).
	DefaultPartSize int64 = 5 << 20
	// MinPartSize is the smallest part size S3 accepts: 5 MiB.
	MinPartSize int64 = 5 << 20
	// DefaultConcurrency is how many parts of one upload are in flight.
	DefaultConcurrency = 2
	// maxParts is S3's limit on parts per upload.
	maxParts = 10000
)

// Config says which bucket to use and how to reach it. Endpoint and Bucket
// are required; every other field has a working zero value. Config's String
// and LogValue never show SecretKey.
type Config struct {
	// Endpoint is the server's host and optional port, such as
	// "127.0.0.1:9000" or "s3.amazonaws.com". A leading "http://" or
	// "https://" is accepted and decides UseTLS.
	Endpoint string

	// Bucket is the bucket holding the objects. New creates it, with
	// object locking on, if it is missing, unless SkipBucketSetup is set.
	Bucket string

	// AccessKey is the access key id of the static credentials. Empty,
	// together with an empty SecretKey, means anonymous access.
	AccessKey string

	// SecretKey is the secret of the static credentials. It never appears
	// in errors, logs or Config's String.
	SecretKey string

	// UseTLS selects https. Default false (http), the usual for a MinIO on
	// the same host; set it for anything that crosses a network.
	UseTLS bool

	// Region is the bucket's region. Empty means the client asks the
	// server once per bucket.
	Region string

	// Prefix is prepended to every object name, so that several stores (or
	// other data) can share a bucket. Empty (the default) or a valid
	// blobstore key followed by '/'.
	Prefix string

	// PartSize is the size of each part of a multipart upload, in bytes:
	// the unit of buffering. Blobs up to PartSize go up in one request.
	// Zero means DefaultPartSize (5 MiB); less than MinPartSize (5 MiB) is
	// raised to it. One upload holds at most (Concurrency+1)×PartSize bytes
	// of buffers (15 MiB by default), which the Driver keeps for reuse; the
	// largest blob is 10,000×PartSize (48.8 GiB by default).
	PartSize int64

	// Concurrency is how many parts of one upload are sent at once. Zero
	// means DefaultConcurrency (2).
	Concurrency int

	// MaxRetries is how often a failed request is tried in total. Zero
	// means the client's default (10); 1 disables retries.
	MaxRetries int

	// ExpireAfterDays, if positive, installs a bucket lifecycle rule that
	// deletes every object under Prefix that many days after it was
	// written, pinned or not: a backstop for deployments where no sweeper
	// runs. Choose it far longer than any pin lasts. Zero (the default)
	// installs no expiry rule; Store.Sweep then does all expiry. See
	// RATIONALE.md, "Why pin-marker objects?".
	ExpireAfterDays int

	// SkipBucketSetup makes New only check that the bucket exists, and
	// neither create it nor install lifecycle rules: for credentials
	// without bucket administration rights.
	SkipBucketSetup bool
}

// ConfigFromEnv reads a Config from the AIRLOCK_S3_* environment variables
// (EnvEndpoint and the others). Unset variables leave zero fields; an
// AIRLOCK_S3_USE_TLS that strconv.ParseBool rejects is an error.
func ConfigFromEnv() (Config, error) {
	c := Config{
		Endpoint:  os.Getenv(EnvEndpoint),
		Bucket:    os.Getenv(EnvBucket),
		AccessKey: os.Getenv(EnvAccessKey),
		SecretKey: os.Getenv(EnvSecretKey),
		Region:    os.Getenv(EnvRegion),
	}
	if v := os.Getenv(EnvUseTLS); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Config{}, fmt.Errorf("%w: %s=%q is not a boolean (use true or false)", ErrConfig, EnvUseTLS, v)
		}
		c.UseTLS = b
	}
	return c, nil
}

// String describes c with the secret key redacted.
func (c Config) String() string {
	return fmt.Sprintf("s3blob.Config{Endpoint:%q Bucket:%q AccessKey:%q SecretKey:%s UseTLS:%t Region:%q Prefix:%q}",
		c.Endpoint, c.Bucket, c.AccessKey, redacted(c.SecretKey), c.UseTLS, c.Region, c.Prefix)
}

// GoString is String, so that %#v does not print the secret key either.
func (c Config) GoString() string { return c.String() }

// LogValue implements slog.LogValuer without the secret key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("endpoint", c.Endpoint),
		slog.String("bucket", c.Bucket),
		slog.String("access_key", c.AccessKey),
		slog.String("secret_key", redacted(c.SecretKey)),
		slog.Bool("use_tls", c.UseTLS),
		slog.String("region", c.Region),
		slog.String("prefix", c.Prefix),
	)
}

func redacted(secret string) string {
	if secret == "" {
		return `""`
	}
	return "[REDACTED]"
}

// normalize validates c and fills in defaults.
func (c Config) normalize() (Config, error) {
	switch {
	case strings.HasPrefix(c.Endpoint, "https://"):
		c.Endpoint, c.UseTLS = strings.TrimPrefix(c.Endpoint, "https://"), true
	case strings.HasPrefix(c.Endpoint, "http://"):
		c.Endpoint, c.UseTLS = strings.TrimPrefix(c.Endpoint, "http://"), false
	}
	c.Endpoint = strings.TrimSuffix(c.Endpoint, "/")
	if c.Endpoint == "" || strings.ContainsAny(c.Endpoint, "/?#@ ") {
		return c, fmt.Errorf("%w: Endpoint %q: want host[:port], for example 127.0.0.1:9000 (set %s)", ErrConfig, c.Endpoint, EnvEndpoint)
	}
	if c.Bucket == "" {
		return c, fmt.Errorf("%w: Bucket is empty (set %s)", ErrConfig, EnvBucket)
	}
	if (c.AccessKey == "") != (c.SecretKey == "") {
		return c, fmt.Errorf("%w: set both AccessKey and SecretKey, or neither (%s, %s)", ErrConfig, EnvAccessKey, EnvSecretKey)
	}
	if c.Prefix != "" && (!strings.HasSuffix(c.Prefix, "/") || !validPrefix(c.Prefix)) {
		return c, fmt.Errorf("%w: Prefix %q: want lower-case path segments ending in '/', like \"airlock/\"", ErrConfig, c.Prefix)
	}
	if c.PartSize == 0 {
		c.PartSize = DefaultPartSize
	}
	c.PartSize = max(c.PartSize, MinPartSize)
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.ExpireAfterDays < 0 {
		return c, fmt.Errorf("%w: ExpireAfterDays %d is negative", ErrConfig, c.ExpireAfterDays)
	}
	return c, nil
}
