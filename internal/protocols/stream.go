package protocols

import (
	"context"
	"errors"
	"io"
	"sync"

	"connectrpc.com/connect"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/exchange"
)

// serverStream makes a server-streaming call: its one request as a unary
// call's, its responses sent as the method sends them.
func (m *method) serverStream(ctx context.Context, req *connect.Request[inbound], ss *connect.ServerStream[outbound]) error {
	x := m.exchange(ctx)
	defer exchange.Put(x)
	x.SetInput(req.Msg.format)
	x.BindMessage(req.Msg.data)
	return m.stream(x, ss.Conn())
}

// clientStream makes a client-streaming call: its requests read from the
// stream as the method asks for them, its one response as a unary call's.
func (m *method) clientStream(ctx context.Context, cs *connect.ClientStream[inbound]) (*connect.Response[outbound], error) {
	x := m.exchange(ctx)
	defer exchange.Put(x)
	m.bindStream(x, cs.Conn())
	return m.callOne(ctx, x)
}

// bidi makes a bidirectional call: requests read from the stream,
// responses sent, each as the method reads and sends them.
func (m *method) bidi(ctx context.Context, bs *connect.BidiStream[inbound, outbound]) error {
	x := m.exchange(ctx)
	defer exchange.Put(x)
	m.bindStream(x, bs.Conn())
	return m.stream(x, bs.Conn())
}

// bindStream makes the request messages of conn x's source.
func (m *method) bindStream(x *exchange.Exchange, conn connect.StreamingHandlerConn) {
	x.SetInput(m.s.proto)
	x.BindStream(&connReader{conn: conn, x: x}, x.BodyInterrupter())
}

// stream calls the method with its responses sent on conn; the outcome
// is what connect-go ends the stream with.
func (m *method) stream(x *exchange.Exchange, conn connect.StreamingHandlerConn) error {
	out := &streamSink{conn: conn}
	x.Sink = out
	x.Invoke()
	return connectError(out.err)
}

// connReader reads a request stream's messages from connect-go
// (framing.Reader): each one's bytes, in its format.
type connReader struct {
	conn connect.StreamingHandlerConn
	x    *exchange.Exchange
	in   inbound
}

func (r *connReader) Next() ([]byte, error) {
	if err := r.conn.Receive(&r.in); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, statusOf(err)
	}
	r.x.Input.Format = r.in.format
	return r.in.data, nil
}

// streamSink is the exchange.Sink of a call whose responses go out as the
// method sends them: the header metadata with the first, the trailer
// metadata at the end.
type streamSink struct {
	conn connect.StreamingHandlerConn

	mu         sync.Mutex
	headerSent bool
	err        error
}

func (s *streamSink) SendHeader(header metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header(header)
	return nil
}

func (s *streamSink) Send(msg proto.Message, header metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header(header)
	return statusOf(s.conn.Send(&outbound{msg: msg}))
}

func (s *streamSink) Finish(err error, header, trailer metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header(header)
	writeMetadata(s.conn.ResponseTrailer(), trailer)
	s.err = err
}

// header writes the header metadata, once.
func (s *streamSink) header(md metadata.MD) {
	if s.headerSent || md == nil {
		return
	}
	s.headerSent = true
	writeMetadata(s.conn.ResponseHeader(), md)
}
