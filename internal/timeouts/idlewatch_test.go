package timeouts

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/protorest/protorest/internal/httperr"
)

// TestIdleWatch: messages within the timeout keep the call; then the
// timeout cancels it with the stream idle error, which Stop reports.
func TestIdleWatch(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	start := time.Now()
	w := WatchIdle(60*time.Millisecond, cancel)
	for range 5 { // 200 ms of messages, each within the timeout
		time.Sleep(40 * time.Millisecond)
		w.Touch()
	}
	if ctx.Err() != nil {
		t.Fatalf("canceled after %v although messages passed", time.Since(start))
	}
	<-ctx.Done()
	err := context.Cause(ctx)
	if httperr.Status(err) != http.StatusRequestTimeout || !strings.Contains(err.Error(), "no message either way for 60ms") {
		t.Fatalf("cause %v", err)
	}
	if stopped := w.Stop(); stopped == nil || stopped.Error() != err.Error() {
		t.Errorf("Stop after the timeout: %v, want %v", stopped, err)
	}

	busy := WatchIdle(time.Minute, func(error) { t.Error("canceled before its timeout") })
	if err := busy.Stop(); err != nil {
		t.Errorf("Stop before the timeout: %v", err)
	}

	none := WatchIdle(0, func(error) { t.Error("canceled without a timeout") })
	if none != nil {
		t.Fatal("a watch without a timeout")
	}
	none.Touch() // a nil watch does nothing
	if err := none.Stop(); err != nil {
		t.Errorf("Stop of a nil watch: %v", err)
	}
}
