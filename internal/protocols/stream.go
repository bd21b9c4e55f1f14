package protocols

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/render"
)

// serverStream makes a server-streaming call: its one request as a unary
// call's, its responses sent as the method sends them.
func (m *method) serverStream(ctx context.Context, req *connect.Request[inbound], ss *connect.ServerStream[outbound]) error {
	defer req.Msg.release()
	x, c := m.exchange(ctx)
	defer exchange.Put(x)
	setInput(x, c.format)
	x.BindMessage(req.Msg.data)
	return m.stream(ctx, x, c, ss.Conn())
}

// clientStream makes a client-streaming call: its requests read from the
// stream as the method asks for them, its one response as a unary call's.
func (m *method) clientStream(ctx context.Context, cs *connect.ClientStream[inbound]) (*connect.Response[outbound], error) {
	x, c := m.exchange(ctx)
	defer exchange.Put(x)
	m.bindStream(x, c, cs.Conn())
	return m.callOne(ctx, x, c)
}

// bidi makes a bidirectional call: requests read from the stream,
// responses sent, each as the method reads and sends them.
func (m *method) bidi(ctx context.Context, bs *connect.BidiStream[inbound, outbound]) error {
	x, c := m.exchange(ctx)
	defer exchange.Put(x)
	m.bindStream(x, c, bs.Conn())
	return m.stream(ctx, x, c, bs.Conn())
}

// bindStream makes the request messages of conn x's source.
func (m *method) bindStream(x *exchange.Exchange, c *call, conn connect.StreamingHandlerConn) {
	setInput(x, c.format)
	x.BindStream(&connReader{conn: conn, follower: c.follower}, bodyInterrupter{http.NewResponseController(c.w)})
}

// stream calls the method with its responses sent on conn; the outcome
// is what connect-go ends the stream with.
func (m *method) stream(ctx context.Context, x *exchange.Exchange, c *call, conn connect.StreamingHandlerConn) error {
	out := &streamSink{conn: conn, ctx: ctx, w: c.w, cfg: &m.s.env.Render, plan: m.b.Response, format: c.format}
	out.direct.w = c.w
	x.Sink = out
	x.Invoke()
	return connectError(out.err)
}

// bodyInterrupter cuts a read of the request body in progress short,
// with a read deadline in the past (exchange.ReadInterrupter), when the
// call ends while its read-ahead reads. It does not finish with the body
// as REST's does (reading the rest, or hijacking the connection to close
// it): connect-go writes the call's end after the method returns, then
// closes the body itself.
type bodyInterrupter struct{ rc *http.ResponseController }

func (b bodyInterrupter) InterruptRead() (restore func()) {
	b.rc.SetReadDeadline(time.Now())
	return func() { b.rc.SetReadDeadline(time.Time{}) }
}

// connReader reads a request stream's messages from connect-go
// (framing.Reader): each one's bytes, in the call's format (bindStream).
// It may run on a read-ahead's goroutine: it touches nothing the call
// reads.
type connReader struct {
	conn     connect.StreamingHandlerConn
	follower *framing.EnvelopeFollower // told of each message taken; nil for none
	in       inbound
}

func (r *connReader) Next() ([]byte, error) {
	if err := r.conn.Receive(&r.in); err != nil {
		r.in.release() // the last message was taken before this read
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, statusOf(err)
	}
	if r.follower != nil {
		r.follower.Consumed()
	}
	return r.in.data, nil
}

// streamSink is the exchange.Sink of a call whose responses go out as the
// method sends them: the header metadata with the first, the trailer
// metadata at the end.
// Each message is rendered as a REST stream's is (render.Config.Render:
// within the response limit, its cost taken from the budget while it is
// written, its writing timed); one that fails to render ends the stream
// with that error, whatever the method makes of it.
type streamSink struct {
	conn   connect.StreamingHandlerConn
	ctx    context.Context
	w      http.ResponseWriter
	cfg    *render.Config
	plan   *render.Response
	format *negotiate.Format

	mu         sync.Mutex
	headerSent bool  // the header metadata is written
	lost       error // a message that could not be rendered, or sent
	err        error
	out        outbound  // the message being sent
	buf        []byte    // the last message's encoding, kept for the next
	direct     envelopes // writes the messages after the first
}

// maxKeptBuffer is the largest encoding buffer a stream keeps from one
// message to the next: a larger one goes, so that a stream that sent
// one large message does not hold its memory, uncounted by the response
// budget, while it is idle.
const maxKeptBuffer = 64 << 10

// SendHeader sends the header now, before any message (grpc.SendHeader),
// as connect-go has no call for it: the header metadata and connect-go's
// own headers flushed. connect-go's header map then holds at least the
// Content-Type, so that a gRPC-Web call ended with no message puts its
// status in a trailer frame, not in the headers already sent.
func (s *streamSink) SendHeader(header metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.headerSent || s.lost != nil {
		return nil // a message or the end took the header
	}
	s.header(header)
	h, own := s.w.Header(), s.conn.ResponseHeader()
	if ct := h.Get("Content-Type"); ct != "" && own.Get("Content-Type") == "" {
		own.Set("Content-Type", ct)
	}
	for k, vs := range own {
		h[k] = vs
	}
	if err := http.NewResponseController(s.w).Flush(); err != nil {
		s.lost = statusOf(err)
		return s.lost
	}
	return nil
}

// Send renders msg, in the buffer the last message was encoded in when
// the plan builds its bodies (render.Response.Builds), and sends it:
// through connect-go, which copies it into its envelope before Send
// returns, or, after the first, in an envelope of its own (envelopes).
func (s *streamSink) Send(msg proto.Message, header metadata.MD) error {
	s.mu.Lock()
	buf := s.buf
	s.buf = nil
	s.mu.Unlock()
	body, _, cost, err := s.cfg.Render(s.ctx, s.plan, buf, msg, s.format)
	defer cost.Release()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost != nil {
		return s.lost
	}
	if err != nil {
		s.lost = err
		return err
	}
	s.header(header)
	defer render.LimitWrite(s.w, s.cfg.WriteTimeout).Lift()
	if s.direct.on {
		err = s.direct.write(s.ctx, body)
	} else {
		s.out.body = body
		err = statusOf(s.conn.Send(&s.out))
		s.out.body = nil
		if err == nil && !s.direct.decided {
			s.direct.decide(s.w.Header())
		}
	}
	if err != nil {
		s.lost = err
		return s.lost
	}
	if s.plan.Builds() && cap(body) <= maxKeptBuffer {
		s.buf = body[:0]
	}
	return nil
}

func (s *streamSink) Finish(err error, header, trailer metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header(header)
	writeMetadata(s.conn.ResponseTrailer(), trailer)
	s.err = err
	if s.lost != nil && status.Code(s.lost) != codes.Canceled {
		s.err = s.lost
	}
}

// header writes the header metadata, once.
func (s *streamSink) header(md metadata.MD) {
	if s.headerSent || md == nil {
		return
	}
	s.headerSent = true
	writeMetadata(s.conn.ResponseHeader(), md)
}
