package server_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/airlockrt/airlock/sandbox"
)

// TestMain fails the package if a test leaves a goroutine behind: every
// chain, stream and approval wait must end with its test. The test binary
// is also the parse worker of large scripts (sandbox.RunParseWorker).
func TestMain(m *testing.M) {
	sandbox.RunParseWorker()
	goleak.VerifyTestMain(m)
}
