package protorest

import (
	"google.golang.org/grpc"

	"github.com/protorest/protorest/internal/connpool"
)

// A BackendPool is several client connections to one gRPC backend, which
// RegisterRemote takes as its conn. A backend allows a limited number of
// streams at once on one HTTP/2 connection (its MaxConcurrentStreams; RFC
// 9113 recommends no fewer than 100), and on one connection a call past
// it waits in grpc-go until another ends. A call goes to the first
// connection with fewer than MaxStreams calls (without it, the least busy;
// unneeded ones are not opened), passing over TRANSIENT_FAILURE; with every
// connection at MaxStreams it fails at once with 503 UNAVAILABLE and
// "Retry-After: 1" (a proxied gRPC call, UNAVAILABLE). Its methods are
// Invoke, NewStream, Conns (the first is the one a call goes to when none
// is in flight) and Close.
type BackendPool = connpool.Pool

// BackendPoolSize is the size of a BackendPool.
type BackendPoolSize struct {
	Connections int // the most connections; 1 if less
	MaxStreams  int // the backend's limit of streams on a connection; 0: calls past it wait
}

// NewBackendPool returns a pool of size.Connections client connections
// to target, each made by grpc.NewClient(target, opts...).
func NewBackendPool(target string, size BackendPoolSize, opts ...grpc.DialOption) (*BackendPool, error) {
	return connpool.Dial(target, size.Connections, size.MaxStreams, opts...)
}
