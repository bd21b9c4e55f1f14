package bench

import (
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// GRPCDirect is grpc-go's generated client calling lib on a grpc.Server
// over loopback TCP: the cost of the call with no HTTP/JSON in front.
type GRPCDirect struct {
	Client  libraryv1.LibraryClient
	backend *backend
}

// NewGRPCDirect starts the server and connects the client.
func NewGRPCDirect(lib libraryv1.LibraryServer) (*GRPCDirect, error) {
	b, err := startBackend(lib, TCP)
	if err != nil {
		return nil, err
	}
	return &GRPCDirect{Client: libraryv1.NewLibraryClient(b.Conn), backend: b}, nil
}

// Name names the peer in benchmark and test names.
func (*GRPCDirect) Name() string { return GRPCDirectName }

// Close closes the connection and stops the server.
func (g *GRPCDirect) Close() error { return g.backend.Close() }
