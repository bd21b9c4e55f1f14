package protorest

import "github.com/protorest/protorest/internal/config"

// ConcurrencyLimits are the most calls of each class a gateway runs at
// once (see WithConcurrencyLimits); 0 or less is no limit.
type ConcurrencyLimits struct {
	Unary         int // unary calls
	ServerStreams int // server streams over HTTP
	ClientStreams int // client streams over HTTP
	BidiStreams   int // bidirectional streams over HTTP
	WebSockets    int // WebSockets, whatever their method streams
	// GRPCPassThrough: gRPC calls on Gateway.GRPCPassThrough, of any kind
	GRPCPassThrough int
}

// WithConcurrencyLimits caps the calls of each class in flight at once,
// in-process and remote alike, so that long streams cannot take every
// stream to a backend that unary calls need (an HTTP/2 connection
// carries a limited number: see NewBackendPool). A call over its class's
// cap gets 503 UNAVAILABLE with "Retry-After: 1" at once, and its method
// is not called. The default is no limit; protorest serve derives them
// from its upstream connections (docs/reference.md, Limits).
func WithConcurrencyLimits(l ConcurrencyLimits) Option {
	return optionFunc(func(c *config.Config) { c.Limits.Concurrency = config.Concurrency(l) })
}
