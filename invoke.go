package protorest

import (
	"google.golang.org/grpc"

	"github.com/protorest/protorest/internal/config"
)

// WithUnaryInterceptors adds unary server interceptors. They run around
// every method the gateway invokes in-process, the first outermost, as
// grpc.ChainUnaryInterceptor runs them on a grpc.Server; info.FullMethod
// is "/pkg.Service/Method". By default there are none.
func WithUnaryInterceptors(interceptors ...grpc.UnaryServerInterceptor) Option {
	return optionFunc(func(c *config.Config) { c.Invocation.Unary = append(c.Invocation.Unary, interceptors...) })
}

// WithStreamInterceptors adds stream server interceptors. They run around
// every streaming method the gateway invokes in-process, the first
// outermost, as grpc.ChainStreamInterceptor runs them on a grpc.Server.
// By default there are none.
func WithStreamInterceptors(interceptors ...grpc.StreamServerInterceptor) Option {
	return optionFunc(func(c *config.Config) { c.Invocation.Stream = append(c.Invocation.Stream, interceptors...) })
}
