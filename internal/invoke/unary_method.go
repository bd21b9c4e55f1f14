package invoke

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/exchange"
)

// UnaryMethod calls an in-process unary method through the unary
// interceptors, as a grpc.Server would.
type UnaryMethod struct {
	Srv         any
	Handler     grpc.MethodHandler
	Interceptor grpc.UnaryServerInterceptor // nil for none
}

var _ exchange.Invoker = (*UnaryMethod)(nil)

// Invoke calls the method with the exchange's request, which the
// generated handler decodes through x.DecodeFunc, and sends its response
// and outcome to x.Sink.
func (m *UnaryMethod) Invoke(x *exchange.Exchange) {
	ctx, cancel, stream, err := callContext(x)
	if cancel != nil {
		defer cancel()
	}
	if err != nil {
		x.Sink.Finish(err, nil, nil)
		return
	}
	method := x.Binding.FullMethod
	dec := x.DecodeFunc()
	if s := observed(x); s != nil {
		dec = s.decoding(dec)
	}
	resp, err := m.call(ctx, dec, method, x.Env.PanicHook)
	x.CallEnded()
	if err == nil && ctx.Err() != nil {
		// As on a grpc.Server: a call whose deadline passed (or whose
		// client left) fails, whatever the handler returned.
		err = status.FromContextError(ctx.Err()).Err()
	}
	header, trailer := stream.Finish()
	if err == nil {
		if msg, ok := resp.(proto.Message); ok {
			err = x.Sink.Send(msg, header)
		} else {
			err = status.Errorf(codes.Internal, "method %s returned %T, not a message", method, resp)
		}
	}
	x.Sink.Finish(err, header, trailer)
}
