package headers

import (
	"encoding/base64"
	"net"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/httperr"
)

// Metadata builds the incoming metadata a method sees for r: the headers
// the policy's incoming matcher takes, Authorization and the W3C trace
// context (traceparent and tracestate when valid, baggage) under their
// own names, and x-forwarded-host and x-forwarded-for. Hop-by-hop and Proxy-* headers and
// keys the gRPC protocol reserves are never taken from a client, nor are
// the keys the gateway owns (see owned) from anything but the headers
// they stand for. Then each annotator's metadata is appended (see
// annotate). The whole must fit MaxMetadataBytes.
func (p *Policy) Metadata(r *http.Request) (metadata.MD, error) {
	return p.metadata(r, nil)
}

// metadata is Metadata, or with a verbatim key function (GRPCMetadata,
// RPCMetadata) each header under the name it gives instead of the name
// the incoming matcher gives.
func (p *Policy) metadata(r *http.Request, verbatim func(string) (string, bool)) (metadata.MD, error) {
	total := 2 // the forwarded host and for
	for _, vs := range r.Header {
		total += len(vs)
	}
	mb := mdBuilder{md: make(metadata.MD, len(r.Header)+2), backing: make([]string, 0, total)}
	for key, vals := range r.Header {
		if hopByHop[key] || strings.HasPrefix(key, "Proxy-") || key == "X-Forwarded-For" || key == "X-Forwarded-Host" {
			continue
		}
		if own, ok := ownHeaders[key]; ok && own != "traceparent" && own != "tracestate" {
			for _, v := range vals {
				if validMetadataValue(v) {
					mb.add(own, v)
				}
			}
		}
		var name string
		var ok bool
		if verbatim != nil {
			name, ok = verbatim(key)
		} else {
			name, ok = p.metadataKey(key)
		}
		if !ok {
			continue
		}
		if !validMetadataKey(name) || isReservedKey(name) || owned(name) && name != permanentMetadataKeys[key] {
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
	addTraceContext(&mb, r.Header)
	// Forwarded values that are not valid metadata are replaced, as if
	// absent: a backend would fail the call with INTERNAL over them.
	host := r.Host
	if fwd := r.Header.Get("X-Forwarded-Host"); fwd != "" && validMetadataValue(fwd) && p.trusted(r.RemoteAddr) {
		host = fwd
	}
	// No header gave these keys: the gateway owns them (owned).
	if host != "" && validMetadataValue(host) {
		mb.add("x-forwarded-host", host)
	}
	if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		mb.add("x-forwarded-for", forwardedFor(r.Header.Values("X-Forwarded-For"), ip))
	}
	for _, annotate := range p.Annotators {
		mb.annotate(annotate(r))
	}
	if p.MaxMetadataBytes > 0 && mb.size > p.MaxMetadataBytes {
		return nil, httperr.New(http.StatusRequestHeaderFieldsTooLarge, codes.ResourceExhausted,
			"request metadata larger than the limit of "+httperr.FormatBytes(int64(p.MaxMetadataBytes)))
	}
	return mb.md, nil
}

// addTraceContext adds the request's W3C trace context: traceparent if
// there is one line of it and it is valid, and then tracestate, its lines
// joined, if valid (see tracecontext.go); an invalid traceparent takes
// tracestate with it, as the W3C Trace Context asks.
func addTraceContext(mb *mdBuilder, h http.Header) {
	tp := h["Traceparent"]
	if len(tp) != 1 || !validTraceparent(tp[0]) {
		return
	}
	mb.add("traceparent", tp[0])
	ts := h["Tracestate"]
	if len(ts) == 0 {
		return
	}
	state := ts[0]
	if len(ts) > 1 {
		state = strings.Join(ts, ",")
	}
	if validTracestate(state) && validMetadataValue(state) {
		mb.add("tracestate", state)
	}
}

// Size is the size of md as HTTP/2 counts a header list: each key and
// value, and 32 bytes for each pair.
func Size(md metadata.MD) int {
	n := 0
	for k, vs := range md {
		for _, v := range vs {
			n += len(k) + len(v) + 32
		}
	}
	return n
}

// forwardedFor is the client's X-Forwarded-For lines, all of them, joined
// as one list, with the peer's address appended; a line that is not valid
// metadata is left out.
func forwardedFor(lines []string, peer string) string {
	if len(lines) == 0 {
		return peer
	}
	n := len(peer)
	for _, l := range lines {
		n += len(l) + 2
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && validMetadataValue(l) {
			b.WriteString(l)
			b.WriteString(", ")
		}
	}
	b.WriteString(peer)
	return b.String()
}

// mdBuilder fills metadata whose single values share one backing array:
// one allocation for all of a request's headers instead of one per key.
// It counts the metadata's Size as it goes.
type mdBuilder struct {
	md      metadata.MD
	backing []string
	size    int
}

// add appends v to the values of key.
func (b *mdBuilder) add(key, v string) {
	b.size += len(key) + len(v) + 32
	cur := b.md[key]
	if len(cur) == 0 && len(b.backing) < cap(b.backing) {
		b.backing = append(b.backing, v)
		n := len(b.backing)
		b.md[key] = b.backing[n-1 : n : n] // capped: a second value copies
		return
	}
	b.md[key] = append(cur, v)
}

// annotate appends an annotator's metadata. An annotator is the
// operator's code, not the client's: it may set the keys the gateway
// owns (authorization from a session cookie is the common case). Keys are
// lower-cased; a key that is not valid metadata or that gRPC reserves, and
// a value that cannot travel as metadata, are dropped, as they are from
// headers, so that neither a bad annotator nor the client input it copies
// can fail the call.
func (b *mdBuilder) annotate(md metadata.MD) {
	for key, vals := range md {
		key = strings.ToLower(key)
		if !validMetadataKey(key) || isReservedKey(key) {
			continue
		}
		bin := strings.HasSuffix(key, "-bin")
		for _, v := range vals {
			if bin || validMetadataValue(v) {
				b.md[key] = append(b.md[key], v)
				b.size += len(key) + len(v) + 32
			}
		}
	}
}

// isReservedKey reports keys that only the gRPC transport may set, and
// the names of hop-by-hop and proxy headers, which never cross the
// gateway under any name.
func isReservedKey(k string) bool {
	switch k {
	case "te", "content-type", "user-agent", "connection", "keep-alive", "transfer-encoding", "upgrade", "trailer":
		return true
	}
	return strings.HasPrefix(k, "grpc-") || strings.HasPrefix(k, "proxy-")
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
