package invoke

import (
	"context"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/exchange"
)

// callStats reports an in-process call to a stats.Handler in the order a
// grpc.Server does: TagRPC, InHeader, Begin, an InPayload per request
// message, OutHeader, an OutPayload per response message, OutTrailer,
// End. It is also the call's Sink, in front of the exchange's, so that
// every response and the outcome pass through it whichever invoker sends
// them. There is no transport and no compression, so a payload is
// reported as a grpc.Server reports an uncompressed one: Length and
// CompressedLength are the message's proto size, and WireLength adds the
// gRPC message header.
//
// It lives inside methodContext: observing a call costs no allocation
// beyond what the handler's own TagRPC and HandleRPC make.
type callStats struct {
	h     stats.Handler
	ctx   context.Context // what TagRPC returned
	out   exchange.Sink
	begin time.Time
	c     *methodContext

	headerSent bool // OutHeader reported; only the call's sender touches it
}

var _ exchange.Sink = (*callStats)(nil)

// start tags the call and reports its header and beginning; it returns
// the context the method runs in.
func (s *callStats) start(ctx context.Context, h stats.Handler, x *exchange.Exchange, md metadata.MD, c *methodContext) context.Context {
	s.h, s.out, s.c, s.begin = h, x.Sink, c, time.Now()
	b := x.Binding
	ctx = h.TagRPC(ctx, &stats.RPCTagInfo{FullMethodName: b.FullMethod})
	s.ctx = ctx
	h.HandleRPC(ctx, &stats.InHeader{
		FullMethod: b.FullMethod,
		Header:     md,
		RemoteAddr: c.peer.Addr,
		LocalAddr:  c.peer.LocalAddr,
	})
	h.HandleRPC(ctx, &stats.Begin{
		BeginTime:      s.begin,
		IsClientStream: b.ClientStreams,
		IsServerStream: b.ServerStreams,
	})
	return ctx
}

// messageHeaderLen is the size of the header gRPC puts before each
// message on the wire: a compressed flag and a 4-byte length.
const messageHeaderLen = 5

// received reports one request message.
func (s *callStats) received(msg proto.Message) {
	n := proto.Size(msg)
	s.h.HandleRPC(s.ctx, &stats.InPayload{Payload: msg, Length: n, CompressedLength: n, WireLength: n + messageHeaderLen, RecvTime: time.Now()})
}

// decoding wraps a unary method's decode function to report the request
// message it fills.
func (s *callStats) decoding(dec func(any) error) func(any) error {
	return func(v any) error {
		if err := dec(v); err != nil {
			return err
		}
		if msg, ok := v.(proto.Message); ok {
			s.received(msg)
		}
		return nil
	}
}

// sendHeader reports the header once, when it goes out.
func (s *callStats) sendHeader(md metadata.MD) {
	if s.headerSent {
		return
	}
	s.headerSent = true
	s.h.HandleRPC(s.ctx, &stats.OutHeader{
		FullMethod: s.c.stream.Method(),
		Header:     md,
		RemoteAddr: s.c.peer.Addr,
		LocalAddr:  s.c.peer.LocalAddr,
	})
}

func (s *callStats) SendHeader(md metadata.MD) error {
	err := s.out.SendHeader(md)
	if err == nil {
		s.sendHeader(md)
	}
	return err
}

func (s *callStats) Send(msg proto.Message, header metadata.MD) error {
	s.sendHeader(header)
	if err := s.out.Send(msg, header); err != nil {
		return err
	}
	n := proto.Size(msg)
	s.h.HandleRPC(s.ctx, &stats.OutPayload{Payload: msg, Length: n, CompressedLength: n, WireLength: n + messageHeaderLen, SentTime: time.Now()})
	return nil
}

func (s *callStats) Finish(err error, header, trailer metadata.MD) {
	s.sendHeader(header)
	s.h.HandleRPC(s.ctx, &stats.OutTrailer{Trailer: trailer})
	s.out.Finish(err, header, trailer)
	s.h.HandleRPC(s.ctx, &stats.End{BeginTime: s.begin, EndTime: time.Now(), Trailer: trailer, Error: err})
}
