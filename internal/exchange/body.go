package exchange

import (
	"io"
	"net/http"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/bufpool"
	"github.com/protorest/protorest/internal/compress"
	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/text"
)

// maxPresize caps how much of a declared Content-Length is allocated
// before the bytes arrive.
const maxPresize = 64 << 10

// Bind prepares the request messages: for a client stream, a source that
// reads them from the body as they arrive (with full duplex, so that
// responses can go out meanwhile); otherwise the one message's body, read
// whole, within the body limit. A body the rule takes is read as its
// Content-Encoding (gzip, zstd) decodes it, the limit applying to the
// decoded bytes; another coding is a 415 error. A body the rule does not
// take is read and dropped all the same (413 past the limit), whatever
// its coding: over HTTP/1.1, net/http notices a client that goes away
// only once the body has been read. A rule that serves no request (its
// request plan's Refusal) returns that error before reading anything.
func (x *Exchange) Bind() error {
	if err := x.Binding.Request.Refusal; err != nil {
		return err
	}
	if x.Binding.Request.Body.Kind != bind.BodyNone {
		coded, err := compress.DecodeRequest(x.W, x.R)
		if err != nil {
			return err
		}
		x.coded = coded
	}
	if x.Binding.ClientStreams {
		// Reading the body while responses go out needs full duplex on
		// HTTP/1.1 (HTTP/2 always has it).
		http.NewResponseController(x.W).EnableFullDuplex()
		x.BindStream(x.bodyReader(), (*requestBody)(x))
		return nil
	}
	x.BindMessage(nil)
	if x.Binding.Request.Body.Kind == bind.BodyNone {
		return x.discardBody()
	}
	x.body = bufpool.Get()
	// A declared length only sizes the first allocation, and only up to
	// maxPresize: the client may declare more than it sends.
	if n := x.R.ContentLength; n > 0 {
		x.body.Grow(int(min(n, maxPresize)))
	}
	if err := x.copyBody(x.body); err != nil {
		return err
	}
	x.Input.Body = x.body.Bytes()
	return nil
}

// BindMessage makes body (in the format of x.Input) the request's one
// message.
func (x *Exchange) BindMessage(body []byte) {
	x.Input.Body = body
	x.one.done, x.one.err = false, nil
	x.Source = &x.one
}

// BindStream makes the messages r reads the request's; in cuts a read of
// r in progress short.
func (x *Exchange) BindStream(r framing.Reader, in ReadInterrupter) {
	x.Source = newBodySource(x, r, in)
}

// requestBody is an exchange as the ReadInterrupter of its HTTP request
// body.
type requestBody Exchange

// InterruptRead cuts a read of the request body in progress short, with
// a read deadline: in the past over HTTP/2. Over HTTP/1.x a read that
// fails poisons the connection (net/http cancels the context of every
// later request on it), so the read is given the read idle timeout to
// end as the client sends, the answer flushed first: the client may wait
// for it before it sends the rest.
func (b *requestBody) InterruptRead() (restore func()) {
	rc := http.NewResponseController(b.W)
	deadline := time.Now()
	if d := b.Env.ReadIdleTimeout; b.R.ProtoMajor == 1 && d > 0 {
		rc.Flush()
		deadline = deadline.Add(d)
	}
	rc.SetReadDeadline(deadline)
	return func() { rc.SetReadDeadline(time.Time{}) }
}

// releaseBody reads what a client stream left of an HTTP/1.x request
// body, as net/http would once the handler returns (up to 256 KiB, or it
// closes the connection), but within the handler: after it, net/http would
// find the body's end and start a read of the connection that races its
// read of the next request, a panic ("invalid concurrent Body.Read call",
// golang/go#68560). The read is timed as InterruptRead's. A client that
// does not send the rest in time loses its connection, as does one whose
// connection a read failed (the rest would be taken for its next request,
// or every later request canceled), and a chunked answer its last chunk.
func (b *requestBody) releaseBody() {
	if b.R.ProtoMajor != 1 {
		return
	}
	restore := b.InterruptRead()
	err := b.R.Body.Close()
	restore()
	if err != nil || b.R.Context().Err() != nil {
		if conn, _, err := http.NewResponseController(b.W).Hijack(); err == nil {
			conn.Close()
		}
	}
}

// discardBody reads and drops the request body, within the body limit.
func (x *Exchange) discardBody() error {
	if x.R.Body == nil || x.R.Body == http.NoBody {
		return nil
	}
	return x.copyBody(io.Discard)
}

// copyBody copies the request body to dst, reading at most one byte past
// the body limit: past it, the body is too large.
func (x *Exchange) copyBody(dst io.Writer) error {
	limit := x.Env.MaxBody
	if limit > 0 && x.R.ContentLength > limit {
		return httperr.TooLarge(limit)
	}
	src := x.timedBody()
	if limit > 0 {
		x.limited = io.LimitedReader{R: src, N: limit + 1}
		src = &x.limited
	}
	n, err := io.Copy(dst, src)
	if err != nil {
		if cause := x.clock.Failure(); cause != nil {
			return cause
		}
		if _, ok := status.FromError(err); ok {
			return err // the gateway's own: a body that does not decode
		}
		return status.Error(codes.InvalidArgument, "reading the request body: "+text.Truncate(err.Error(), 100))
	}
	if limit > 0 && n > limit {
		return httperr.TooLarge(limit)
	}
	return nil
}

// timedBody returns the request body, its reads bounded by the read idle
// timeout (timeouts.ReadClock) when the gateway has one.
func (x *Exchange) timedBody() io.Reader {
	if x.Env.ReadIdleTimeout <= 0 || x.R.Body == nil || x.R.Body == http.NoBody {
		return x.R.Body
	}
	x.clock.Reset(x.R.Body, x.W, x.Env.ReadIdleTimeout)
	return x.clock
}
