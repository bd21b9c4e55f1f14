package protorest

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Header names and prefixes of grpc-gateway's metadata scheme.
const (
	MetadataHeaderPrefix  = "Grpc-Metadata-"
	MetadataTrailerPrefix = "Grpc-Trailer-"
	MetadataPrefix        = "grpcgateway-"
	timeoutHeader         = "Grpc-Timeout"
)

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
	"Proxy-Authorization": true, "Range": true, "Referer": true, "User-Agent": true,
	"Via": true, "Warning": true,
}

// hopByHop headers describe one connection and never become metadata.
var hopByHop = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true,
	"Transfer-Encoding": true, "Upgrade": true, "Te": true, "Trailer": true,
	"Proxy-Authenticate": true,
}

// DefaultHeaderMatcher is grpc-gateway's incoming scheme: IANA permanent
// headers become "grpcgateway-<name>", "Grpc-Metadata-<k>" becomes "k",
// and every other header is dropped. Keys the gRPC protocol reserves
// ("grpc-…") are never accepted from a client.
func DefaultHeaderMatcher(key string) (string, bool) {
	key = http.CanonicalHeaderKey(key)
	if permanentHeaders[key] {
		return MetadataPrefix + key, true
	}
	if k, ok := strings.CutPrefix(key, MetadataHeaderPrefix); ok && k != "" {
		return k, true
	}
	return "", false
}

func defaultHeaderOut(key string) (string, bool)  { return MetadataHeaderPrefix + key, true }
func defaultTrailerOut(key string) (string, bool) { return MetadataTrailerPrefix + key, true }

// permanentMetadataKeys are DefaultHeaderMatcher's names for the
// permanent headers, lower-cased as metadata keys are: built once, not
// per request.
var permanentMetadataKeys = func() map[string]string {
	m := make(map[string]string, len(permanentHeaders))
	for h := range permanentHeaders {
		m[h] = strings.ToLower(MetadataPrefix + h)
	}
	return m
}()

// metadataKey is the incoming metadata key of header key, if the
// matcher takes it. A nil matcher is DefaultHeaderMatcher, answered from
// permanentMetadataKeys for the keys net/http canonicalised.
func (g *Gateway) metadataKey(key string) (string, bool) {
	match := g.cfg.incoming
	if match == nil {
		if name, ok := permanentMetadataKeys[key]; ok {
			return name, true
		}
		if k, ok := strings.CutPrefix(key, MetadataHeaderPrefix); ok && k != "" {
			return strings.ToLower(k), true
		}
		match = DefaultHeaderMatcher
	}
	name, ok := match(key)
	return strings.ToLower(name), ok
}

// incomingMetadata builds the metadata a method sees for r.
func (g *Gateway) incomingMetadata(r *http.Request) (metadata.MD, error) {
	total := 2 // the forwarded host and for
	for _, vs := range r.Header {
		total += len(vs)
	}
	mb := mdBuilder{md: make(metadata.MD, len(r.Header)+2), backing: make([]string, 0, total)}
	for key, vals := range r.Header {
		if hopByHop[key] || key == "X-Forwarded-For" || key == "X-Forwarded-Host" {
			continue
		}
		if key == "Authorization" {
			for _, v := range vals {
				if validMetadataValue(v) {
					mb.add("authorization", v)
				}
			}
		}
		name, ok := g.metadataKey(key)
		if !ok {
			continue
		}
		if !validMetadataKey(name) || isReservedKey(name) {
			continue
		}
		for _, v := range vals {
			if strings.HasSuffix(name, "-bin") {
				b, err := decodeBinary(v)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "invalid binary header %s: not base64", key)
				}
				v = string(b)
			} else if !validMetadataValue(v) {
				continue
			}
			mb.add(name, v)
		}
	}
	// Forwarded values that are not valid metadata are replaced, as if
	// absent: a backend would fail the call with INTERNAL over them.
	if host := r.Header.Get("X-Forwarded-Host"); host != "" && validMetadataValue(host) {
		mb.set("x-forwarded-host", host)
	} else if r.Host != "" && validMetadataValue(r.Host) {
		mb.set("x-forwarded-host", r.Host)
	}
	if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		if fwd := r.Header.Get("X-Forwarded-For"); fwd != "" && validMetadataValue(fwd) {
			mb.set("x-forwarded-for", fwd+", "+ip)
		} else {
			mb.set("x-forwarded-for", ip)
		}
	}
	return mb.md, nil
}

// mdBuilder fills metadata whose single values share one backing array:
// one allocation for all of a request's headers instead of one per key.
type mdBuilder struct {
	md      metadata.MD
	backing []string
}

// add appends v to the values of key.
func (b *mdBuilder) add(key, v string) {
	cur := b.md[key]
	if len(cur) == 0 && len(b.backing) < cap(b.backing) {
		b.backing = append(b.backing, v)
		n := len(b.backing)
		b.md[key] = b.backing[n-1 : n : n] // capped: a second value copies
		return
	}
	b.md[key] = append(cur, v)
}

// set makes v the only value of key.
func (b *mdBuilder) set(key, v string) {
	delete(b.md, key)
	b.add(key, v)
}

// isReservedKey reports keys that only the gRPC transport may set.
func isReservedKey(k string) bool {
	return strings.HasPrefix(k, "grpc-") || k == "te" || k == "content-type" || k == "user-agent" || k == "connection"
}

func validMetadataKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func validMetadataValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

func decodeBinary(v string) ([]byte, error) {
	if len(v)%4 == 0 {
		return base64.StdEncoding.DecodeString(v)
	}
	return base64.RawStdEncoding.DecodeString(v)
}

// withTimeout applies a Grpc-Timeout header ("<digits><unit>", unit one of
// H M S m u n) to ctx.
func withTimeout(ctx context.Context, r *http.Request) (context.Context, context.CancelFunc, error) {
	v := r.Header.Get(timeoutHeader)
	if v == "" {
		return ctx, nil, nil
	}
	d, ok := parseTimeout(v)
	if !ok {
		return ctx, nil, status.Errorf(codes.InvalidArgument, "invalid Grpc-Timeout %q", truncate(v, 32))
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

func parseTimeout(v string) (time.Duration, bool) {
	if len(v) < 2 || len(v) > 9 {
		return 0, false
	}
	n, err := strconv.ParseUint(v[:len(v)-1], 10, 64)
	if err != nil {
		return 0, false
	}
	var unit time.Duration
	switch v[len(v)-1] {
	case 'H':
		unit = time.Hour
	case 'M':
		unit = time.Minute
	case 'S':
		unit = time.Second
	case 'm':
		unit = time.Millisecond
	case 'u':
		unit = time.Microsecond
	case 'n':
		unit = time.Nanosecond
	default:
		return 0, false
	}
	const maxDuration = time.Duration(1<<63 - 1)
	if n > uint64(maxDuration/unit) {
		return maxDuration, true
	}
	return time.Duration(n) * unit, true
}

// writeMetadata copies md into h under prefix plus the names matcher
// gives (prefix is "" or http.TrailerPrefix); binary
// values are base64-encoded, and values that cannot be header values are
// dropped.
func writeMetadata(h http.Header, md metadata.MD, matcher HeaderMatcher, prefix string) {
	for k, vs := range md {
		name, ok := matcher(k)
		if !ok {
			continue
		}
		name = prefix + http.CanonicalHeaderKey(name)
		bin := strings.HasSuffix(k, "-bin")
		for _, v := range vs {
			if bin {
				v = base64.StdEncoding.EncodeToString([]byte(v))
			} else if !validHeaderValue(v) {
				continue
			}
			h.Add(name, v)
		}
	}
}

func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
