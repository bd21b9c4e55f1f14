package protorest

import (
	"context"

	"google.golang.org/grpc"

	"github.com/protorest/protorest/internal/connpool"
)

// A BackendPool is several client connections to one gRPC backend, which
// RegisterRemote takes as its conn. A backend allows a limited number of
// streams at once on one HTTP/2 connection (its MaxConcurrentStreams; RFC
// 9113 recommends no fewer than 100), and on one connection a call past
// it waits in grpc-go until another ends. A pool's call goes to the
// connection with the fewest calls in flight (connections no call needs
// are not opened), passing over one in TRANSIENT_FAILURE; with every
// connection at MaxStreams it fails at once with 503 UNAVAILABLE and
// "Retry-After: 1" (a proxied gRPC call, UNAVAILABLE).
type BackendPool struct{ p *connpool.Pool }

// BackendPoolSize is the size of a BackendPool.
type BackendPoolSize struct {
	Connections int // the most connections; 1 if less
	MaxStreams  int // the backend's limit of streams on a connection; 0: calls past it wait
}

// NewBackendPool returns a pool of size.Connections client connections
// to target, each made by grpc.NewClient(target, opts...).
func NewBackendPool(target string, size BackendPoolSize, opts ...grpc.DialOption) (*BackendPool, error) {
	conns := make([]*grpc.ClientConn, 0, max(size.Connections, 1))
	for range cap(conns) {
		cc, err := grpc.NewClient(target, opts...)
		if err != nil {
			for _, c := range conns {
				c.Close()
			}
			return nil, err
		}
		conns = append(conns, cc)
	}
	return &BackendPool{connpool.New(conns, size.MaxStreams)}, nil
}

// Invoke makes a unary call on one of the pool's connections.
func (p *BackendPool) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	return p.p.Invoke(ctx, method, args, reply, opts...)
}

// NewStream opens a stream on one of the pool's connections. It counts
// as in flight until RecvMsg returns an error (or a method's one
// response) or ctx is done.
func (p *BackendPool) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	return p.p.NewStream(ctx, desc, method, opts...)
}

// Conns returns the pool's connections: the first is the one a call goes
// to when none is in flight.
func (p *BackendPool) Conns() []*grpc.ClientConn { return p.p.Conns() }

// Close closes the pool's connections.
func (p *BackendPool) Close() error { return p.p.Close() }
