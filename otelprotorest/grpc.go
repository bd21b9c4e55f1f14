package otelprotorest

import (
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"

	"github.com/protorest/protorest"
)

// GatewayOption has the gateway report its in-process calls to otelgrpc's
// server stats handler (protorest.WithStatsHandler): a span per call,
// child of NewHandler's, with an rpc.message event per message, and
// otelgrpc's rpc.server.* metrics.
func GatewayOption(opts ...Option) protorest.Option {
	return protorest.WithStatsHandler(ServerStatsHandler(opts...))
}

// ServerStatsHandler is the stats handler of GatewayOption, for a
// grpc.Server (grpc.StatsHandler) or a gateway.
func ServerStatsHandler(opts ...Option) stats.Handler {
	return messageEvents{otelgrpc.NewServerHandler(grpcOptions(newConfig(opts))...)}
}

// DialOption has a client connection to a remote backend report its calls
// to otelgrpc's client stats handler: a span per call, child of
// NewHandler's, with an rpc.message event per message, whose trace
// context it puts in the call's metadata (traceparent, replacing the one
// the gateway forwards), and otelgrpc's rpc.client.* metrics.
func DialOption(opts ...Option) grpc.DialOption {
	return grpc.WithStatsHandler(messageEvents{otelgrpc.NewClientHandler(grpcOptions(newConfig(opts))...)})
}

func grpcOptions(c *config) []otelgrpc.Option {
	return []otelgrpc.Option{
		otelgrpc.WithTracerProvider(c.tracerProvider),
		otelgrpc.WithMeterProvider(c.meterProvider),
		otelgrpc.WithPropagators(c.propagators),
	}
}
