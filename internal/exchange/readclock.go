package exchange

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

// A readClock bounds the reads of a request body: a read that waits
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
// reused by pooled exchanges; its timer is made once.
type readClock struct {
	body io.Reader
	idle time.Duration

	// Read by the reading goroutine only.
	start    time.Time // the message began
	n        int64     // bytes of the message read
	between  bool      // a stream waits for its next message: not timed
	timedOut error     // errReadIdle or errReadSlow, once a read failed

	mu       sync.Mutex
	timer    *time.Timer
	w        http.ResponseWriter // whose read deadline cuts a read short
	deadline time.Time           // of the read in progress; zero when none
	expired  bool                // the timer cut the read in progress
}

// reset makes c the clock of body, read for the response w.
func (c *readClock) reset(body io.Reader, w http.ResponseWriter, idle time.Duration) {
	c.body, c.idle = body, idle
	c.start, c.n, c.between, c.timedOut = time.Now(), 0, false, nil
	c.mu.Lock()
	c.w, c.deadline, c.expired = w, time.Time{}, false
	c.mu.Unlock()
}

// release forgets the body and response, for the pool.
func (c *readClock) release() {
	c.body = nil
	c.mu.Lock()
	c.w = nil
	c.mu.Unlock()
}

func (c *readClock) Read(p []byte) (int, error) {
	if c.timedOut != nil {
		return 0, c.timedOut
	}
	if c.between {
		n, err := c.body.Read(p)
		if n > 0 {
			c.between = false
			c.start, c.n = time.Now(), int64(n)
		}
		return n, err
	}
	now := time.Now()
	deadline, slow := now.Add(c.idle), false
	if budget := c.start.Add(c.idle + time.Duration(c.n)*time.Second/MinBodyRate); budget.Before(deadline) {
		deadline, slow = budget, true
	}
	c.mu.Lock()
	c.deadline = deadline
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
	expired := c.expired
	c.mu.Unlock()
	if expired {
		c.timedOut = errReadIdle(c.idle)
		if slow {
			c.timedOut = errReadSlow
		}
		return 0, c.timedOut
	}
	c.n += int64(n)
	return n, err
}

// expire, the timer's function, cuts the read in progress short if its
// deadline has passed. A timer stopped too late to keep its function from
// running finds no read, or a read whose deadline is still ahead.
func (c *readClock) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deadline.IsZero() || time.Now().Before(c.deadline) || c.expired {
		return
	}
	c.expired = true
	http.NewResponseController(c.w).SetReadDeadline(time.Now())
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

// messageClock times a request stream's messages: the wait for each
// message's first bytes is not timed, the rest of the message is.
type messageClock struct {
	r     framing.Reader
	clock *readClock
}

func (m *messageClock) Next() ([]byte, error) {
	if m.clock.timedOut == nil {
		m.clock.between = true
	}
	return m.r.Next()
}
