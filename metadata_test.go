package protorest_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/protorest/protorest"
)

// TestMetadataCannotBeSpoofed: the keys the gateway owns (grpcgateway-*,
// authorization, x-forwarded-*) come only from the headers they stand
// for; Proxy-* headers never reach the method; every X-Forwarded-For line
// is kept; X-Forwarded-Host is believed only from a trusted proxy.
func TestMetadataCannotBeSpoofed(t *testing.T) {
	t.Parallel()
	spoof := [][2]string{
		{"Authorization", "Bearer real"},
		{"Grpc-Metadata-Grpcgateway-Authorization", "Bearer spoof"},
		{"Grpc-Metadata-Grpcgateway-Cookie", "session=spoof"},
		{"Grpc-Metadata-Authorization", "Bearer spoof"},
		{"Grpc-Metadata-X-Forwarded-Host", "evil.example"},
		{"Grpc-Metadata-X-Forwarded-For", "6.6.6.6"},
		{"Proxy-Authorization", "Basic cHJveHk="},
		{"Grpc-Metadata-Proxy-Authorization", "Basic cHJveHk="},
		{"X-Forwarded-Host", "evil.example"},
		{"X-Forwarded-For", "10.0.0.1"},
		{"X-Forwarded-For", "10.0.0.2, 10.0.0.3"},
		{"Grpc-Metadata-Tenant", "t1"},
	}
	for _, tt := range []struct {
		name string
		opts []protorest.Option
		host string
	}{
		{"no trusted proxy", nil, "api.example"},
		{"trusted proxy", []protorest.Option{protorest.WithTrustedProxies("192.0.2.0/24", "2001:db8::1")}, "evil.example"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			gw := newFixture(t, "A", rec, tt.opts...)
			req := httptest.NewRequest("GET", "http://api.example/v1/probes/abc", nil)
			req.RemoteAddr = "192.0.2.7:4242"
			for _, h := range spoof {
				req.Header.Add(h[0], h[1])
			}
			w := httptest.NewRecorder()
			gw.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			md := rec.last(t).md
			for k, want := range map[string][]string{
				"authorization":             {"Bearer real"},
				"grpcgateway-authorization": {"Bearer real"},
				"grpcgateway-cookie":        nil,
				"x-forwarded-host":          {tt.host},
				"x-forwarded-for":           {"10.0.0.1, 10.0.0.2, 10.0.0.3, 192.0.2.7"},
				"proxy-authorization":       nil,
				"tenant":                    {"t1"},
			} {
				if got := md.Get(k); !slices.Equal(got, want) {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			for k := range md {
				if k == "grpcgateway-proxy-authorization" || k == "grpcgateway-x-forwarded-host" {
					t.Errorf("metadata %s = %q", k, md[k])
				}
			}
		})
	}
}
