package protorest_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine they started is
// still running when they have all ended: a stream, a WebSocket or a
// remote call that outlives its client is a leak (HARDENING.md §5). It
// looks for as long as leakWait: the gateway's idle HTTP/2 workers
// (internal/warm) end a second after their last request.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := findLeaks(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: Errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// leakWait is how long TestMain waits for goroutines to end.
const leakWait = 5 * time.Second

// findLeaks is goleak.Find, again until it finds none or leakWait has
// passed.
func findLeaks() error {
	deadline := time.Now().Add(leakWait)
	for {
		err := goleak.Find()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
