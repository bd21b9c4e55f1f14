package remote

import (
	"context"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/render"
)

// StreamMethod relays a streaming call to the backend over
// conn.NewStream: request messages from the exchange's Source go up (from
// their own goroutine for a client stream), responses come down to its
// Sink. Writing blocks on a slow client, which stops reading from the
// backend, whose flow control then holds the backend back: nothing piles
// up here.
type StreamMethod struct {
	Conn grpc.ClientConnInterface
	Desc grpc.StreamDesc // built at registration, never written
	Recv RecvLimit       // of each response message's wire bytes
}

var _ exchange.Invoker = (*StreamMethod)(nil)

func (m *StreamMethod) Invoke(x *exchange.Exchange) {
	out, src := x.Sink, x.Source
	ctx, cancelTimeout, err := outgoingContext(x.Context(), x)
	if cancelTimeout != nil {
		defer cancelTimeout()
	}
	if err != nil {
		out.Finish(err, nil, nil)
		return
	}
	ctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(nil) }
	defer cancel()
	idle := x.WatchIdle(cancelCause)
	cs, err := m.Conn.NewStream(ctx, &m.Desc, x.Binding.FullMethod, m.Recv.opts...)
	if err != nil {
		out.Finish(x.Outcome(Unreachable(err, false)), nil, nil)
		return
	}

	input := x.Binding.Request.Input
	send := func() error {
		for {
			msg := dynamicpb.NewMessage(input)
			err := src.Next(msg)
			if err == io.EOF {
				return cs.CloseSend()
			}
			if err != nil {
				// The source has kept what could not be read, for the
				// outcome, before the call is canceled for it.
				cancel()
				return err
			}
			if err := cs.SendMsg(msg); err != nil {
				return nil // the call ended: RecvMsg has its status
			}
		}
	}
	if m.Desc.ClientStreams {
		sent := make(chan struct{})
		if bs, ok := src.(*exchange.BodySource); ok {
			// The request must not be read once this handler returns: a
			// sender still waiting for the client's next message is cut
			// short after the response ends.
			defer bs.Stop(func() { <-sent })
		}
		go func() {
			defer close(sent)
			send()
		}()
	} else if err := send(); err != nil {
		out.Finish(x.Outcome(err), nil, nil)
		return
	}

	// The response starts with the first message, as grpc-gateway's does:
	// a backend's header alone does not commit it (grpc-go sends the
	// header metadata of a call that then fails before any message), so an
	// early failure is still an ordinary error response.
	var header, trailer metadata.MD
	first := true
	for {
		msg := render.NewWireMessage()
		err = cs.RecvMsg(msg)
		if first {
			header, _ = cs.Header()
			first = false
			if herr := m.Recv.CheckHeader(header); herr != nil {
				cancel()
				out.Finish(herr, nil, nil)
				return
			}
		}
		if err != nil {
			// The call has ended: only now may its trailer be read.
			trailer = cs.Trailer()
			err = Unreachable(m.Recv.Outcome(err, header), true)
			if herr := m.Recv.CheckHeader(trailer); herr != nil {
				// Over the limit, the trailer is not sent: its error is
				// the call's outcome, unless the call failed already.
				trailer = nil
				if err == io.EOF {
					err = herr
				}
			}
			break
		}
		if werr := out.Send(msg, header); werr != nil {
			cancel() // the client is gone
			err = werr
			break
		}
		idle.Touch()
	}
	if err == io.EOF {
		err = nil
	}
	out.Finish(x.Outcome(err), header, trailer)
}
