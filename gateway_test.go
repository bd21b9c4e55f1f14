package protorest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

func TestInterceptors(t *testing.T) {
	t.Parallel()
	var trace []string
	mk := func(name string) grpc.UnaryServerInterceptor {
		return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			m, _ := grpc.Method(ctx)
			trace = append(trace, name+" "+info.FullMethod+" "+m)
			return h(ctx, req)
		}
	}
	deny := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if md, _ := metadata.FromIncomingContext(ctx); len(md.Get("authorization")) == 0 {
			return nil, status.Error(codes.Unauthenticated, "Bearer")
		}
		return h(ctx, req)
	}
	rec := &recorder{}
	gw := newFixture(t, "A", rec, protorest.WithUnaryInterceptors(mk("outer"), mk("inner")), protorest.WithUnaryInterceptors(deny))
	resp := do(t, gw, "GET", "/v1/probes/abc", "")
	if resp.code != 401 || resp.header.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("unauthenticated: %d %v", resp.code, resp.header)
	}
	resp = do(t, gw, "GET", "/v1/probes/abc", "", "Authorization", "Bearer x")
	if resp.code != 200 {
		t.Fatalf("status %d %s", resp.code, resp.body)
	}
	want := []string{
		"outer /conf.v1.Probes/GetProbe /conf.v1.Probes/GetProbe", "inner /conf.v1.Probes/GetProbe /conf.v1.Probes/GetProbe",
		"outer /conf.v1.Probes/GetProbe /conf.v1.Probes/GetProbe", "inner /conf.v1.Probes/GetProbe /conf.v1.Probes/GetProbe",
	}
	if fmt.Sprint(trace) != fmt.Sprint(want) {
		t.Errorf("trace = %q\nwant %q", trace, want)
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

func TestLimits(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec, protorest.WithMaxRequestBodySize(16))
	resp := do(t, gw, "POST", "/v1/probes", `{"name":"0123456789012345678901234567890"}`)
	if resp.code != 413 || !strings.Contains(resp.body, `"code":8`) {
		t.Errorf("status %d body %s", resp.code, resp.body)
	}
	// Without a Content-Length the limit still holds, and the reader is
	// not drained past it.
	src := &countingReader{n: 1 << 30}
	req := httptest.NewRequest("POST", "/v1/probes", src)
	req.ContentLength = -1
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, req)
	if w.Code != 413 || src.read > 17 {
		t.Errorf("status %d after reading %d bytes", w.Code, src.read)
	}
	if rec.count() != 0 {
		t.Error("the method was called")
	}
	long := strings.Repeat("x", 1<<20)
	resp = do(t, newFixture(t, "A", rec), "POST", "/v1/probes", `{"i32":"`+long+`"}`)
	if resp.code != 400 || len(resp.body) > 400 {
		t.Errorf("status %d, error body of %d bytes", resp.code, len(resp.body))
	}
}

type countingReader struct{ n, read int }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.read += len(p)
	return len(p), nil
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
