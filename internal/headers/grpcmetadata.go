package headers

import (
	"net/http"
	"strings"

	"google.golang.org/grpc/metadata"
)

// GRPCMetadata builds the metadata to forward for a gRPC call, whose
// request headers are the client's metadata: every header under its own
// name, lower-cased, a binary (-bin) value decoded, filtered as Metadata
// filters a REST request's. Hop-by-hop headers, the keys gRPC reserves
// and Content-Length (the client's hop's: the upstream's body differs)
// are left out; the keys the gateway owns (see owned: x-forwarded-*,
// forwarded, x-real-ip, grpcgateway-*, x-envoy-*) are stripped, and
// x-forwarded-host and x-forwarded-for set as for REST; traceparent and
// tracestate pass only when valid; the annotators' metadata is appended.
// The incoming matcher, which maps REST's headers, is not asked. An
// invalid binary value is INVALID_ARGUMENT; more than MaxMetadataBytes is
// RESOURCE_EXHAUSTED.
func (p *Policy) GRPCMetadata(r *http.Request) (metadata.MD, error) {
	return p.metadata(r, grpcKey)
}

// RPCMetadata builds the metadata of a Connect, gRPC-Web or gRPC call
// that the gateway serves itself (internal/protocols): GRPCMetadata's,
// without the headers that are those protocols' own (Connect-*,
// Content-Encoding, Accept-Encoding, X-Grpc-Web), which a gRPC server
// never sees as metadata.
func (p *Policy) RPCMetadata(r *http.Request) (metadata.MD, error) {
	return p.metadata(r, rpcKey)
}

// grpcKey is the metadata key of a gRPC call's header key: the key,
// lower-cased; Content-Length is no metadata.
func grpcKey(key string) (string, bool) {
	if key == "Content-Length" {
		return "", false
	}
	return lowerKey(key), true
}

// rpcKey is the metadata key of a Connect, gRPC-Web or gRPC call's header
// key: grpcKey's, the protocols' own headers left out.
func rpcKey(key string) (string, bool) {
	switch key {
	case "Content-Encoding", "Accept-Encoding", "X-Grpc-Web":
		return "", false
	}
	if strings.HasPrefix(key, "Connect-") {
		return "", false
	}
	return grpcKey(key)
}
