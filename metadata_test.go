package protorest_test

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"

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

// TestWithMetadata: an annotator's metadata reaches the method, in-process
// and remote, appended to the headers'; it may set the keys a client may
// not (authorization from a cookie); reserved keys and values that are
// not metadata are dropped; and it counts against the metadata limit.
func TestWithMetadata(t *testing.T) {
	t.Parallel()
	annotate := func(r *http.Request) metadata.MD {
		md := metadata.MD{"X-Route": {r.Pattern}, "grpc-timeout": {"1S"}, "x-bad": {"a\nb"}}
		if c, err := r.Cookie("session"); err == nil {
			md.Append("authorization", "Bearer "+c.Value)
		}
		if r.Header.Get("X-Big") != "" {
			md.Set("x-big", strings.Repeat("x", 9000))
		}
		return md
	}
	second := func(*http.Request) metadata.MD { return metadata.Pairs("x-route", "second") }
	urls := optionGateways(t, protorest.WithMetadata(annotate), protorest.WithMetadata(second))
	for _, kind := range slices.Sorted(maps.Keys(urls)) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			target := urls[kind] + "/v1/probes/p?tags=authorization&tags=x-route&tags=grpc-timeout&tags=x-bad&tags=tenant"
			got := fetch(t, "GET", target, "", "Cookie", "session=s3cret", "Authorization", "Basic dTpw", "Grpc-Metadata-Tenant", "t1")
			if got.code != http.StatusOK {
				t.Fatalf("status %d: %s", got.code, got.body)
			}
			want := `{"name":"p","tags":["authorization=Basic dTpw","authorization=Bearer s3cret","x-route=/v1/probes/{name}","x-route=second","tenant=t1"]}`
			if got.body != want {
				t.Errorf("body %s\nwant %s", got.body, want)
			}
			big := fetch(t, "GET", urls[kind]+"/v1/probes/p", "", "X-Big", "1")
			if big.code != http.StatusRequestHeaderFieldsTooLarge {
				t.Errorf("9000 bytes of annotated metadata: status %d, want 431: %s", big.code, big.body)
			}
		})
	}
}
