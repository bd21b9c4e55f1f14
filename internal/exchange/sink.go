package exchange

import (
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/render"
)

// A Sink takes what a call sends back: its messages, then its outcome.
// Invokers drive it; it knows nothing of where the messages come from.
// internal/render has the HTTP ones, internal/ws the WebSocket one.
type Sink interface {
	// SendHeader commits the response before its first message, as
	// grpc.SendHeader does, where the transport can.
	SendHeader(header metadata.MD) error
	// Send writes one message; an error means the client is gone.
	Send(msg proto.Message, header metadata.MD) error
	// Finish ends the response with the call's outcome.
	Finish(err error, header, trailer metadata.MD)
}

var (
	_ Sink = (*render.Unary)(nil)
	_ Sink = (*render.Stream)(nil)
)
