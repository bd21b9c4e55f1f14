package bench

import (
	"context"
	"errors"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// grpc-gateway peers. Both use runtime.NewServeMux's defaults, whose
// marshaler is protojson with EmitUnpopulated (and DiscardUnknown to read
// bodies); see TestMarshalerDefaultsAgree.

// NewGRPCGatewayInProcess is grpc-gateway's generated handlers calling lib
// directly (RegisterLibraryHandlerServer), called in-process.
func NewGRPCGatewayInProcess(ctx context.Context, lib libraryv1.LibraryServer) (HTTPPeer, error) {
	mux := runtime.NewServeMux()
	if err := libraryv1.RegisterLibraryHandlerServer(ctx, mux, lib); err != nil {
		return nil, err
	}
	return &inProcessPeer{name: GRPCGatewayInProcessName, handler: mux}, nil
}

// NewGRPCGatewayRemote is grpc-gateway's generated handlers calling lib on
// a grpc.Server over network (RegisterLibraryHandler with a client
// connection), served by a real HTTP server.
func NewGRPCGatewayRemote(ctx context.Context, lib libraryv1.LibraryServer, network Network) (HTTPPeer, error) {
	b, err := startBackend(lib, network)
	if err != nil {
		return nil, err
	}
	mux := runtime.NewServeMux()
	if err := libraryv1.RegisterLibraryHandler(ctx, mux, b.Conn); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return serveRemote(remoteName(network, GRPCGatewayTCPName, GRPCGatewayUnixName), mux, b.Close)
}
