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
// for RegisterRemote (protorest serve dials with them; the gateway cannot
// set them on a connection it is given): each stream's receive window
// fixed at 64 KiB and the connection's at 16 MiB, so that a server stream
// whose client stops reading holds at most 64 KiB of the backend's
// messages in the gateway (grpc-go grows a window to 16 MiB); and a codec
// that keeps a backend's responses as their wire bytes, which the gateway
// renders from, rather than decoding them (calls still go as
// application/grpc).
func BackendDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithStaticStreamWindowSize(backendStreamWindow),
		grpc.WithStaticConnWindowSize(backendConnWindow),
		grpc.WithDefaultCallOptions(invoke.WireCodecOption()),
	}
}
