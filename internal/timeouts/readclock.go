// Package timeouts holds the clocks that bound how long a request may
// take to arrive: a ReadClock for the reads of a body (an idle timeout
// and a minimum rate), an IdleWatch for a stream that passes no message;
// and SetWriteDeadline, which bounds how long a response may take to
// leave. Every way in (REST, WebSocket, the gRPC pass-through) uses them.
package timeouts

import (
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/httperr"
)

// MinBodyRate is the slowest a request body (or one message of a request
// stream) may arrive, on average, once its first read idle timeout has
// passed: each byte read extends the time the body may take by
// 1/MinBodyRate s, as Apache's mod_reqtimeout does ("body=20,MinRate=500").
// Waiting between reads alone (nginx's client_body_timeout) does not bound
// a trickle: one byte every 29 s passes a 30 s idle timeout, and would
// hold a connection for 4 years before a 4 MiB body limit ends it; at
// 500 bytes/s, 4 MiB takes at most 2.3 hours, and costs its sender the
// bandwidth.
const MinBodyRate = 500

// A ReadClock bounds the reads of a request body: a read that waits
// longer than the idle timeout for data fails, and so does one past the
// body's budget (the idle timeout, plus a second per MinBodyRate bytes
// read). A failed read cuts the connection's reading with a read deadline
// in the past, left there: the request is answered with
// errReadIdle/errReadSlow, and net/http closes an HTTP/1.1 connection
// whose request body was not read to its end.
//
// A request stream's clock times one message at a time: waiting for the
// first bytes of the next message is the stream idle timeout's business,
// not this clock's (a chat waits for its user to type). The clock is
// reused by pooled exchanges; its timer is made once. Its zero value is
// ready for Reset.
type ReadClock struct {
	body io.Reader
	idle time.Duration

	// Read by the reading goroutine only.
	start    time.Time // the message began
	n        int64     // bytes of the message read
	between  bool      // a stream waits for its next message: not timed
	timedOut error     // the cause, once a read has returned it

	mu       sync.Mutex
	timer    *time.Timer
	w        http.ResponseWriter // whose read deadline cuts a read short
	deadline time.Time           // of the read in progress; zero when none
	slow     bool                // that deadline is the body's budget
	cause    error               // errReadIdle or errReadSlow, once the timer cut a read
}

// Reset makes c the clock of body, read for the response w: reads wait
// at most idle for data (idle must be positive).
func (c *ReadClock) Reset(body io.Reader, w http.ResponseWriter, idle time.Duration) {
	c.body, c.idle = body, idle
	c.start, c.n, c.between, c.timedOut = time.Now(), 0, false, nil
	c.mu.Lock()
	c.w, c.deadline, c.cause = w, time.Time{}, nil
	c.mu.Unlock()
}

// Release forgets the body, the response and a failure, for a pool.
func (c *ReadClock) Release() {
	c.body, c.timedOut = nil, nil
	c.mu.Lock()
	c.w, c.cause = nil, nil
	c.mu.Unlock()
}

func (c *ReadClock) Read(p []byte) (int, error) {
	if c.timedOut != nil {
		return 0, c.timedOut
	}
	if c.between {
		return c.body.Read(p)
	}
	now := time.Now()
	deadline, slow := now.Add(c.idle), false
	if budget := c.start.Add(c.idle + time.Duration(c.n)*(time.Second/MinBodyRate)); budget.Before(deadline) {
		// With no byte read yet, the body has been idle since it began.
		deadline, slow = budget, c.n > 0
	}
	c.mu.Lock()
	c.deadline, c.slow = deadline, slow
	if c.timer == nil {
		c.timer = time.AfterFunc(deadline.Sub(now), c.expire)
	} else {
		c.timer.Reset(deadline.Sub(now))
	}
	c.mu.Unlock()

	n, err := c.body.Read(p)

	c.mu.Lock()
	c.timer.Stop()
	c.deadline = time.Time{}
	cause := c.cause
	c.mu.Unlock()
	if cause != nil {
		c.timedOut = cause
		return 0, cause
	}
	c.n += int64(n)
	return n, err
}

// expire, the timer's function, cuts the read in progress short if its
// deadline has passed. A timer stopped too late to keep its function from
// running finds no read, or a read whose deadline is still ahead.
func (c *ReadClock) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deadline.IsZero() || time.Now().Before(c.deadline) || c.cause != nil {
		return
	}
	c.cause = errReadIdle(c.idle)
	if c.slow {
		c.cause = errReadSlow
	}
	http.NewResponseController(c.w).SetReadDeadline(time.Now())
}

// Failure returns why the timer cut a read short, or nil. It may be
// called from any goroutine.
func (c *ReadClock) Failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

// errReadIdle is the answer to a request whose body stopped coming for
// the idle timeout: 408, as nginx, Envoy and Apache answer it, with
// DEADLINE_EXCEEDED: a time limit passed before the request was whole
// (CANCELLED, 499 in grpc-gateway's table, says the client gave up,
// which it did not say).
func errReadIdle(idle time.Duration) error {
	return httperr.New(http.StatusRequestTimeout, codes.DeadlineExceeded,
		"no request body bytes for "+idle.String())
}

var errReadSlow = httperr.New(http.StatusRequestTimeout, codes.DeadlineExceeded,
	"request body arriving slower than "+strconv.Itoa(MinBodyRate)+" bytes/s")

// Await: the reads that follow wait for a stream's next message, which
// may be long in coming: they are not timed (framing.Clock).
func (c *ReadClock) Await() {
	if c.timedOut == nil {
		c.between = true
	}
}

// Begin: a message has begun; the reads of its rest are timed.
func (c *ReadClock) Begin() {
	c.between = false
	c.start, c.n = time.Now(), 0
}

var _ framing.Clock = (*ReadClock)(nil)
