package invoke

import (
	"context"
	"errors"
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

// call calls the generated method handler with dec filling the request
// message. A panic that escapes the handler and the interceptors becomes
// an INTERNAL status (and is reported to hook), except
// http.ErrAbortHandler, which keeps unwinding as net/http expects.
func (m *UnaryMethod) call(ctx context.Context, dec func(any) error, method string, hook PanicHook) (resp any, err error) {
	defer recoverCall(method, hook, &err)
	resp, err = m.Handler(m.Srv, ctx, dec, m.Interceptor)
	return resp, serverError(err)
}

// serverError is a method's error as a grpc.Server answers it: a
// context's error (ctx.Err() returned as it is) as its status,
// DEADLINE_EXCEEDED or CANCELED; any other as it is.
func serverError(err error) error {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return err
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.FromContextError(err).Err()
}

// recoverCall, deferred, turns a panic of a call into an INTERNAL status
// in *err, reported to hook (which may be nil); http.ErrAbortHandler
// keeps unwinding.
func recoverCall(method string, hook PanicHook, err *error) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	if hook != nil {
		hook(method, v, debug.Stack())
	}
	*err = status.Error(codes.Internal, "internal error")
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

// call calls the generated stream handler through the interceptor,
// recovering panics as UnaryMethod.call does.
func (m *StreamMethod) call(ss grpc.ServerStream, hook PanicHook) (err error) {
	defer recoverCall(m.Info.FullMethod, hook, &err)
	if m.Interceptor == nil {
		return serverError(m.Handler(m.Srv, ss))
	}
	return serverError(m.Interceptor(m.Srv, ss, &m.Info, m.Handler))
}
