// Package remote makes the calls of methods served by a gRPC backend over
// a grpc.ClientConnInterface: unary calls with conn.Invoke (a request's
// wire bytes sent as they are when they can be), streams with
// conn.NewStream. Responses come back as the backend's wire bytes, which
// the render stage encodes. Backends registers backends and reloads
// their routes.
package remote

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/render"
)

// UnaryMethod calls a remote unary method.
type UnaryMethod struct {
	Conn grpc.ClientConnInterface
	// Wire sends requests as wire bytes where it can; nil decodes every
	// request into a dynamic message.
	Wire *WirePlan
	// Recv limits the response's wire bytes.
	Recv RecvLimit
}

var _ exchange.Invoker = (*UnaryMethod)(nil)

// Invoke sends the request to the backend, as wire bytes when the wire
// plan can, else as a dynamic message, with the request's metadata and
// deadline, and sends its reply to x.Sink; a call that did not reach the
// backend ends in Unreachable's error.
func (m *UnaryMethod) Invoke(x *exchange.Exchange) {
	ctx, cancel, err := outgoingContext(x.Context(), x)
	if cancel != nil {
		defer cancel()
	}
	if err != nil {
		x.Sink.Finish(err, nil, nil)
		return
	}
	var in proto.Message
	ok := false
	if m.Wire != nil {
		if in, ok, err = m.Wire.request(x); err != nil {
			x.Sink.Finish(err, nil, nil)
			return
		}
	}
	if !ok {
		msg := dynamicpb.NewMessage(x.Binding.Request.Input)
		if err := x.Source.Next(msg); err != nil {
			x.Sink.Finish(err, nil, nil)
			return
		}
		in = msg
	}
	out := render.NewWireMessage()
	c := new(unaryCall) // one allocation for the metadata and the options
	c.opts = [...]grpc.CallOption{grpc.Header(&c.header), grpc.Trailer(&c.trailer), m.Recv.option()}
	err = m.Conn.Invoke(ctx, x.Binding.FullMethod, in, out, c.opts[:]...)
	x.CallEnded()
	if herr := m.Recv.CheckHeader(c.header, c.trailer); herr != nil {
		x.Sink.Finish(herr, nil, nil)
		return
	}
	if err == nil {
		err = x.Sink.Send(out, c.header)
	} else {
		// grpc-go sets the trailer only of a call that opened a stream.
		err = Unreachable(m.Recv.Outcome(err, c.header), c.trailer != nil)
	}
	x.Sink.Finish(err, c.header, c.trailer)
}

// unaryCall is what grpc-go writes back of a unary call: its header and
// trailer metadata, with the call options that ask for them.
type unaryCall struct {
	header, trailer metadata.MD
	opts            [3]grpc.CallOption
}

// outgoingContext is parent with the request's metadata as outgoing
// metadata and its Grpc-Timeout as the deadline.
func outgoingContext(parent context.Context, x *exchange.Exchange) (context.Context, context.CancelFunc, error) {
	md, err := x.Metadata()
	if err != nil {
		return nil, nil, err
	}
	return x.WithTimeout(metadata.NewOutgoingContext(parent, md))
}
