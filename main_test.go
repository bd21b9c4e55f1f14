package protorest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine they started is
// still running when they have all ended: a stream, a WebSocket or a
// remote call that outlives its client is a leak (HARDENING.md §5).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
