package protorest_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
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

func TestMetadata(t *testing.T) {
	t.Parallel()
	rec := &recorder{reply: func(method string, req proto.Message) (proto.Message, error) {
		return &confv1.Probe{}, nil
	}}
	var ctxSeen context.Context
	capture := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		ctxSeen = ctx
		grpc.SetHeader(ctx, metadata.Pairs("x-req-id", "7", "data-bin", "\x00\x01"))
		grpc.SetTrailer(ctx, metadata.Pairs("x-t", "1"))
		return h(ctx, req)
	}
	gw := newFixture(t, "A", rec, protorest.WithUnaryInterceptors(capture))
	srv := httptest.NewServer(gw)
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/v1/probes/abc", nil)
	req.Header.Set("Grpc-Metadata-Tenant", "t1")
	req.Header.Set("Accept-Language", "fr")
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Grpc-Metadata-Grpc-Status", "0") // spoofed reserved key
	req.Header.Set("X-Forwarded-For", "10.0.0.1")
	req.Header.Set("Grpc-Timeout", "1S")
	req.Header.Set("Te", "trailers")
	req.Header.Set("Connection", "keep-alive")
	req.Header.Add("Grpc-Metadata-Tag", "a")
	req.Header.Add("Grpc-Metadata-Tag", "b")
	req.Header.Add("Grpc-Metadata-Other", "o")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	md := rec.last(t).md
	for k, want := range map[string]string{
		"tenant":                      "t1",
		"grpcgateway-accept-language": "fr",
		"authorization":               "Bearer tok",
		"x-forwarded-for":             "10.0.0.1, 127.0.0.1",
	} {
		if got := md.Get(k); len(got) != 1 || got[0] != want {
			t.Errorf("metadata %s = %q, want %q", k, got, want)
		}
	}
	// Values of several keys share one array: each key keeps its own.
	if got := md.Get("tag"); len(got) != 2 || got[0] != "a" || got[1] != "b" || md.Get("other")[0] != "o" {
		t.Errorf("multi-valued metadata: tag %q, other %q", got, md.Get("other"))
	}
	for _, k := range []string{"grpc-status", "connection", "te", "grpc-timeout"} {
		if got := md.Get(k); len(got) != 0 {
			t.Errorf("metadata %s = %q, want it dropped", k, got)
		}
	}
	if dl, ok := ctxSeen.Deadline(); !ok || time.Until(dl) > time.Second {
		t.Errorf("deadline = %v, %v", dl, ok)
	}
	if p, ok := peer.FromContext(ctxSeen); !ok || !strings.HasPrefix(p.Addr.String(), "127.0.0.1:") {
		t.Errorf("peer = %v", p)
	}
	if got := resp.Header.Get("Grpc-Metadata-X-Req-Id"); got != "7" {
		t.Errorf("Grpc-Metadata-X-Req-Id = %q", got)
	}
	if got := resp.Header.Get("Grpc-Metadata-Data-Bin"); got != "AAE=" {
		t.Errorf("Grpc-Metadata-Data-Bin = %q", got)
	}
	if got := resp.Trailer.Get("Grpc-Trailer-X-T"); got != "1" {
		t.Errorf("trailer Grpc-Trailer-X-T = %q (trailers %v)", got, resp.Trailer)
	}

	// Without "TE: trailers" no trailers, and a Content-Length.
	r2 := do(t, gw, "GET", "/v1/probes/abc", "")
	if r2.header.Get("Content-Length") == "" {
		t.Error("no Content-Length without trailers")
	}
	bad := do(t, gw, "GET", "/v1/probes/abc", "", "Grpc-Timeout", "abc")
	if bad.code != 400 {
		t.Errorf("bad Grpc-Timeout: status %d", bad.code)
	}
}

// TestTrailersHTTP2 checks trailer metadata over HTTP/2 as well as
// HTTP/1.1 (TestMetadata).
func TestTrailersHTTP2(t *testing.T) {
	t.Parallel()
	setTrailer := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		grpc.SetTrailer(ctx, metadata.Pairs("x-t", "2"))
		return h(ctx, req)
	}
	gw := newFixture(t, "A", &recorder{}, protorest.WithUnaryInterceptors(setTrailer))
	srv := httptest.NewUnstartedServer(gw)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/v1/probes/abc", nil)
	req.Header.Set("Te", "trailers")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Fatalf("proto %d status %d err %v: %s", resp.ProtoMajor, resp.StatusCode, err, body)
	}
	if got := resp.Trailer.Get("Grpc-Trailer-X-T"); got != "2" {
		t.Errorf("trailer = %q (trailers %v)", got, resp.Trailer)
	}
}

func TestTrailersOnErrors(t *testing.T) {
	t.Parallel()
	fail := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		grpc.SetTrailer(ctx, metadata.Pairs("retry-after", "3"))
		return nil, status.Error(codes.Unavailable, "later")
	}
	srv := httptest.NewServer(newFixture(t, "A", &recorder{}, protorest.WithUnaryInterceptors(fail)))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/v1/probes/abc", nil)
	req.Header.Set("Te", "trailers")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != 503 || !strings.Contains(body, `"code":14`) {
		t.Errorf("status %d: %s", resp.StatusCode, body)
	}
	if got := resp.Trailer.Get("Grpc-Trailer-Retry-After"); got != "3" {
		t.Errorf("trailer = %q (%v)", got, resp.Trailer)
	}
}
