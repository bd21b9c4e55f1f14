package protorest

import (
	"context"
	"io"
	"net/http"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/invoke"
)

// streamLocal calls an in-process streaming method through the stream
// interceptors, as a grpc.Server would: its grpc.ServerStream reads the
// request messages from src and writes each response to out.
func (g *Gateway) streamLocal(r *http.Request, b *binding, src messageSource, out *streamWriter) {
	ctx, cancel, ts, err := g.callContext(r, b.fullMethod)
	if cancel != nil {
		defer cancel()
	}
	if err != nil {
		out.finish(err, nil, nil)
		return
	}
	ss := &localStream{ctx: ctx, ts: ts, out: out, src: src}
	info := &grpc.StreamServerInfo{FullMethod: b.fullMethod, IsClientStream: b.clientStreams, IsServerStream: b.serverStreams}
	err = invoke.Streaming(b.srv, ss, b.streamHandler, g.streamInterceptor, info, g.cfg.panicHook)
	if err == nil && ctx.Err() != nil {
		err = status.FromContextError(ctx.Err()).Err()
	}
	if bad := ss.sourceError(); bad != nil {
		// The client sent what could not be read: that, not what the
		// handler made of it, is the answer.
		err = bad
	}
	header, trailer := ts.Finish()
	out.finish(err, header, trailer)
}

// localStream is the grpc.ServerStream of an in-process call over HTTP.
// Header and trailer metadata go through the same transport stream as
// grpc.SetHeader and grpc.SetTrailer on the context.
type localStream struct {
	ctx context.Context
	ts  *invoke.Stream
	out *streamWriter
	src messageSource

	recvErr error // the last RecvMsg error; RecvMsg is not called concurrently
}

var _ grpc.ServerStream = (*localStream)(nil)

func (s *localStream) Context() context.Context       { return s.ctx }
func (s *localStream) SetHeader(md metadata.MD) error { return s.ts.SetHeader(md) }
func (s *localStream) SetTrailer(md metadata.MD)      { s.ts.SetTrailer(md) }

func (s *localStream) SendHeader(md metadata.MD) error {
	if err := s.ts.SendHeader(md); err != nil {
		return err
	}
	return s.out.sendHeader(s.ts.Header())
}

// SendMsg writes one response; the first also sends the header.
func (s *localStream) SendMsg(m any) error {
	msg, ok := m.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "SendMsg of %T, not a message", m)
	}
	s.ts.SendHeader(nil) // fails once sent, which is fine
	return s.out.send(msg, s.ts.Header())
}

// RecvMsg reads the next request message; io.EOF after the last.
func (s *localStream) RecvMsg(m any) error {
	msg, ok := m.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "RecvMsg into %T, not a message", m)
	}
	err := s.src.next(msg)
	s.recvErr = err
	return err
}

// sourceError returns why the request stream could not be read, if it
// could not.
func (s *localStream) sourceError() error {
	if s.recvErr == nil || s.recvErr == io.EOF {
		return nil
	}
	if st, ok := status.FromError(s.recvErr); ok && st.Code() == codes.Canceled {
		return nil
	}
	return s.recvErr
}
