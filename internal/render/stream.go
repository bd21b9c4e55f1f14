package render

import (
	"cmp"
	"net/http"
	"strconv"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/negotiate"
)

// Stream is the sink of a server stream over HTTP: each response is
// written in the framing the client asked for and flushed. It is safe
// for concurrent use: a handler may send from another goroutine, and may
// leave one behind.
type Stream struct {
	Reply
	rc    *http.ResponseController
	kind  framing.Kind
	media string // the response's content type ("" for HttpBody: the first message's)

	mu       sync.Mutex
	started  bool
	finished bool
	lost     error // why a message could not be sent: the stream ends with it
	seq      int
	buf      []byte
}

// NewStream returns the sink of a server stream answered by a, framed as
// fr; a stream of google.api.HttpBody is its data, raw, whatever fr says.
func NewStream(a Reply, fr *negotiate.Framing) *Stream {
	s := &Stream{Reply: a, rc: http.NewResponseController(a.W)}
	if a.Plan.Raw != nil {
		s.kind = framing.Raw
		return s
	}
	s.kind, s.Out, s.media = fr.Kind, fr.Format, fr.Media
	return s
}

// start writes the status line and headers, with the header metadata,
// once the hooks have seen first, the first message (nil when the stream
// starts without one). A hook's error is answered as an ordinary error
// response, which ends the stream, and returned. The caller holds mu.
func (s *Stream) start(header metadata.MD, contentType string, first proto.Message) error {
	if s.started {
		return nil
	}
	s.started = true
	h := s.W.Header()
	headers.Write(h, header, s.Cfg.Headers.OutgoingHeader, "")
	code := s.Plan.Status
	if len(s.Cfg.Hooks) > 0 {
		// A stream's Content-Type stays its framing's, as in grpc-gateway.
		hooked, _, err := s.runHooks(first, header)
		if err != nil {
			s.finished = true
			s.Error(err, nil)
			return err
		}
		code = cmp.Or(hooked, code)
	}
	SetContentType(h, contentType)
	h.Del("Content-Length")
	if s.kind == framing.SSE {
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no") // nginx would buffer the events
	}
	s.W.WriteHeader(code)
	s.rc.Flush()
	return nil
}

// SendHeader starts the response before any message, as grpc.SendHeader
// does: an EventSource sees the stream open.
func (s *Stream) SendHeader(header metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return ErrFinished
	}
	if s.kind != framing.Raw { // a raw stream's type comes with its first message
		return s.start(header, s.media, nil)
	}
	return nil
}

// Send writes one message. An error means the client is gone, or the
// message could not be sent (too large, no room in the budget): then the
// stream sends nothing more, and ends with that error, whatever the
// method makes of it, so that no client sees a stream with a message
// missing from it.
func (s *Stream) Send(msg proto.Message, header metadata.MD) error {
	body, contentType, hold, err := s.Cfg.Render(s.R.Context(), s.Plan, nil, msg, s.Out)
	defer hold.Release()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.finished:
		return ErrFinished
	case s.lost != nil:
		return s.lost
	case err != nil:
		s.lost = err
		return err
	}
	if s.media != "" {
		contentType = s.media
	}
	if err := s.start(header, contentType, msg); err != nil {
		return err
	}
	s.seq++
	s.buf = framing.AppendMessage(s.buf[:0], s.kind, s.seq, body)
	limit := limitWrite(s.W, s.R, s.Cfg.WriteTimeout, true)
	_, werr := s.W.Write(s.buf)
	ferr := limit.end()
	if cap(s.buf) > maxKeptFrame {
		s.buf = nil // a stream does not keep its largest message's room
	}
	if werr != nil || ferr != nil {
		return ErrClientGone
	}
	return nil
}

// maxKeptFrame is the largest framing buffer a stream keeps for its next
// message.
const maxKeptFrame = 64 << 10

// Finish ends the response. An error before the response started is an
// ordinary error response (with the StreamError handler's status); after,
// it goes in-band (envelope, SSE). The outcome, OK included, goes in
// Grpc-Status trailers when the client accepts trailers, and SSE ends
// with an "end" event. A framing with no in-band error, to a client that
// takes no trailers, is cut short so that the client cannot mistake it
// for a whole stream.
func (s *Stream) Finish(err error, header, trailer metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return
	}
	s.finished = true
	if err == nil {
		err = s.lost
	}
	if !s.started && err != nil {
		s.Respond(nil, s.Cfg.earlyStreamError(s.R, err), header, trailer)
		return
	}
	contentType := s.media
	if contentType == "" {
		contentType = codec.MediaOctetStream // an empty HttpBody stream
	}
	if s.start(header, contentType, nil) != nil {
		return
	}
	defer limitWrite(s.W, s.R, s.Cfg.WriteTimeout, false).end()
	trailers := headers.AcceptsTrailers(s.R)
	st := status.New(codes.OK, "")
	if err != nil {
		st = s.Cfg.StreamStatus(s.R, err)
	}
	if err == nil {
		var end bool
		if s.buf, end = framing.AppendEnd(s.buf[:0], s.kind, httperr.AppendJSON(nil, st, s.Cfg.StatusJSON)); end {
			s.W.Write(s.buf)
		}
	} else {
		var inBand bool
		s.buf, inBand = framing.AppendError(s.buf[:0], s.kind, httperr.AppendJSON(nil, st, s.Cfg.StatusJSON))
		if inBand {
			s.W.Write(s.buf)
		}
		if !trailers && !inBand {
			s.rc.Flush()
			panic(http.ErrAbortHandler)
		}
	}
	if trailers {
		h := s.W.Header()
		h.Set(http.TrailerPrefix+"Grpc-Status", strconv.Itoa(int(st.Code())))
		h.Set(http.TrailerPrefix+"Grpc-Message", httperr.GRPCMessage(st.Message()))
		headers.Write(h, trailer, s.Cfg.Headers.OutgoingTrailer, http.TrailerPrefix)
	}
}

// StreamStatus is the status of err, an error that ends a server stream
// after its response started: the StreamError handler's, except for the
// gateway's own errors with an HTTP status of their own (a limit).
func (c *Config) StreamStatus(r *http.Request, err error) *status.Status {
	if c.StreamError != nil && !httperr.HasOwnStatus(err) {
		if st := c.StreamError(r, err); st != nil {
			return st
		}
	}
	return httperr.ToStatus(err)
}

// earlyStreamError is what answers err, an error that ends a server
// stream before its response started, as an ordinary error response:
// an error of StreamStatus, but the gateway's own errors as they are, to
// keep their HTTP status.
func (c *Config) earlyStreamError(r *http.Request, err error) error {
	if c.StreamError == nil || httperr.HasOwnStatus(err) {
		return err
	}
	return c.StreamStatus(r, err).Err()
}
