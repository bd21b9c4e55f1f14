package protorest

import (
	"fmt"

	"github.com/protorest/protorest/internal/config"
)

// A Protocol is an RPC protocol the gateway serves at every method's
// canonical path, "/pkg.Service/Method", beside REST: every method it
// serves, in-process or remote, with or without google.api.http rules.
type Protocol int

// The protocols, all served by default.
const (
	// ProtocolConnect is Connect (connectrpc.com/docs/protocol): unary
	// POST of application/proto or application/json, GET for a method
	// marked idempotency_level = NO_SIDE_EFFECTS, and streams of
	// application/connect+proto or +json.
	ProtocolConnect Protocol = iota + 1
	// ProtocolGRPCWeb is gRPC-Web: application/grpc-web[+proto|+json],
	// and the text mode, application/grpc-web-text.
	ProtocolGRPCWeb
	// ProtocolGRPC is gRPC: application/grpc[+proto|+json], over HTTP/2
	// (h2c or TLS), so that a gRPC client of the gateway's port reaches
	// the services registered on it. Behind GRPCPassThrough, binary calls
	// of the methods no service registered in-process serves are
	// forwarded instead.
	ProtocolGRPC
)

// WithoutProtocols turns the protocols ps off: their calls are then
// REST requests like any other (a 404 or 415 at a canonical path with no
// REST rule). A Protocol that is none of these is an error (see Option).
func WithoutProtocols(ps ...Protocol) Option {
	return optionFunc(func(c *config.Config) {
		for _, p := range ps {
			switch p {
			case ProtocolConnect:
				c.Protocols.NoConnect = true
			case ProtocolGRPCWeb:
				c.Protocols.NoGRPCWeb = true
			case ProtocolGRPC:
				c.Protocols.NoGRPC = true
			default:
				c.Errs = append(c.Errs, fmt.Errorf("protorest: WithoutProtocols: no protocol %d", p))
			}
		}
	})
}
