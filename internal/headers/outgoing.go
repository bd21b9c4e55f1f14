package headers

import (
	"encoding/base64"
	"net/http"
	"strings"

	"google.golang.org/grpc/metadata"
)

// Write copies md into h under prefix plus the names matcher gives
// (prefix is "" or http.TrailerPrefix); binary values are base64-encoded,
// and values that cannot be header values are dropped. The keys of the
// gRPC hop itself (content-type: application/grpc, grpc-encoding, the
// other reserved keys that grpc-go hands on with a backend's header) say
// nothing of the HTTP response and are never written.
func Write(h http.Header, md metadata.MD, matcher Matcher, prefix string) {
	for k, vs := range md {
		if isReservedKey(k) {
			continue
		}
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

// DeclareTrailers announces the trailers md will become, before the
// header is written: an HTTP/1.1 server otherwise sends a short response
// with a Content-Length and no trailers.
func DeclareTrailers(h http.Header, md metadata.MD, matcher Matcher) {
	for k := range md {
		if isReservedKey(k) {
			continue
		}
		if name, ok := matcher(k); ok {
			h.Add("Trailer", http.CanonicalHeaderKey(name))
		}
	}
}

// AcceptsTrailers reports whether the client said "TE: trailers".
func AcceptsTrailers(r *http.Request) bool {
	return HasToken(r.Header, "Te", "trailers")
}

// HasToken reports whether the list-valued header key holds token,
// ignoring case and any ";parameters".
func HasToken(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for part := range strings.SplitSeq(v, ",") {
			if t, _, _ := strings.Cut(part, ";"); strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// List returns the values of a list-valued header as one list: repeated
// header lines combine as if joined with commas (RFC 9110 §5.3).
func List(h http.Header, key string) string {
	vs := h.Values(key)
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return strings.Join(vs, ",")
}

func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
