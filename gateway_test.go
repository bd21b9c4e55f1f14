package protorest_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
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
