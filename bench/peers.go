package bench

import (
	"context"
	"errors"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// The peers' names, in benchmark names.
const (
	FloorName                = "floor"
	GRPCGatewayInProcessName = "grpc-gateway-inproc"
	GRPCGatewayTCPName       = "grpc-gateway-tcp"
	GRPCGatewayUnixName      = "grpc-gateway-unix"
	ProtorestInProcessName   = "protorest-inproc"
	ProtorestTCPName         = "protorest-tcp"
	ProtorestUnixName        = "protorest-unix"
	GRPCDirectName           = "grpc-tcp"
)

// NewFloor is the floor (NewFloorHandler), called in-process.
func NewFloor(lib libraryv1.LibraryServer) HTTPPeer {
	return &inProcessPeer{name: FloorName, handler: NewFloorHandler(lib)}
}

// NewHTTPPeers returns every HTTP peer, all calling lib: the floor, then
// grpc-gateway and protorest in-process, remote over TCP and remote over
// a Unix socket. The caller closes them.
func NewHTTPPeers(ctx context.Context, lib libraryv1.LibraryServer) ([]HTTPPeer, error) {
	peers := []HTTPPeer{NewFloor(lib)}
	add := func(p HTTPPeer, err error) error {
		if err == nil {
			peers = append(peers, p)
		}
		return err
	}
	err := errors.Join(
		add(NewGRPCGatewayInProcess(ctx, lib)),
		add(NewGRPCGatewayRemote(ctx, lib, TCP)),
		add(NewGRPCGatewayRemote(ctx, lib, Unix)),
		add(NewProtorestInProcess(lib)),
		add(NewProtorestRemote(ctx, lib, TCP)),
		add(NewProtorestRemote(ctx, lib, Unix)),
	)
	if err != nil {
		return nil, errors.Join(err, ClosePeers(peers))
	}
	return peers, nil
}

// ClosePeers closes every peer.
func ClosePeers(peers []HTTPPeer) error {
	var errs []error
	for _, p := range peers {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// remoteName is tcp's name or unix's, by network.
func remoteName(network Network, tcp, unix string) string {
	if network == Unix {
		return unix
	}
	return tcp
}
