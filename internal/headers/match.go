// Package headers moves metadata across the HTTP edge: request headers
// become a call's incoming metadata (grpc-gateway's scheme by default),
// a method's header and trailer metadata become response headers and
// trailers, and Grpc-Timeout becomes a deadline.
package headers

import (
	"net/http"
	"net/netip"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"
)

// Header names and prefixes of grpc-gateway's metadata scheme.
const (
	MetadataHeaderPrefix  = "Grpc-Metadata-"
	MetadataTrailerPrefix = "Grpc-Trailer-"
	MetadataPrefix        = "grpcgateway-"
	timeoutHeader         = "Grpc-Timeout"
)

// A Matcher decides whether a header (or metadata key) crosses the
// gateway and under which name (protorest.HeaderMatcher).
type Matcher = func(key string) (string, bool)

// Policy is a gateway's header matchers. A nil Incoming is
// DefaultIncoming; the outgoing ones are never nil.
type Policy struct {
	Incoming        Matcher
	OutgoingHeader  Matcher
	OutgoingTrailer Matcher
	// TrustedProxies are the peers whose X-Forwarded-Host is believed;
	// from any other, x-forwarded-host is the request's Host.
	TrustedProxies []netip.Prefix
	// DefaultTimeout is the deadline of a unary call without Grpc-Timeout,
	// MaxTimeout the longest a Grpc-Timeout may ask for; 0 for none.
	DefaultTimeout, MaxTimeout time.Duration
	// MaxMetadataBytes bounds the metadata a call forwards (keys and
	// values, 32 bytes more for each, as HTTP/2 counts a header list); 0
	// for no limit.
	MaxMetadataBytes int
	// Annotators add the operator's metadata to every call, after the
	// headers' (see Metadata).
	Annotators []Annotator
}

// An Annotator gives metadata to add to the call that serves r
// (protorest.WithMetadata).
type Annotator = func(r *http.Request) metadata.MD

// permanentHeaders are the IANA permanent HTTP message headers that
// grpc-gateway forwards as "grpcgateway-<Name>" metadata.
var permanentHeaders = map[string]bool{
	"A-Im": true, "Accept": true, "Accept-Charset": true, "Accept-Datetime": true,
	"Accept-Encoding": true, "Accept-Language": true, "Accept-Ranges": true,
	"Access-Control-Request-Method": true, "Access-Control-Request-Headers": true,
	"Authorization": true, "Cache-Control": true, "Content-Length": true,
	"Content-Md5": true, "Content-Type": true, "Cookie": true, "Date": true,
	"Expect": true, "Forwarded": true, "From": true, "Host": true,
	"If-Match": true, "If-Modified-Since": true, "If-None-Match": true,
	"If-Range": true, "If-Schedule-Tag-Match": true, "If-Unmodified-Since": true,
	"Max-Forwards": true, "Origin": true, "Pragma": true, "Prefer": true,
	"Range": true, "Referer": true, "User-Agent": true,
	"Via": true, "Warning": true,
}

// hopByHop headers describe one connection and never become metadata;
// nor does any Proxy-* header (credentials for a proxy, not the backend).
var hopByHop = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true,
	"Transfer-Encoding": true, "Upgrade": true, "Te": true, "Trailer": true,
	"Proxy-Authenticate": true,
}

// DefaultIncoming is grpc-gateway's incoming scheme: IANA permanent
// headers become "grpcgateway-<name>", "Grpc-Metadata-<k>" becomes "k",
// and every other header is dropped.
func DefaultIncoming(key string) (string, bool) {
	key = http.CanonicalHeaderKey(key)
	if permanentHeaders[key] {
		return MetadataPrefix + key, true
	}
	if k, ok := strings.CutPrefix(key, MetadataHeaderPrefix); ok && k != "" {
		return k, true
	}
	return "", false
}

// DefaultOutgoingHeader sends header metadata k as Grpc-Metadata-K.
func DefaultOutgoingHeader(key string) (string, bool) { return MetadataHeaderPrefix + key, true }

// DefaultOutgoingTrailer sends trailer metadata k as Grpc-Trailer-K.
func DefaultOutgoingTrailer(key string) (string, bool) { return MetadataTrailerPrefix + key, true }

// permanentMetadataKeys are DefaultIncoming's names for the permanent
// headers, lower-cased as metadata keys are: built once, not per request.
var permanentMetadataKeys = func() map[string]string {
	m := make(map[string]string, len(permanentHeaders))
	for h := range permanentHeaders {
		m[h] = strings.ToLower(MetadataPrefix + h)
	}
	return m
}()

// metadataKey is the incoming metadata key of header key, if the
// matcher takes it. A nil matcher is DefaultIncoming, answered from
// permanentMetadataKeys for the keys net/http canonicalised.
func (p *Policy) metadataKey(key string) (string, bool) {
	match := p.Incoming
	if match == nil {
		if name, ok := permanentMetadataKeys[key]; ok {
			return name, true
		}
		if k, ok := strings.CutPrefix(key, MetadataHeaderPrefix); ok && k != "" {
			return strings.ToLower(k), true
		}
		match = DefaultIncoming
	}
	name, ok := match(key)
	return strings.ToLower(name), ok
}

// ownHeaders are the headers forwarded under their own names, whatever
// the incoming matcher says: Authorization, as grpc-gateway does, and the
// W3C trace context, so that a trace goes on through the gateway to the
// method (grpc-gateway drops it: grpc-gateway#2228). A tracer that wraps
// the gateway (an OpenTelemetry handler) writes its own span into these
// headers first, and gRPC clients instrumented with OpenTelemetry replace
// them with their span's.
var ownHeaders = map[string]string{
	"Authorization": "authorization",
	"Traceparent":   "traceparent",
	"Tracestate":    "tracestate",
	"Baggage":       "baggage",
}

// owned reports the metadata keys that only the gateway sets: the
// permanent headers' grpcgateway-*, those of ownHeaders (each from its
// header) and x-forwarded-*; and the keys by which proxies tell a backend
// who the client is (forwarded, x-real-ip, Envoy's x-envoy-*), which the
// gateway never sets but a backend behind one trusts just as much.
// Backends trust them to come from the gateway, so no client header
// (Grpc-Metadata-Authorization, Grpc-Metadata-Grpcgateway-Cookie,
// Grpc-Metadata-Traceparent, Grpc-Metadata-X-Real-Ip, …) may create or
// extend one.
func owned(key string) bool {
	switch key {
	case "authorization", "traceparent", "tracestate", "baggage", "forwarded", "x-real-ip":
		return true
	}
	return strings.HasPrefix(key, "grpcgateway-") || strings.HasPrefix(key, "x-forwarded-") || strings.HasPrefix(key, "x-envoy-")
}

// trusted reports whether the peer at remoteAddr is a trusted proxy.
func (p *Policy) trusted(remoteAddr string) bool {
	if len(p.TrustedProxies) == 0 {
		return false
	}
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, pfx := range p.TrustedProxies {
		if pfx.Contains(ip) {
			return true
		}
	}
	return false
}
