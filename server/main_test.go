package server_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: every
// chain, stream and approval wait must end with its test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
