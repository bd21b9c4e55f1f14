package protorest

import (
	"net/http"

	"google.golang.org/grpc"
)

// GRPCPassThrough returns a handler that serves the gateway's requests
// and forwards the gRPC calls among them (HTTP/2, content type
// application/grpc or application/grpc+codec), messages unchanged, to
// conn: one port for REST and gRPC, as protorest serve has. The calls
// obey the gateway's settings, as its REST calls do:
//   - each message from the client within WithMaxRequestBodySize, counted
//     decompressed, and each to the client within WithMaxResponseBytes;
//   - WithReadIdleTimeout for a message in progress (with its minimum
//     rate) and WithStreamIdleTimeout between messages;
//   - the metadata as REST's is built (WithMaxMetadataBytes, the
//     gateway's own x-forwarded-* and the like, the trace context checked,
//     WithMetadata), the header matchers aside: it passes under its names;
//   - Grpc-Timeout clamped to WithMaxTimeout; WithDefaultTimeout for a
//     unary method that a registered backend or the registration's files
//     describe (other calls may stream, and get none).
//
// Past a limit the call ends with the status REST answers with (see
// docs/reference.md). A call's error is recorded in its CallInfo.
func (g *Gateway) GRPCPassThrough(conn grpc.ClientConnInterface) http.Handler {
	return g.gw.GRPCPassThrough(conn)
}
