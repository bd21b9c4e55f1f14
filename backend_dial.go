package protorest

import (
	"google.golang.org/grpc"

	"github.com/protorest/protorest/internal/invoke"
)

// Receive windows of BackendDialOptions.
const (
	backendStreamWindow = 64 << 10
	backendConnWindow   = 16 << 20
)

// BackendDialOptions are the options to dial a backend's connection with,
// for RegisterRemote: each stream's receive window fixed at 64 KiB, the
// connection's at 16 MiB. grpc-go otherwise grows a stream's window up to
// 16 MiB when bytes arrive fast, and a server stream whose client stops
// reading then piles that much of the backend's messages in the gateway
// (9 to 12 MiB a stream, measured); the connection's window is given back
// as bytes arrive, and holds nothing. A stream then takes at most 64 KiB
// a round trip (6.4 MB/s at 10 ms). And a codec (grpc.ForceCodecV2)
// that takes a backend's response as the bytes it is, which the gateway
// renders from, rather than decoding it field by field (as grpc-go's
// proto codec does, into the google.protobuf.Empty the gateway reads a
// response into): its other messages, and bytes that are not wire
// format, go to grpc-go's proto codec, and calls go as application/grpc.
// The gateway cannot set these on a connection it is given. protorest
// serve dials with them.
func BackendDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithStaticStreamWindowSize(backendStreamWindow),
		grpc.WithStaticConnWindowSize(backendConnWindow),
		grpc.WithDefaultCallOptions(invoke.WireCodecOption()),
	}
}
