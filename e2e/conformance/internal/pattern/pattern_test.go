package pattern

import (
	"slices"
	"testing"
)

// Names as the runner prints them (connectconformance v1.0.7).
const (
	basicGRPCJSON  = "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:false/unary/success"
	basicGRPCProto = "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_PROTO/Compression:COMPRESSION_GZIP/TLS:false/unary/success"
	basicGRPCImpl  = "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_PROTO/Compression:COMPRESSION_GZIP/TLS:false/(grpc client impl)/unary/success"
	basicWebStream = "Basic/HTTPVersion:1/Protocol:PROTOCOL_GRPC_WEB/Codec:CODEC_PROTO/Compression:COMPRESSION_IDENTITY/TLS:true/server-stream/success"
	mapping        = "Connect to HTTP Code Mapping/HTTPVersion:2/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:true/unary/out-of-range"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{basicGRPCJSON, basicGRPCJSON, true},
		{"**", basicGRPCJSON, true},
		{"Basic/**", basicGRPCJSON, true},
		{"Basic/**/unary/success", basicGRPCJSON, true},
		{"Basic/**/unary/success", basicWebStream, false},
		{"Basic/*/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/**", basicGRPCJSON, true},
		{"Basic/*/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/**", basicGRPCProto, false},
		{"**/Protocol:PROTOCOL_GRPC/**", basicGRPCImpl, true},
		{"**/Protocol:PROTOCOL_GRPC/**", mapping, false},
		{"Connect to HTTP Code Mapping/**", mapping, true},
		{"Basic/*/unary/success", basicGRPCJSON, false}, // * is one component
		{"Basic/HTTPVersion:2", basicGRPCJSON, false},   // the whole name must match
		{"Basic/**/success/**", basicGRPCJSON, true},    // ** matches none too
	} {
		if got := Match(tc.pattern, tc.name); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// TestCover checks Cover's promise on names of the runner's: every wanted
// name matched, no avoided one, and fewer patterns than names where
// names share their failures.
func TestCover(t *testing.T) {
	var want, avoid []string
	for _, version := range []string{"1", "2"} {
		for _, tls := range []string{"false", "true"} {
			for _, tc := range []string{"unary/success", "server-stream/success", "client-stream/success"} {
				prefix := "Basic/HTTPVersion:" + version + "/Protocol:PROTOCOL_CONNECT/Codec:CODEC_JSON/Compression:COMPRESSION_IDENTITY/TLS:" + tls + "/"
				// Everything fails but a unary call over HTTP/1.1.
				if version == "1" && tc == "unary/success" {
					avoid = append(avoid, prefix+tc)
				} else {
					want = append(want, prefix+tc)
				}
			}
		}
	}
	want = append(want, mapping)
	avoid = append(avoid, basicGRPCJSON)
	got := Cover(want, avoid)
	for _, name := range want {
		if !MatchAny(got, name) {
			t.Errorf("%s: not matched by %q", name, got)
		}
	}
	for _, name := range avoid {
		if MatchAny(got, name) {
			t.Errorf("%s: matched by %q", name, got)
		}
	}
	if len(got) >= len(want)/2 {
		t.Errorf("Cover made %d patterns for %d names: %q", len(got), len(want), got)
	}
	if !slices.Contains(got, "Connect to HTTP Code Mapping/**") {
		t.Errorf("Cover(...) = %q, want the whole mapping suite as one pattern", got)
	}
}

// TestCredited checks the runner's order: a literal component before "*",
// "*" before "**"; a pattern that is never first is not credited.
func TestCredited(t *testing.T) {
	exact := "Basic/HTTPVersion:2/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:false/**"
	star := "Basic/*/Protocol:PROTOCOL_GRPC/Codec:CODEC_JSON/Compression:COMPRESSION_GZIP/TLS:false/**"
	any := "Basic/**"
	got := credited([]string{star, exact, any}, []string{basicGRPCJSON, basicWebStream})
	if !got[exact] || got[star] || !got[any] {
		t.Errorf("credited = %v, want %q and %q only", got, exact, any)
	}
}

// TestCoverDropsShadowedPatterns: Cover leaves out a pattern whose names
// the runner credits to another one first.
func TestCoverDropsShadowedPatterns(t *testing.T) {
	var want []string
	for _, v := range []string{"1", "2"} {
		for _, tc := range []string{"unary/success", "server-stream/success"} {
			want = append(want, "Basic/HTTPVersion:"+v+"/Protocol:PROTOCOL_CONNECT/Codec:CODEC_JSON/Compression:COMPRESSION_IDENTITY/TLS:false/"+tc)
		}
	}
	// The first name can take only its exact pattern; the second can have
	// its axes but not its test case wildcarded.
	avoid := []string{
		"Basic/HTTPVersion:1/Protocol:PROTOCOL_CONNECT/Codec:CODEC_JSON/Compression:COMPRESSION_IDENTITY/TLS:false/client-stream/success",
		"Basic/HTTPVersion:2/Protocol:PROTOCOL_CONNECT/Codec:CODEC_JSON/Compression:COMPRESSION_IDENTITY/TLS:false/client-stream/success",
	}
	got := Cover(want, avoid)
	used := credited(got, want)
	for _, p := range got {
		if !used[p] {
			t.Errorf("Cover kept %q, which the runner credits with no name (%q)", p, got)
		}
	}
	for _, name := range want {
		if !MatchAny(got, name) {
			t.Errorf("%s: not matched by %q", name, got)
		}
	}
}
