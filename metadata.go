package protorest

import "github.com/protorest/protorest/internal/headers"

// Header names and prefixes of grpc-gateway's metadata scheme.
const (
	MetadataHeaderPrefix  = headers.MetadataHeaderPrefix
	MetadataTrailerPrefix = headers.MetadataTrailerPrefix
	MetadataPrefix        = headers.MetadataPrefix
)

// HeaderMatcher decides whether a header (or metadata key) crosses the
// gateway and under which name. It returns the new name and true to keep
// the entry.
type HeaderMatcher func(key string) (string, bool)

// DefaultHeaderMatcher is grpc-gateway's incoming scheme: IANA permanent
// headers become "grpcgateway-<name>", "Grpc-Metadata-<k>" becomes "k",
// and every other header is dropped. Keys the gRPC protocol reserves
// ("grpc-…") are never accepted from a client.
func DefaultHeaderMatcher(key string) (string, bool) { return headers.DefaultIncoming(key) }
