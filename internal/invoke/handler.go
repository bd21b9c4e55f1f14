package invoke

import (
	"context"
	"net/http"
	"runtime/debug"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ChainUnary combines interceptors into one, the first outermost, exactly
// as grpc.ChainUnaryInterceptor does on a grpc.Server. It returns nil for
// no interceptors.
func ChainUnary(interceptors []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	switch len(interceptors) {
	case 0:
		return nil
	case 1:
		return interceptors[0]
	}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		return interceptors[0](ctx, req, info, chained(interceptors, 0, info, handler))
	}
}

func chained(interceptors []grpc.UnaryServerInterceptor, i int, info *grpc.UnaryServerInfo, final grpc.UnaryHandler) grpc.UnaryHandler {
	if i == len(interceptors)-1 {
		return final
	}
	return func(ctx context.Context, req any) (any, error) {
		return interceptors[i+1](ctx, req, info, chained(interceptors, i+1, info, final))
	}
}

// PanicHook is told about a recovered panic, with its stack.
type PanicHook func(method string, value any, stack []byte)

// Unary calls a generated method handler with dec filling the request
// message. A panic that escapes the handler and the interceptors becomes
// an INTERNAL status (and is reported to hook), except
// http.ErrAbortHandler, which keeps unwinding as net/http expects.
func Unary(ctx context.Context, h grpc.MethodHandler, srv any, dec func(any) error, interceptor grpc.UnaryServerInterceptor, method string, hook PanicHook) (resp any, err error) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			if hook != nil {
				hook(method, v, debug.Stack())
			}
			resp, err = nil, status.Error(codes.Internal, "internal error")
		}
	}()
	return h(srv, ctx, dec, interceptor)
}

// ChainStream combines stream interceptors into one, the first outermost,
// exactly as grpc.ChainStreamInterceptor does. It returns nil for none.
func ChainStream(interceptors []grpc.StreamServerInterceptor) grpc.StreamServerInterceptor {
	switch len(interceptors) {
	case 0:
		return nil
	case 1:
		return interceptors[0]
	}
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return interceptors[0](srv, ss, info, chainedStream(interceptors, 0, info, handler))
	}
}

func chainedStream(interceptors []grpc.StreamServerInterceptor, i int, info *grpc.StreamServerInfo, final grpc.StreamHandler) grpc.StreamHandler {
	if i == len(interceptors)-1 {
		return final
	}
	return func(srv any, ss grpc.ServerStream) error {
		return interceptors[i+1](srv, ss, info, chainedStream(interceptors, i+1, info, final))
	}
}

// Streaming calls a generated stream handler through interceptor (which
// may be nil), recovering panics as Unary does.
func Streaming(srv any, ss grpc.ServerStream, h grpc.StreamHandler, interceptor grpc.StreamServerInterceptor, info *grpc.StreamServerInfo, hook PanicHook) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			if hook != nil {
				hook(info.FullMethod, v, debug.Stack())
			}
			err = status.Error(codes.Internal, "internal error")
		}
	}()
	if interceptor == nil {
		return h(srv, ss)
	}
	return interceptor(srv, ss, info, h)
}
