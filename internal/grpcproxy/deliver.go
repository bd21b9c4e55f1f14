package grpcproxy

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/timeouts"
)

// deliver sends m, a message from the upstream, to the client of call c
// within the response budget: m takes what it holds until it is written
// (its bytes and grpc-go's encoding of them, twice its size, and
// budget.Overhead), and deliver waits for the write, which the write
// timeout bounds; so a call holds one message toward its client, and
// reads the next from the upstream only once it is written. No room
// within the budget's wait is render.ErrBusy (UNAVAILABLE); a call that
// ends while its message is written, its context's error.
func (p *proxy) deliver(ctx context.Context, c *call, ss grpc.ServerStream, m *emptypb.Empty) error {
	hold, err := p.s.Budget.Take(ctx, 2*int64(proto.Size(m))+budget.Overhead)
	if err != nil {
		return render.ErrBusy
	}
	defer hold.Release()
	if err := ss.SendMsg(m); err != nil {
		return err
	}
	c.sent++
	return c.out.waitWritten(ctx, c.sent)
}

// A clientWriter is the http.ResponseWriter grpc-go writes a call's
// response through: it counts the messages written whole, and bounds the
// writing of each by the write timeout (none when it is 0). grpc-go
// writes a message (Write, then Flush), as it writes the headers and the
// trailers, on the one goroutine that serves the request.
//
// It also sends the response's headers as a gRPC server does, without
// the Trailer header in which grpc-go's ServeHTTP declares its status
// trailers: a client's header metadata would show it, and a client that
// stops reading before the end (its deadline passed) would find those
// names in its response's trailers, with no value. The status goes as
// trailers all the same (see endTrailers).
type clientWriter struct {
	http.ResponseWriter
	timeout time.Duration

	started bool          // the headers were sent (or are being sent)
	writing bool          // a message's bytes were written since the last Flush
	written atomic.Int64  // messages written whole
	flushed chan struct{} // a message was written; capacity 1
}

// start drops the Trailer header before the headers are sent.
func (w *clientWriter) start() {
	if !w.started {
		w.started = true
		w.Header().Del("Trailer")
	}
}

// statusTrailers are the trailers grpc-go's ServeHTTP sets under their
// own names, having declared them (the others it sets with
// http.TrailerPrefix).
var statusTrailers = [...]string{"Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin"}

// endTrailers, once grpc-go has written the call's status, makes what it
// set under statusTrailers' names, after the headers were sent,
// trailers: undeclared, net/http sends only those named with
// http.TrailerPrefix.
func (w *clientWriter) endTrailers() {
	if !w.started {
		return
	}
	h := w.Header()
	for _, k := range statusTrailers {
		if v, ok := h[k]; ok {
			delete(h, k)
			h[http.TrailerPrefix+k] = v
		}
	}
}

func (w *clientWriter) WriteHeader(code int) {
	w.start()
	w.ResponseWriter.WriteHeader(code)
}

// Write writes a message's bytes; the first of a message sets the write
// deadline.
func (w *clientWriter) Write(p []byte) (int, error) {
	w.start()
	if !w.writing {
		w.writing = true
		if w.timeout > 0 {
			timeouts.SetWriteDeadline(w.ResponseWriter, time.Now().Add(w.timeout))
		}
	}
	return w.ResponseWriter.Write(p)
}

// Flush flushes what was written; after a message's bytes, it counts the
// message written and lifts the deadline.
func (w *clientWriter) Flush() {
	w.start()
	http.NewResponseController(w.ResponseWriter).Flush()
	if !w.writing {
		return
	}
	w.writing = false
	if w.timeout > 0 {
		timeouts.SetWriteDeadline(w.ResponseWriter, time.Time{})
	}
	w.written.Add(1)
	select {
	case w.flushed <- struct{}{}:
	default:
	}
}

// Unwrap is the ResponseWriter w writes to, for http.ResponseController.
func (w *clientWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// waitWritten waits until n messages are written whole, or ctx ends: then
// it returns ctx's error as a status.
func (w *clientWriter) waitWritten(ctx context.Context, n int64) error {
	for w.written.Load() < n {
		select {
		case <-w.flushed:
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
	return nil
}
