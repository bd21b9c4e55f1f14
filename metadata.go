package protorest

import (
	"net/http"

	"google.golang.org/grpc/metadata"

	"github.com/protorest/protorest/internal/headers"
)

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

// WithMetadata adds annotate's metadata to every call the gateway makes,
// in-process (the incoming metadata the method and its interceptors see)
// and remote (the outgoing metadata): the equivalent of grpc-gateway's
// runtime.WithMetadata, with the request alone as argument (its context
// is r.Context(); r.Pattern is the route's template). Annotators run in
// order, after the headers have become metadata, and their values are
// appended. They are the operator's code, not the client's, so they may
// set the keys the gateway otherwise keeps to itself (authorization,
// grpcgateway-*, x-forwarded-*): an authorization taken from a session
// cookie is the common case. Keys are lower-cased; keys gRPC reserves
// (grpc-*) and values that cannot travel as metadata are dropped. The
// annotated metadata count against WithMaxMetadataBytes. By default there
// are none.
func WithMetadata(annotate func(r *http.Request) metadata.MD) Option {
	return optionFunc(func(c *config) { c.env.Headers.Annotators = append(c.env.Headers.Annotators, annotate) })
}
