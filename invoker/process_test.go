package invoker_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/s3blob"
	"github.com/airlockrt/airlock/govern"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/session"
	"github.com/airlockrt/airlock/toolbox"
)

// The child side of TestIdempotencyAcrossProcesses: set by the parent.
const (
	envChild    = "AIRLOCK_IDEM_CHILD"    // "1" in a child
	envChildKey = "AIRLOCK_IDEM_KEY"      // the idempotency key
	envHold     = "AIRLOCK_IDEM_HOLD"     // how long the tool takes
	envBucket   = "AIRLOCK_IDEM_BUCKET"   // the shared bucket
	childOut    = "AIRLOCK_IDEM_RESULT: " // prefix of the child's one line
)

// childReport is what a child prints: whether its tool ran, and the result.
type childReport struct {
	Ran    int64          `json:"ran"`
	Result invoker.Result `json:"result"`
}

// TestIdempotencyChild is not a test of its own: run by
// TestIdempotencyAcrossProcesses in a separate process, it builds its own
// Invoker over the shared MinIO bucket and makes one write-class call.
func TestIdempotencyChild(t *testing.T) {
	if os.Getenv(envChild) != "1" {
		t.Skip("a child of TestIdempotencyAcrossProcesses")
	}
	cfg, err := s3blob.ConfigFromEnv()
	require.NoError(t, err)
	cfg.Bucket = os.Getenv(envBucket)
	d, err := s3blob.New(context.Background(), cfg)
	require.NoError(t, err)
	store := blobstore.New(d, blobstore.Options{})
	defer store.Close()
	hold, _ := time.ParseDuration(os.Getenv(envHold))
	var ran atomic.Int64
	box, err := toolbox.New(toolbox.Func("charge", "charges a card", func(_ context.Context, in struct {
		Cents int `json:"cents"`
	}) (string, error) {
		ran.Add(1)
		time.Sleep(hold)
		return fmt.Sprintf("charged %d (pid %d)", in.Cents, os.Getpid()), nil
	}).WithRisk(toolbox.High))
	require.NoError(t, err)
	outcomes, err := govern.NewStoreOutcomes(store, govern.StoreOutcomesOptions{})
	require.NoError(t, err)
	gov := govern.New(govern.Options{Outcomes: outcomes})
	inv, err := invoker.New(box, invoker.Options{Governor: gov, Store: store, Policy: invoker.Policy{MaxRiskUnapproved: toolbox.High}})
	require.NoError(t, err)
	sess := inv.NewSession(session.Options{Tenant: "acme"})
	defer sess.Close(context.Background())
	res := inv.Invoke(context.Background(), sess, invoker.Call{Tool: "charge", Args: json.RawMessage(`{"cents":500}`),
		IdempotencyKey: os.Getenv(envChildKey)})
	b, err := json.Marshal(childReport{Ran: ran.Load(), Result: res})
	require.NoError(t, err)
	fmt.Println(childOut + string(b))
}

// runChild runs TestIdempotencyChild in a new process.
func runChild(t *testing.T, bucket, key string, hold time.Duration) childReport {
	cmd := exec.Command(os.Args[0], "-test.run=^TestIdempotencyChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"=1", envChildKey+"="+key, envBucket+"="+bucket, envHold+"="+hold.String())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, childOut); ok {
			var r childReport
			require.NoError(t, json.Unmarshal([]byte(rest), &r))
			return r
		}
	}
	t.Fatalf("the child printed no result:\n%s", out)
	return childReport{}
}

// TestIdempotencyAcrossProcesses: two processes, each with its own
// Invoker, share one real MinIO bucket. The second call with the same key
// returns the first's recorded result and does not execute; two racing
// processes execute the call once between them.
func TestIdempotencyAcrossProcesses(t *testing.T) {
	if os.Getenv(s3blob.EnvEndpoint) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is unset: this test needs MinIO (scripts/minio.sh run -- go test ./invoker/)", s3blob.EnvEndpoint)
		}
		t.Skipf("%s is unset; run: scripts/minio.sh run -- go test ./invoker/", s3blob.EnvEndpoint)
	}
	cfg, err := s3blob.ConfigFromEnv()
	require.NoError(t, err)
	rnd := make([]byte, 6)
	_, _ = rand.Read(rnd)
	cfg.Bucket = "airlock-idem-" + hex.EncodeToString(rnd)
	d, err := s3blob.New(context.Background(), cfg) // creates the bucket
	require.NoError(t, err)
	require.NoError(t, d.Close())

	first := runChild(t, cfg.Bucket, "order-1", 0)
	require.EqualValues(t, 1, first.Ran)
	require.True(t, first.Result.OK(), first.Result.Message)
	require.False(t, first.Result.Deduped)
	second := runChild(t, cfg.Bucket, "order-1", 0)
	require.EqualValues(t, 0, second.Ran, "the second process does not execute")
	require.True(t, second.Result.Deduped)
	require.Equal(t, string(first.Result.Value), string(second.Result.Value))

	// Two processes at once with a new key: one runs, the other is told the
	// call is pending (or, if it came second, gets the recorded result).
	var wg sync.WaitGroup
	reports := make([]childReport, 2)
	for i := range reports {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reports[i] = runChild(t, cfg.Bucket, "order-2", 2*time.Second)
		}()
	}
	wg.Wait()
	require.EqualValues(t, 1, reports[0].Ran+reports[1].Ran, "exactly one process executed: %+v", reports)
	for _, r := range reports {
		if r.Ran == 0 {
			require.True(t, r.Result.Reason == invoker.ReasonIdempotencyPending || r.Result.Deduped, "%+v", r.Result)
		}
	}
}
