package headers

import (
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// TestGRPCMetadata: a gRPC client's headers pass under their own names,
// but for the keys the gateway owns, which it sets itself, an invalid
// trace context, the hop's own keys, and a value that is no metadata.
func TestGRPCMetadata(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("POST", "http://api.example/pkg.Svc/M", nil)
	r.RemoteAddr = "192.0.2.1:1234"
	for _, kv := range [][2]string{
		{"X-Tenant", "a"}, {"X-Tenant", "b"}, {"Authorization", "Bearer t"}, {"Baggage", "k=v"},
		{"X-Id-Bin", "AAE"}, {"Content-Length", "9"}, {"Content-Type", "application/grpc"}, {"Te", "trailers"},
		{"Grpc-Timeout", "1S"}, {"User-Agent", "grpc-go"}, {"Connection", "x"},
		{"X-Forwarded-For", "6.6.6.6"}, {"X-Forwarded-Host", "evil"}, {"X-Forwarded-Proto", "https"},
		{"Forwarded", "for=6.6.6.6"}, {"X-Real-Ip", "6.6.6.6"}, {"X-Envoy-External-Address", "6.6.6.6"},
		{"Grpcgateway-Authorization", "Bearer spoof"}, {"Traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"},
		{"Tracestate", "a=1"}, {"X-Bad", "a\x01b"},
	} {
		r.Header.Add(kv[0], kv[1])
	}
	p := &Policy{MaxMetadataBytes: 8 << 10}
	md, err := p.GRPCMetadata(r)
	if err != nil {
		t.Fatal(err)
	}
	want := metadata.MD{
		"x-tenant": {"a", "b"}, "authorization": {"Bearer t"}, "baggage": {"k=v"}, "x-id-bin": {"\x00\x01"},
		"x-forwarded-for": {"6.6.6.6, 192.0.2.1"}, "x-forwarded-host": {"api.example"},
	}
	if len(md) != len(want) {
		t.Errorf("metadata %q, want %q", md, want)
	}
	for k, vs := range want {
		if strings.Join(md[k], "|") != strings.Join(vs, "|") {
			t.Errorf("%s = %q, want %q", k, md[k], vs)
		}
	}

	r.Header.Set("X-Big", strings.Repeat("x", 8<<10))
	if _, err := p.GRPCMetadata(r); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("8 KiB more: %v, want RESOURCE_EXHAUSTED", err)
	}
	r.Header.Del("X-Big")
	r.Header.Set("X-Id-Bin", "!!")
	if _, err := p.GRPCMetadata(r); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a binary value that is not base64: %v, want INVALID_ARGUMENT", err)
	}
}
