package h1framing

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxUnread is how much of a request body left unread when its answer
// starts the server still reads to keep the connection: net/http's own
// figure (maxPostHandlerReadBytes).
const maxUnread = 256 << 10

// An Unread is the ResponseWriter of an HTTP/1.x request whose answer
// may start before its body is read to its end (a refusal, a limit, an
// error the method returns at once, a stream answered as it is read).
// The client's next request may follow that body on the connection, so
// the server must either read the rest or close the connection, and
// then say so in the answer, "Connection: close" (RFC 9112 §9.6): a
// client that has sent its whole body and read the whole answer would
// otherwise send its next request on a connection about to close.
//
// When the answer starts, the rest is kept to be read (the connection
// kept) when the request declared its length and at most 256 KiB of it
// is left, as net/http does; else the answer says "Connection: close",
// the body is no longer read, and the connection's close lingers
// (Linger), so that a client still sending reads the answer rather than
// a reset. Without full duplex net/http reads a kept rest before the
// answer; in full duplex (the handler reads while it answers) the rest
// is read when the handler is done with the body (Close, or Finish),
// each read within the read idle timeout; a rest that does not come in
// time loses its connection (its client has not finished its request,
// so cannot have sent another on it).
type Unread struct {
	http.ResponseWriter
	r      *http.Request
	length int64 // the body's declared length, as it came; -1: unknown
	body   countedBody
	duplex bool
	idle   time.Duration

	keepChunked bool // KeepChunkedRest
	refused     bool // the answer is 413: the body is refused

	started bool // the answer's header is written
	closing bool // it says Connection: close
	lost    bool // a kept rest did not come: the connection must close

	release sync.Once
}

// NewUnread returns the Unread of r, an HTTP/1.x request with a body,
// answered on w, its body r.Body from then on; duplex says the handler
// reads the body while it answers; idle bounds each read of a kept rest
// (0: 5 s). It returns nil for another request (HTTP/2, no body).
// Finish must be called when the handler is done.
func NewUnread(w http.ResponseWriter, r *http.Request, duplex bool, idle time.Duration) *Unread {
	u := new(Unread)
	if !u.Init(w, r, duplex, idle) {
		return nil
	}
	return u
}

// Init makes u, a zero Unread, the one NewUnread returns, in the caller's
// allocation; it reports false (u unused) where NewUnread returns nil.
func (u *Unread) Init(w http.ResponseWriter, r *http.Request, duplex bool, idle time.Duration) bool {
	if r.ProtoMajor != 1 || r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return false
	}
	if idle <= 0 {
		idle = 5 * time.Second
	}
	u.ResponseWriter, u.r, u.length, u.duplex, u.idle = w, r, r.ContentLength, duplex, idle
	u.body.ReadCloser, u.body.u = r.Body, u
	r.Body = &u.body
	return true
}

// KeepChunkedRest has a rest of unknown length (a chunked body) read
// after the answer, up to 256 KiB, each read within the idle timeout, to
// keep the connection, as net/http reads one before an answer without
// full duplex; unless the answer is 413, which refuses the body. A
// client that streams its messages may go on sending after an early
// answer, and expects its writes to succeed (grpc-gateway's clients do).
// Without it such a rest closes the connection. Call it before the
// answer starts.
func (u *Unread) KeepChunkedRest() { u.keepChunked = true }

// start decides, as the answer's header goes out (with status code),
// whether the rest of the body is read or the connection closed.
func (u *Unread) start(code int) {
	if u.started {
		return
	}
	u.started = true
	u.refused = code == http.StatusRequestEntityTooLarge
	switch {
	case u.body.eof.Load():
	case !u.duplex && u.length > 0:
		// net/http reads a rest of up to 256 KiB before the answer, or
		// says Connection: close itself (and half-closes the connection).
		if u.body.failed.Load() || !u.keepable() {
			Linger(u.r)
		}
	case u.body.failed.Load() || !u.keepable():
		u.closing = true
		u.Header().Set("Connection", "close")
		Linger(u.r)
		if !u.duplex {
			u.cut() // net/http would read a chunked rest after the handler
		}
	}
}

// keepable reports whether the rest of the body is small enough to read:
// a declared length, at most maxUnread of it left; or, with
// KeepChunkedRest, a length not known, its body not refused.
func (u *Unread) keepable() bool {
	if u.length < 0 {
		return u.keepChunked && !u.refused
	}
	return u.length > 0 && u.length-u.body.n.Load() <= maxUnread
}

// done is called when the handler is done with the body (Close, Finish):
// a kept rest is read, in full duplex; one that is not is cut, and if
// the answer went out without saying so, the connection is lost.
func (u *Unread) done() {
	u.release.Do(func() {
		switch {
		case u.body.eof.Load():
		case u.closing || hasClose(u.Header()):
			u.cut()
		case !u.duplex && u.length > 0:
			// net/http's, as the answer starts (start).
		case u.body.failed.Load() || !u.keepable():
			if u.started {
				u.lost = true
				return
			}
			u.closeBeforeAnswer()
		case u.duplex && !u.readRest():
			if u.started || u.length > 0 {
				u.lost = true
				return
			}
			// A chunked rest, before the answer: net/http, too, says
			// Connection: close when one does not end within 256 KiB.
			u.closeBeforeAnswer()
		}
	})
}

// closeBeforeAnswer has the answer, not started yet, say Connection:
// close, and stops the reading.
func (u *Unread) closeBeforeAnswer() {
	u.closing = true
	u.Header().Set("Connection", "close")
	u.cut()
}

// readRest reads the rest of the body, each read within the idle
// timeout, at most maxUnread more, the answer flushed first if it has
// started (its client may wait for it before it sends the rest), and
// reports whether it ended there.
func (u *Unread) readRest() bool {
	rc := http.NewResponseController(u.ResponseWriter)
	if u.started {
		rc.Flush()
	}
	for left := int64(maxUnread); ; {
		rc.SetReadDeadline(time.Now().Add(u.idle))
		n, err := io.CopyN(io.Discard, &u.body, min(32<<10, left+1))
		left -= n
		switch {
		case err == io.EOF || errors.Is(err, http.ErrBodyReadAfterClose):
			// Read to its end: here, or by net/http before the answer.
			rc.SetReadDeadline(time.Time{})
			return true
		case err != nil || n == 0 || left < 0:
			return false
		}
	}
}

// Finish ends the request's side of the exchange, when the handler is
// done: the body is released (done), a connection that closes has its
// reading cut, so that net/http does not wait for the rest after the
// handler, and a connection whose kept rest did not come is closed now.
func (u *Unread) Finish() {
	if u == nil {
		return
	}
	u.done()
	switch {
	case u.lost:
		Linger(u.r)
		if conn, _, err := http.NewResponseController(u.ResponseWriter).Hijack(); err == nil {
			conn.Close()
		}
	case !u.body.eof.Load() && (u.closing || hasClose(u.Header())):
		u.cut() // again: an interrupted read may have lifted the deadline
	}
}

// cut stops the reading of the connection, with a read deadline in the
// past, and makes its close linger: it closes after the answer.
func (u *Unread) cut() {
	http.NewResponseController(u.ResponseWriter).SetReadDeadline(time.Now())
	Linger(u.r)
}

func (u *Unread) WriteHeader(code int) {
	if code >= 200 {
		u.start(code)
	}
	u.ResponseWriter.WriteHeader(code)
}

func (u *Unread) Write(p []byte) (int, error) {
	u.start(http.StatusOK)
	return u.ResponseWriter.Write(p)
}

func (u *Unread) Flush() {
	u.start(http.StatusOK)
	http.NewResponseController(u.ResponseWriter).Flush()
}

func (u *Unread) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// hasClose reports whether h says Connection: close.
func hasClose(h http.Header) bool {
	for _, v := range h["Connection"] {
		if strings.EqualFold(strings.TrimSpace(v), "close") {
			return true
		}
	}
	return false
}

// countedBody is a request body that notes how much of it was read, its
// end, and a failure to read it.
type countedBody struct {
	io.ReadCloser
	u      *Unread
	n      atomic.Int64
	eof    atomic.Bool
	failed atomic.Bool
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	switch {
	case err == io.EOF:
		b.eof.Store(true)
	case err != nil:
		b.failed.Store(true)
	}
	return n, err
}

// Close is the handler done with the body (Unread.done).
func (b *countedBody) Close() error {
	b.u.done()
	return b.ReadCloser.Close()
}
