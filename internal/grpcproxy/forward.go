package grpcproxy

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest/internal/remote"
	"github.com/protorest/protorest/internal/timeouts"
)

var desc = &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}

// forward relays one call: messages both ways, header and trailer
// metadata, the deadline, cancellation and the final status. The
// metadata's error, if any, ends the call before the upstream is called;
// so does a failure of the one request message of a call that takes one.
func (p *proxy) forward(ss grpc.ServerStream) error {
	method, ok := grpc.MethodFromServerStream(ss)
	if !ok {
		return errors.New("grpcproxy: no method in the stream")
	}
	c := callFrom(ss.Context())
	if c == nil {
		return errors.New("grpcproxy: the call was not made by ServeHTTP")
	}
	if c.mdErr != nil {
		return c.mdErr
	}
	// A Grpc-Timeout is on the stream's context already; WithTimeout
	// clamps it to the longest allowed, or gives a unary call the default.
	ctx, cancelTimeout, err := p.s.Headers.WithTimeout(ss.Context(), c.r, !c.unary)
	if err != nil {
		return err
	}
	if cancelTimeout != nil {
		defer cancelTimeout()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c.watch(cancel)
	var idle *timeouts.IdleWatch
	if !c.unary {
		idle = timeouts.WatchIdle(p.s.StreamIdleTimeout, cancel)
	}
	var first *emptypb.Empty
	if c.oneRequest {
		if first, err = c.first(ctx, ss); err != nil {
			return c.outcome(err, idle)
		}
		idle.Touch()
	}
	cs, err := p.conn.NewStream(metadata.NewOutgoingContext(ctx, c.md), desc, method, p.callOpts...)
	if err != nil {
		return c.outcome(remote.Unreachable(err, false), idle)
	}
	go c.send(ss, cs, first, idle, cancel)

	// Upstream to client.
	if header, err := cs.Header(); err == nil && len(header) > 0 {
		if err := ss.SendHeader(header); err != nil {
			return c.outcome(err, idle)
		}
	}
	for {
		m := new(emptypb.Empty)
		if err := cs.RecvMsg(m); err != nil {
			ss.SetTrailer(cs.Trailer())
			if err == io.EOF {
				return c.outcome(nil, idle)
			}
			return c.outcome(remote.Unreachable(err, true), idle) // the upstream's status, details included
		}
		if err := p.deliver(ctx, c, ss, m); err != nil {
			return c.outcome(err, idle)
		}
		idle.Touch()
	}
}

// first receives the one request message of a call that takes one
// (nil if the client sent none), or ctx's error when it ends first: a
// body cut short, the stream idle timeout. The message is received on a
// goroutine of its own: grpc-go answers a receive that fails with its
// own status, which must not come before the call's.
func (c *call) first(ctx context.Context, ss grpc.ServerStream) (*emptypb.Empty, error) {
	type received struct {
		m   *emptypb.Empty
		err error
	}
	got := make(chan received, 1)
	go func() {
		m := new(emptypb.Empty)
		got <- received{m, c.recv(ss, m)}
	}()
	select {
	case r := <-got:
		if r.err == io.EOF {
			return nil, nil // none: the upstream says what that is
		}
		return r.m, r.err
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// send relays the client's messages to the upstream (first, if not nil,
// already received) until the client half-closes or fails. A failure
// cancels the upstream call; the outcome then says why.
func (c *call) send(ss grpc.ServerStream, cs grpc.ClientStream, first *emptypb.Empty, idle *timeouts.IdleWatch, cancel context.CancelCauseFunc) {
	m := first
	for {
		if m == nil {
			m = new(emptypb.Empty)
			if err := c.recv(ss, m); err != nil {
				if err == io.EOF {
					cs.CloseSend()
				} else {
					cancel(err)
				}
				return
			}
			idle.Touch()
		}
		if err := cs.SendMsg(m); err != nil {
			return // the upstream ended the call: forward's RecvMsg has its status
		}
		m = nil
	}
}
