package timeouts

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/protorest/protorest/internal/httperr"
)

// An IdleWatch ends a streaming call that passes no message, either way,
// for the stream idle timeout: it cancels the call, whose outcome becomes
// errStreamIdle. Every message that passes (Touch) starts the timeout
// again; a timer reset is all a message costs.
type IdleWatch struct {
	timer  *time.Timer
	d      time.Duration
	cancel context.CancelCauseFunc
	fired  atomic.Bool
}

// WatchIdle starts a stream idle timeout of d for the call that cancel
// ends. It returns nil (a watch that does nothing) when d is 0 or less.
func WatchIdle(d time.Duration, cancel context.CancelCauseFunc) *IdleWatch {
	if d <= 0 {
		return nil
	}
	w := &IdleWatch{d: d, cancel: cancel}
	w.timer = time.AfterFunc(d, w.expire)
	return w
}

func (w *IdleWatch) expire() {
	w.fired.Store(true)
	w.cancel(errStreamIdle(w.d))
}

// Touch says that a message passed, one way or the other.
func (w *IdleWatch) Touch() {
	if w != nil {
		w.timer.Reset(w.d)
	}
}

// Stop ends the watch, once the call has ended; it returns the stream
// idle error if the timeout ended the call, else nil.
func (w *IdleWatch) Stop() error {
	if w == nil {
		return nil
	}
	w.timer.Stop()
	if w.fired.Load() {
		return errStreamIdle(w.d)
	}
	return nil
}

// errStreamIdle is the outcome of a stream ended for passing no message
// for d: DEADLINE_EXCEEDED, a time limit, as for a body that stops coming
// (errReadIdle); 408 if the response has not started, as Envoy answers
// its stream_idle_timeout, else the stream's in-band error, or for a
// WebSocket the close code 4004 (4000 + the code, as for every outcome).
func errStreamIdle(d time.Duration) error {
	return httperr.New(http.StatusRequestTimeout, codes.DeadlineExceeded,
		"stream idle: no message either way for "+d.String())
}
