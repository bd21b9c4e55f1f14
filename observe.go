package protorest

import "google.golang.org/grpc/stats"

// WithStatsHandler has h told about every in-process call as a
// grpc.Server's stats handler (grpc.StatsHandler) is: TagRPC, then
// InHeader, Begin, InPayload and OutPayload per message, OutHeader,
// OutTrailer and End, from the goroutines a grpc.Server would use. The
// context TagRPC returns is the one the interceptors and the method see,
// so otelgrpc.NewServerHandler() gives in-process calls the same spans
// and metrics as calls through a grpc.Server, children of the span of a
// tracer wrapping the gateway (otelhttp). There is no transport: a
// payload's Length and WireLength are the message's proto size (plus the
// 5-byte gRPC frame header for WireLength), and nothing is compressed.
//
// Calls to remote backends are reported by the stats handler of their
// grpc.ClientConn (grpc.WithStatsHandler), which the gateway does not
// touch.
func WithStatsHandler(h stats.Handler) Option {
	return optionFunc(func(c *config) { c.stats = h })
}
