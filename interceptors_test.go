package protorest_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

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

func TestStreamInterceptors(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	record := func(name string) grpc.StreamServerInterceptor {
		return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			m, _ := grpc.Method(ss.Context())
			mu.Lock()
			seen = append(seen, fmt.Sprintf("%s %s %s client=%v server=%v", name, info.FullMethod, m, info.IsClientStream, info.IsServerStream))
			mu.Unlock()
			return h(srv, ss)
		}
	}
	gw := protorest.NewGateway(protorest.WithStreamInterceptors(record("outer"), record("inner")))
	confv1.RegisterProbesServer(gw, newStreamer())
	if r := do(t, gw, "GET", "/v1/watch/w?i32=1", ""); r.code != 200 {
		t.Fatalf("watch: %d %s", r.code, r.body)
	}
	want := []string{
		"outer /conf.v1.Probes/Watch /conf.v1.Probes/Watch client=false server=true",
		"inner /conf.v1.Probes/Watch /conf.v1.Probes/Watch client=false server=true",
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("interceptors saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
