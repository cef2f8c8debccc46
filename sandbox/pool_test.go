package sandbox

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/sandbox/internal/quickjs"
)

// TestPoolRefillsAfterFailure: a creation that fails leaves the pool empty
// only until the next take (or the retry timer): it is not stuck empty.
func TestPoolRefillsAfterFailure(t *testing.T) {
	var calls atomic.Int32
	p := newPool(1, func(context.Context) (*quickjs.Instance, error) {
		if calls.Add(1) == 2 {
			return &quickjs.Instance{}, nil
		}
		return nil, errors.New("transient") // the first, and every one after the one the test takes

	})
	defer func() {
		close(p.stop)
		<-p.done
	}()
	require.Eventually(t, func() bool { return calls.Load() >= 1 }, 10*time.Second, time.Millisecond)
	require.Nil(t, p.get(), "the first creation failed")
	require.Eventually(t, func() bool { return len(p.ch) == 1 }, 10*time.Second, time.Millisecond, "the take asked for a refill")
	require.NotNil(t, p.get())
}
