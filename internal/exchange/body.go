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
	if err := x.takeDecoding(); err != nil {
		return err
	}
	x.body = bufpool.Get()
	// A declared length only sizes the first allocation, and only up to
	// maxPresize: the client may declare more than it sends.
	if n := x.R.ContentLength; n > 0 {
		x.body.Grow(int(min(n, maxPresize)))
	}
	var dst io.Writer = x.body
	if x.Env.Decoding != nil {
		x.counted.x = x
		dst = &x.counted
	}
	if err := x.copyBody(dst); err != nil {
		return err
	}
	x.Input.Body = x.body.Bytes()
	return x.setDecoding(x.decodingCost())
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
// for it before it sends the rest. What becomes of a rest not read then
// (read, or the connection closed) is h1framing.Unread's, which the
// router puts in front of a client stream over HTTP/1.x.
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

// discardBody reads and drops the request body, within the body limit.
// An HTTP/2 request whose length is 0 has nothing to read: net/http
// resets a stream that sends more than it declared (or that ended with
// its headers), so its body is not read, nor its read clock armed.
func (x *Exchange) discardBody() error {
	if x.R.Body == nil || x.R.Body == http.NoBody || x.R.ProtoMajor == 2 && x.R.ContentLength == 0 {
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
