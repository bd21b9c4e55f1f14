package invoke

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/timeouts"
)

// StreamMethod calls an in-process streaming method through the stream
// interceptors, as a grpc.Server would: its grpc.ServerStream reads the
// request messages from the exchange's Source and sends each response to
// its Sink.
type StreamMethod struct {
	Srv         any
	Handler     grpc.StreamHandler
	Interceptor grpc.StreamServerInterceptor // nil for none
	Info        grpc.StreamServerInfo        // built at registration, never written
}

var _ exchange.Invoker = (*StreamMethod)(nil)

func (m *StreamMethod) Invoke(x *exchange.Exchange) {
	ctx, cancel, ts, err := callContext(x)
	if cancel != nil {
		defer cancel()
	}
	out := x.Sink
	if err != nil {
		out.Finish(err, nil, nil)
		return
	}
	ctx, cancelCall := context.WithCancelCause(ctx)
	defer cancelCall(nil)
	idle := x.WatchIdle(cancelCall)
	if bs, ok := x.Source.(*exchange.BodySource); ok {
		// Read ahead, so that a client that goes away cancels the call
		// even while the handler is not reading.
		pf := startPrefetch(ctx, bs.Reader, func() { cancelCall(nil) })
		bs.Reader = pf
		defer bs.Stop(pf.stop)
	}
	ss := &serverStream{ctx: ctx, ts: ts, out: out, src: x.Source, stats: observed(x), idle: idle}
	err = m.call(ss, x.Env.PanicHook)
	if err == nil && ctx.Err() != nil {
		err = status.FromContextError(ctx.Err()).Err()
	}
	err = x.Outcome(err)
	header, trailer := ts.Finish()
	out.Finish(err, header, trailer)
}

// serverStream is the grpc.ServerStream of an in-process call over HTTP.
// Header and trailer metadata go through the same transport stream as
// grpc.SetHeader and grpc.SetTrailer on the context.
type serverStream struct {
	ctx   context.Context
	ts    *Stream
	out   exchange.Sink
	src   exchange.Source
	stats *callStats // nil without a stats handler
	idle  *timeouts.IdleWatch
}

var _ grpc.ServerStream = (*serverStream)(nil)

func (s *serverStream) Context() context.Context       { return s.ctx }
func (s *serverStream) SetHeader(md metadata.MD) error { return s.ts.SetHeader(md) }
func (s *serverStream) SetTrailer(md metadata.MD)      { s.ts.SetTrailer(md) }

func (s *serverStream) SendHeader(md metadata.MD) error {
	if err := s.ts.SendHeader(md); err != nil {
		return err
	}
	return s.out.SendHeader(s.ts.Header())
}

// SendMsg writes one response; the first also sends the header.
func (s *serverStream) SendMsg(m any) error {
	msg, ok := m.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "SendMsg of %T, not a message", m)
	}
	s.ts.SendHeader(nil) // fails once sent, which is fine
	if err := s.out.Send(msg, s.ts.Header()); err != nil {
		return err
	}
	s.idle.Touch()
	return nil
}

// RecvMsg reads the next request message; io.EOF after the last.
func (s *serverStream) RecvMsg(m any) error {
	msg, ok := m.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "RecvMsg into %T, not a message", m)
	}
	err := s.src.Next(msg)
	if err == nil && s.stats != nil {
		s.stats.received(msg)
	}
	return err
}
