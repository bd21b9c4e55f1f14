package render

import (
	"cmp"
	"context"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/bufpool"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/negotiate"
)

// Config is what every sink of a gateway reads; it never changes.
type Config struct {
	ErrorHandler httperr.Handler
	Headers      *headers.Policy
	StatusJSON   protojson.MarshalOptions // in-band stream errors
	// StreamError, when set, gives the status of an error that ends a
	// server stream (see StreamStatus); nil from it is the error's own.
	StreamError func(r *http.Request, err error) *status.Status
	// Hooks see each successful response before its header is written
	// (a server stream's first message); Types gives them remote
	// responses as the program's message types.
	Hooks []Hook
	Types MessageFinder
	// MaxBody limits the encoded body of a response, and each message of
	// a stream (TooLarge); 0 or less is no limit.
	MaxBody int
	// Budget counts the bytes responses hold while they are rendered and
	// written; nil counts none.
	Budget *budget.Budget
	// WriteTimeout bounds the writing of a response (of each message of
	// a stream), so that a client that stops reading gives its bytes
	// back; 0 is no limit.
	WriteTimeout time.Duration
}

// Reply is one request's answer: where it goes and how it is rendered.
type Reply struct {
	W    http.ResponseWriter
	R    *http.Request
	Plan *Response
	Out  *negotiate.Format
	Cfg  *Config
}

// Errors every sink gives alike.
var (
	// ErrSecondResponse is what a second response of a call that is not
	// server-streaming gets.
	ErrSecondResponse = status.Error(codes.Internal, "a second response to a call that is not server-streaming")
	// ErrNoResponse is the outcome of a call with one response that ended
	// with no response and no error.
	ErrNoResponse = status.Error(codes.Internal, "the method returned no response")
	// ErrFinished is what a send gets after the call has ended.
	ErrFinished = status.Error(codes.Canceled, "the stream has ended")
	// ErrClientGone is what a send gets when the client went away.
	ErrClientGone = status.Error(codes.Canceled, "the client went away")
)

// Respond writes the outcome of a call with one response: the header
// metadata, then msg or, when err is set, err.
func (a *Reply) Respond(msg proto.Message, err error, header, trailer metadata.MD) {
	headers.Write(a.W.Header(), header, a.Cfg.Headers.OutgoingHeader, "")
	if err != nil {
		a.Error(err, trailer)
		return
	}
	code, hookedType := a.Plan.Status, ""
	if len(a.Cfg.Hooks) > 0 {
		hooked, contentType, err := a.runHooks(msg, header)
		if err != nil {
			a.Error(err, trailer)
			return
		}
		code, hookedType = cmp.Or(hooked, code), contentType
	}
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	body, contentType, hold, err := a.Cfg.Render(a.R.Context(), a.Plan, buf.AvailableBuffer(), msg, a.Out)
	if err != nil {
		httperr.SetRetryAfter(a.W.Header(), err)
		a.Cfg.ErrorHandler(a.W, a.R, err)
		return
	}
	contentType = cmp.Or(hookedType, contentType)
	room := cap(body)
	limit := limitBody(a.W, a.R, a.Cfg.WriteTimeout, len(body))
	a.writeBody(code, body, contentType, trailer)
	limit.end()
	limit.release(hold)
	bufpool.KeepRoom(buf, room)
}

// Render encodes msg in format f into dst, as p plans, within the size
// limit (MaxBody), and takes its cost from the budget: what it holds
// while rendered and written. Rendering holds more than the body it
// writes: the message, and the encoder's bookkeeping. So msg first takes
// what rendering it is estimated to hold (Response.Holding), waiting for
// room if it must (until ctx ends), and once rendered keeps what its
// body costs, giving back the rest. A body that costs more than the
// estimate takes the difference if there is room at once; else it gives
// back all it holds, its bytes are dropped while it waits for its whole
// cost, and msg is rendered again (the same bytes: a method must not
// change a message it has answered). No room within the budget's wait is
// ErrBusy. Every response also costs what it holds besides its body
// (budget.Overhead). The caller gives the hold back (Release) once the body
// is written.
func (c *Config) Render(ctx context.Context, p *Response, dst []byte, msg proto.Message, f *negotiate.Format) (body []byte, contentType string, hold budget.Hold, err error) {
	b := c.Budget
	var estimate int
	if b != nil {
		estimate = p.Holding(msg, f)
	}
	if hold, err = b.Take(ctx, cost(estimate)); err != nil {
		return nil, "", hold, ErrBusy
	}
	sized := estimate > 0 && !p.Wire // Holding measured msg
	body, contentType, err = p.Append(dst, msg, f, c.MaxBody, sized)
	if err != nil {
		hold.Release()
		return nil, "", hold, err
	}
	n := cost(len(body))
	switch {
	case n <= hold.N():
		hold.Shrink(n)
		return body, contentType, hold, nil
	case hold.TryGrow(n):
		return body, contentType, hold, nil
	}
	hold.Release() // not held while it waits, nor its body
	body = nil
	if hold, err = b.Take(ctx, n); err != nil {
		return nil, "", hold, ErrBusy
	}
	if body, contentType, err = p.Append(dst, msg, f, c.MaxBody, sized); err != nil {
		hold.Release()
		return nil, "", hold, err
	}
	return body, contentType, hold, nil
}

// cost is what a response of n bytes takes from the budget.
func cost(n int) int64 { return int64(n) + budget.Overhead }

// writeBody writes a successful response's status, headers, body and
// trailers: the trailer metadata as HTTP trailers when the client asked
// for them with "TE: trailers". A 204 or 304 has no body.
func (a *Reply) writeBody(code int, body []byte, contentType string, trailer metadata.MD) {
	h := a.W.Header()
	SetContentType(h, contentType)
	bodyless := code == http.StatusNoContent || code == http.StatusNotModified
	sendTrailers := len(trailer) > 0 && headers.AcceptsTrailers(a.R)
	if sendTrailers {
		headers.DeclareTrailers(h, trailer, a.Cfg.Headers.OutgoingTrailer)
	} else if !bodyless {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	a.W.WriteHeader(code)
	if !bodyless && a.R.Method != http.MethodHead {
		a.W.Write(body)
	}
	if sendTrailers {
		headers.Write(h, trailer, a.Cfg.Headers.OutgoingTrailer, "")
	}
}

// Error sends err through the error handler, and the method's trailer
// metadata as HTTP trailers when the client accepts them, as on success.
func (a *Reply) Error(err error, trailer metadata.MD) {
	send := len(trailer) > 0 && headers.AcceptsTrailers(a.R)
	if send {
		headers.DeclareTrailers(a.W.Header(), trailer, a.Cfg.Headers.OutgoingTrailer)
	}
	httperr.SetRetryAfter(a.W.Header(), err)
	a.Cfg.ErrorHandler(a.W, a.R, err)
	if send {
		headers.Write(a.W.Header(), trailer, a.Cfg.Headers.OutgoingTrailer, "")
	}
}

// headerJSON is the Content-Type of JSON responses, shared: net/http only
// reads header values, and a capacity of 1 makes an append copy it.
var headerJSON = []string{codec.MediaJSON}

// SetContentType sets the Content-Type, without allocating for JSON.
func SetContentType(h http.Header, contentType string) {
	if contentType == codec.MediaJSON {
		h["Content-Type"] = headerJSON[:1:1]
		return
	}
	h.Set("Content-Type", contentType)
}
