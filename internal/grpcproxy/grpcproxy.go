// Package grpcproxy forwards gRPC calls, unchanged, to an upstream
// connection, so that one HTTP/2 port serves REST and gRPC.
//
// The proxy is a grpc.Server whose unknown-service handler forwards every
// call, served through grpc.Server.ServeHTTP on net/http's own HTTP/2 (h2c
// or TLS). ServeHTTP is documented as experimental: besides internal/invoke
// this is the one package that uses such an API, and the grpc.Server does
// not leave it. Messages pass as opaque bytes: they are decoded
// into google.protobuf.Empty, which keeps every field as unknown bytes and
// writes them back exactly as they came, so no message type needs to be
// known and no experimental codec API is used.
package grpcproxy

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // accept gzip-compressed calls
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest/internal/remote"
)

// MaxMessageSize bounds each message the proxy holds, in both directions.
const MaxMessageSize = 64 << 20

// New returns a handler that forwards every gRPC call it receives to
// conn. Route only gRPC calls to it (see IsGRPC). A call that does not
// reach the upstream ends in UNAVAILABLE "upstream unavailable" (see
// remote.Unreachable), as a REST call does: grpc-go's message names
// addresses. failed, if not nil, is told the error of each call that
// fails, grpc-go's cause included, with the call's context (the HTTP
// request's, and what it holds).
func New(conn grpc.ClientConnInterface, failed func(context.Context, error)) http.Handler {
	return grpc.NewServer(
		grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
			err := forward(conn, ss)
			if err != nil && failed != nil {
				failed(ss.Context(), err)
			}
			return err
		}),
		grpc.MaxRecvMsgSize(MaxMessageSize),
		grpc.MaxSendMsgSize(MaxMessageSize),
	)
}

// IsGRPC reports whether r is a gRPC call (not gRPC-Web): HTTP/2 with a
// content type of application/grpc or application/grpc+codec.
func IsGRPC(r *http.Request) bool {
	if r.ProtoMajor != 2 {
		return false
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && (ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+"))
}

var desc = &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}

// forward relays one call: messages both ways, header and trailer
// metadata, the deadline, cancellation and the final status.
func forward(conn grpc.ClientConnInterface, ss grpc.ServerStream) error {
	method, ok := grpc.MethodFromServerStream(ss)
	if !ok {
		return errors.New("grpcproxy: no method in the stream")
	}
	// The deadline (grpc-timeout) is already on the context.
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	md, _ := metadata.FromIncomingContext(ctx)
	ctx = metadata.NewOutgoingContext(ctx, outgoing(md))
	cs, err := conn.NewStream(ctx, desc, method, grpc.MaxCallRecvMsgSize(MaxMessageSize), grpc.MaxCallSendMsgSize(MaxMessageSize))
	if err != nil {
		return remote.Unreachable(err, false)
	}

	// Client to upstream, until the client half-closes or fails. A failure
	// cancels the upstream call; the upstream's status then ends the call.
	go func() {
		for {
			m := new(emptypb.Empty)
			if err := ss.RecvMsg(m); err != nil {
				if err == io.EOF {
					cs.CloseSend()
				} else {
					cancel()
				}
				return
			}
			if err := cs.SendMsg(m); err != nil {
				return // the upstream ended the call: RecvMsg below has its status
			}
		}
	}()

	// Upstream to client.
	if header, err := cs.Header(); err == nil && len(header) > 0 {
		if err := ss.SendHeader(header); err != nil {
			return err
		}
	}
	for {
		m := new(emptypb.Empty)
		if err := cs.RecvMsg(m); err != nil {
			ss.SetTrailer(cs.Trailer())
			if err == io.EOF {
				return nil
			}
			return remote.Unreachable(err, true) // the upstream's status, details included
		}
		if err := ss.SendMsg(m); err != nil {
			return err
		}
	}
}

// outgoing returns the metadata of an incoming call to send upstream,
// without what the transport sets itself.
func outgoing(in metadata.MD) metadata.MD {
	out := make(metadata.MD, len(in))
	for k, v := range in {
		if strings.HasPrefix(k, ":") || strings.HasPrefix(k, "grpc-") {
			continue
		}
		switch k {
		case "content-type", "user-agent", "te", "connection":
			continue
		}
		out[k] = v
	}
	return out
}
