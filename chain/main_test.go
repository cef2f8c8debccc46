package chain_test

import (
	"os"
	"testing"

	"github.com/airlockrt/airlock/sandbox"
)

// TestMain makes the test binary the parse worker of the tests' large
// scripts (sandbox.RunParseWorker).
func TestMain(m *testing.M) {
	sandbox.RunParseWorker()
	os.Exit(m.Run())
}
