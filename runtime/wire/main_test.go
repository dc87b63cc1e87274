package wire

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: a stream, closed or
// cancelled, must leave none.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
