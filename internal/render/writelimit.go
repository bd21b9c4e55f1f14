package render

import (
	"context"
	"net/http"
	"reflect"
	"time"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/timeouts"
)

// refusedWriteTimeout bounds the writing of an error response that the
// budget has no room for (ErrBusy among them): a client that takes it at
// once is answered; one that does not read is cut off, rather than hold
// what the budget could not count.
const refusedWriteTimeout = 250 * time.Millisecond

// A writeLimit bounds the writing of one response, or of one message of
// a stream: past its deadline a write fails, and the stream (HTTP/2) or
// the connection (HTTP/1.x) is reset.
type writeLimit struct {
	w     http.ResponseWriter
	flush bool // end flushes: the bytes must be written before the response ends
	lift  bool // end lifts the deadline: it would outlive the write
	// closed, for a whole response on HTTP/2 that end does not flush,
	// receives when net/http has closed the stream: its last frame
	// written, or the stream reset (see limitBody); stream is the
	// request's context, which net/http cancels as it closes the stream,
	// before closed receives.
	closed <-chan bool
	stream context.Context
}

// limitWrite sets the write deadline of w, the response to r, to d from
// now (none when d <= 0, or when w cannot set one: a middleware without
// Unwrap). stream says more is written after this: a stream's message,
// which end flushes, and whose deadline end lifts. A whole response on
// HTTP/2 is flushed by end too: net/http keeps a small body (4 KiB) in a
// buffer until the handler returns, which would leave it to be written
// after the budget gave its bytes back, with no deadline. On HTTP/1.x its
// last bytes are written after the handler returns all the same, but
// into the connection's socket buffer, which only a client that has left
// earlier responses unread can fill; its deadline is lifted for the
// requests that follow on the connection.
func limitWrite(w http.ResponseWriter, r *http.Request, d time.Duration, stream bool) writeLimit {
	l := writeLimit{w: w, flush: stream || r.ProtoMajor >= 2}
	if d > 0 && timeouts.SetWriteDeadline(w, time.Now().Add(d)) {
		l.lift = stream || r.ProtoMajor < 2
	}
	return l
}

// bufferedBody is the largest response body that net/http keeps, on
// HTTP/1.x, in the response's buffer (2 KiB) until the handler returns,
// with room to spare: writing it writes nothing to the connection.
const bufferedBody = 1 << 10

// limitBody is limitWrite for a whole response of n body bytes, but none
// on HTTP/1.x for a body net/http keeps in its buffer (bufferedBody):
// nothing of it would be written to the connection before end lifts the
// deadline again, so the deadline would bound nothing. On HTTP/2, served
// by net/http, end does not flush: a flush would send the body before
// the frame that ends the stream, which net/http sends once the handler
// returns: one more frame, and one more write to the connection
// (docs/benchmarks.md). Its bytes stay counted instead until net/http
// closes the stream (release), under the same deadline.
func limitBody(w http.ResponseWriter, r *http.Request, d time.Duration, n int) writeLimit {
	if r.ProtoMajor < 2 && n <= bufferedBody {
		return writeLimit{w: w}
	}
	l := limitWrite(w, r, d, false)
	l.endUnflushed(r, true)
	return l
}

// endUnflushed makes l end without a flush when its response is served
// by net/http's HTTP/2 server, which writes what the handler left in its
// buffer with the frame that ends the stream, once the handler returns,
// and resets the stream at the write deadline even then. held says the
// response holds budget bytes: they are given back when net/http closes
// the stream (release). On another server, or behind a middleware
// without Unwrap, end flushes as before.
func (l *writeLimit) endUnflushed(r *http.Request, held bool) {
	if r.ProtoMajor != 2 {
		return
	}
	cn := netHTTP2(l.w)
	if cn == nil {
		return
	}
	l.flush = false
	if held {
		l.closed, l.stream = cn.CloseNotify(), r.Context()
	}
}

// netHTTP2 is w, unwrapped, when it is a response of net/http's HTTP/2
// server, whose CloseNotify receives once the stream's last frame is
// written or the stream is reset, whether or not the handler has
// returned; nil for another server's response, or one behind a
// middleware without Unwrap.
func netHTTP2(w http.ResponseWriter) http.CloseNotifier {
	for {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	cn, ok := w.(http.CloseNotifier)
	if !ok || reflect.TypeOf(w).String() != netHTTP2Writer {
		return nil
	}
	return cn
}

// netHTTP2Writer names the type of net/http's HTTP/2 responses, which is
// unexported (TestNetHTTP2Found pins it).
const netHTTP2Writer = "*http.http2responseWriter"

// end flushes the response if it must, so that its bytes are written
// within the deadline and while the budget counts them (the caller gives
// them back next: release), and lifts the deadline if it must. It
// returns the flush's error.
func (l writeLimit) end() error {
	var err error
	if l.flush {
		err = http.NewResponseController(l.w).Flush()
	}
	if l.lift {
		timeouts.SetWriteDeadline(l.w, time.Time{})
	}
	return err
}

// release gives hold back, once the response is written: at once, or
// when net/http closes the stream of a response that end did not flush
// (within a sweep of streamCloses), at once if it has already (a write
// the deadline cut short, a client gone).
func (l writeLimit) release(hold budget.Hold) {
	if l.closed == nil || l.stream.Err() != nil {
		hold.Release()
		return
	}
	streamCloses.add(l.closed, hold)
}

// Bounded returns h, an error handler, with each error response it
// writes counted and bounded as a response is: it takes what an error
// response holds (budget.Overhead) from the budget if there is room at once
// (an error is answered without waiting), and its writing is bounded by
// the write timeout; with no room, or for a Busy error, by
// refusedWriteTimeout. On HTTP/2 it is not flushed, as a whole response
// is not (limitBody): the handler returns at once, and net/http sends it
// in the frame that ends the stream, or resets the stream at the
// deadline.
func (c *Config) Bounded(h httperr.Handler) httperr.Handler {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		d := c.WriteTimeout
		hold, room := c.Budget.TryTake(r.Context(), budget.Overhead)
		if !room || httperr.IsBusy(err) {
			d = refusedWriteTimeout
		}
		limit := limitWrite(w, r, d, false)
		limit.endUnflushed(r, hold.N() > 0) // none held without room
		h(w, r, err)
		limit.end()
		limit.release(hold)
	}
}

// A WriteDeadline is a write deadline LimitWrite set, until Lift; the
// zero WriteDeadline set none.
type WriteDeadline struct{ w http.ResponseWriter }

// LimitWrite sets w's write deadline d from now (none when d <= 0, or
// when w cannot set one), which Lift lifts again for the requests that
// follow on the connection. Past the deadline a write fails (HTTP/2
// resets the stream, HTTP/1.1 closes the connection).
func LimitWrite(w http.ResponseWriter, d time.Duration) WriteDeadline {
	if d <= 0 || !timeouts.SetWriteDeadline(w, time.Now().Add(d)) {
		return WriteDeadline{}
	}
	return WriteDeadline{w}
}

// Lift lifts the deadline, if one was set.
func (l WriteDeadline) Lift() {
	if l.w != nil {
		timeouts.SetWriteDeadline(l.w, time.Time{})
	}
}
