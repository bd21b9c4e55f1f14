package bench

import (
	"context"
	"errors"

	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// protorest peers. Both use protorest's default options, whose JSON is
// grpc-gateway's (protojson with EmitUnpopulated; see
// TestMarshalerDefaultsAgree and the equivalence test).

// NewProtorestInProcess is a protorest Gateway with lib registered on it
// as on a grpc.Server, called in-process.
func NewProtorestInProcess(lib libraryv1.LibraryServer) (HTTPPeer, error) {
	gw := protorest.NewGateway()
	libraryv1.RegisterLibraryServer(gw, lib)
	return &inProcessPeer{name: ProtorestInProcessName, handler: gw}, nil
}

// NewProtorestRemote is a protorest Gateway in front of lib on a
// grpc.Server over network (RegisterRemote, with the descriptors linked
// into this program), served by a real HTTP server.
func NewProtorestRemote(ctx context.Context, lib libraryv1.LibraryServer, network Network) (HTTPPeer, error) {
	b, err := startBackend(lib, network)
	if err != nil {
		return nil, err
	}
	gw := protorest.NewGateway()
	files := protorest.WithRemoteFiles(protoregistry.GlobalFiles, string(libraryv1.Library_ServiceDesc.ServiceName))
	if err := gw.RegisterRemote(ctx, b.Conn, files); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return serveRemote(remoteName(network, ProtorestTCPName, ProtorestUnixName), gw, b.Close)
}
