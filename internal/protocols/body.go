package protocols

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"connectrpc.com/connect"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/timeouts"
)

// limitBody puts c's request body behind the gateway's limits, before
// connect-go reads it: the read idle timeout and minimum rate
// (timeouts.ReadClock: a request of one message timed whole, a stream's
// messages one at a time); and, for the enveloped framings (all but a
// Connect unary call), the size of each message at its prefix, before
// any of it is read (framing.EnvelopeFollower, which also stops reading
// ahead of a method that stops taking messages). connect-go checks each
// message's decompressed size itself (WithReadMaxBytes). Their failures
// reach connect-go as its errors, so that it answers them in the
// protocol's terms. (What an HTTP/1.x answer that starts before the body
// was read to its end does with the rest is h1framing.Unread's.)
func (s *Server) limitBody(c *call, clientStreams bool) {
	r := c.r
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	var body io.Reader = r.Body
	if limit := s.env.MaxBody; limit > 0 && r.ContentLength > limit && !enveloped(r) {
		body = failedBody{httperr.TooLarge(limit)}
	}
	if d := s.env.ReadIdleTimeout; d > 0 {
		c.clock = clocks.Get().(*timeouts.ReadClock)
		c.clock.Reset(body, c.w, d)
		body = c.clock
	}
	if enveloped(r) {
		c.follower = &c.envelopes
		c.follower.Init(body, s.env.MaxMessage(), clientStreams)
		if !clientStreams {
			// One message is taken as it is read (connect-go reads it
			// whole before the call): the reads after it look for the
			// end of the body.
			c.follower.Consumed()
		}
		body = c.follower
	}
	lb := &c.body
	lb.src, lb.closer = body, r.Body
	r.Body = lb
}

// clocks keeps the read clocks of calls that have ended, each with its
// timer (call.end gives them back).
var clocks = sync.Pool{New: func() any { return new(timeouts.ReadClock) }}

// enveloped reports whether r's messages come in 5-byte envelopes: every
// protocol's but a Connect unary call's.
func enveloped(r *http.Request) bool {
	mt := mediaType(r.Header.Get("Content-Type"))
	return !(mt == "application/json" || mt == "application/proto")
}

// limitedBody is a request body read through its limits, whose failures
// it gives as connect-go errors.
type limitedBody struct {
	src    io.Reader
	closer io.Closer
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.src.Read(p)
	if err != nil && err != io.EOF {
		err = asConnectError(err)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.closer.Close() }

// failedBody is a body that is refused before it is read.
type failedBody struct{ err error }

func (b failedBody) Read([]byte) (int, error) { return 0, b.err }

// asConnectError is a failure to read a request body as connect-go's
// error: a message over the limit RESOURCE_EXHAUSTED, a read that timed
// out DEADLINE_EXCEEDED (the gateway's status), others as they are.
func asConnectError(err error) error {
	var tl *framing.TooLargeError
	if errors.As(err, &tl) {
		return connect.NewError(connect.CodeResourceExhausted, errors.New(tl.Error()))
	}
	var own interface{ GRPCStatus() *status.Status }
	if errors.As(err, &own) {
		st := own.GRPCStatus()
		return connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	}
	return err
}

// formatOf returns the format of r's messages, both ways: JSON when its
// codec is ("json" in the Content-Type, or encoding=json on a Connect
// GET), else binary.
func (s *Server) formatOf(r *http.Request) *negotiate.Format {
	if r.Method == http.MethodGet {
		if r.URL.Query().Get("encoding") == "json" {
			return s.json
		}
		return s.proto
	}
	if strings.HasSuffix(mediaType(r.Header.Get("Content-Type")), "json") {
		return s.json
	}
	return s.proto
}
