package protorest

import (
	"errors"
	"net/http"
	"net/netip"
	"strconv"

	"google.golang.org/grpc/metadata"

	"github.com/protorest/protorest/internal/config"
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

// WithIncomingHeaderMatcher decides which request headers become incoming
// metadata, and under which keys. The default (or nil) is
// DefaultHeaderMatcher. Hop-by-hop headers are dropped whatever the
// matcher says.
func WithIncomingHeaderMatcher(m HeaderMatcher) Option {
	return optionFunc(func(c *config.Config) { c.Headers.Incoming = m })
}

// WithOutgoingHeaderMatcher decides which header metadata set by a method
// become response headers, and under which header names. By default key
// k becomes Grpc-Metadata-K.
func WithOutgoingHeaderMatcher(m HeaderMatcher) Option {
	return optionFunc(func(c *config.Config) { c.Headers.OutgoingHeader = m })
}

// WithOutgoingTrailerMatcher decides which trailer metadata become HTTP
// trailers (sent only when the request says "TE: trailers"), and under
// which names. By default key k becomes Grpc-Trailer-K.
func WithOutgoingTrailerMatcher(m HeaderMatcher) Option {
	return optionFunc(func(c *config.Config) { c.Headers.OutgoingTrailer = m })
}

// WithMetadata adds annotate's metadata to every call the gateway makes,
// in-process (incoming metadata) and remote (outgoing): grpc-gateway's
// runtime.WithMetadata, given the request (r.Pattern is the route's
// template). Annotators run in order, after the headers have become
// metadata; their values are appended, and count against
// WithMaxMetadataBytes. They are the operator's code, so they may set the
// keys kept from clients (authorization, grpcgateway-*, x-forwarded-*);
// keys are lower-cased, and gRPC's reserved keys (grpc-*) and values that
// cannot travel as metadata are dropped. By default there are none.
func WithMetadata(annotate func(r *http.Request) metadata.MD) Option {
	return optionFunc(func(c *config.Config) { c.Headers.Annotators = append(c.Headers.Annotators, annotate) })
}

// WithTrustedProxies names the peers (CIDR prefixes, "10.0.0.0/8", or
// addresses) whose X-Forwarded-Host header is believed: from them, it
// becomes the x-forwarded-host metadata; from any other peer, that is the
// request's Host. By default no peer is trusted. X-Forwarded-For is
// always kept, with the peer's address appended. What is not a prefix or
// an address is an error (see Option).
func WithTrustedProxies(cidrs ...string) Option {
	return optionFunc(func(c *config.Config) {
		for _, s := range cidrs {
			pfx, err := netip.ParsePrefix(s)
			if err != nil {
				addr, aerr := netip.ParseAddr(s)
				if aerr != nil {
					c.Errs = append(c.Errs, errors.New("protorest: WithTrustedProxies("+strconv.Quote(s)+"): "+err.Error()))
					continue
				}
				pfx = netip.PrefixFrom(addr, addr.BitLen())
			}
			c.Headers.TrustedProxies = append(c.Headers.TrustedProxies, pfx.Masked())
		}
	})
}
