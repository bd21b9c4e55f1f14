package protorest

import (
	"context"
	"io"
	"net/http"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/dynamicpb"
)

// streamRemote relays a streaming call to a remote backend over
// conn.NewStream: request messages from src go up (from their own
// goroutine for a client stream), responses come down to out. Writing
// blocks on a slow client, which stops reading from the backend, whose
// flow control then holds the backend back: nothing piles up here.
func (g *Gateway) streamRemote(r *http.Request, b *binding, src messageSource, out streamSink) {
	md, err := g.incomingMetadata(r)
	if err != nil {
		out.finish(err, nil, nil)
		return
	}
	ctx, cancelTimeout, err := withTimeout(metadata.NewOutgoingContext(r.Context(), md), r)
	if cancelTimeout != nil {
		defer cancelTimeout()
	}
	if err != nil {
		out.finish(err, nil, nil)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cs, err := b.conn.NewStream(ctx, &b.streamDesc, b.fullMethod)
	if err != nil {
		out.finish(err, nil, nil)
		return
	}

	send := func() error {
		for {
			msg := dynamicpb.NewMessage(b.input)
			err := src.next(msg)
			if err == io.EOF {
				return cs.CloseSend()
			}
			if err != nil {
				cancel()
				return err
			}
			if err := cs.SendMsg(msg); err != nil {
				return nil // the call ended: RecvMsg has its status
			}
		}
	}
	var sent chan error
	var body *interruptible
	if b.clientStreams {
		if bs, ok := src.(*bodySource); ok {
			body = &interruptible{r: bs.reader}
			bs.reader = body
		}
		sent = make(chan error, 1)
		go func() { sent <- send() }()
	} else if err := send(); err != nil {
		out.finish(err, nil, nil)
		return
	}

	// The response starts with the first message, as grpc-gateway's does:
	// a backend's header alone does not commit it (grpc-go sends the
	// header metadata of a call that then fails before any message), so an
	// early failure is still an ordinary error response.
	var header metadata.MD
	first := true
	for {
		msg := newWireResponse()
		err = cs.RecvMsg(msg)
		if first {
			header, _ = cs.Header()
			first = false
		}
		if err != nil {
			break
		}
		if werr := out.send(msg, header); werr != nil {
			cancel() // the client is gone
			err = werr
			break
		}
	}
	if err == io.EOF {
		err = nil
	}
	if sent != nil {
		select {
		case serr := <-sent:
			if serr != nil {
				err = serr // the client sent what could not be read
			}
		default:
			// The request must not be read once this handler returns: a
			// sender still waiting for the client's next message is cut
			// short after the response ends, and what it then says is not
			// the client's fault.
			defer body.cut(out.interruptRead, func() { <-sent })
		}
	}
	out.finish(err, header, cs.Trailer())
}
