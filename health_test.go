package protorest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/protorest/protorest"
)

// TestHealthEndpoint: a grpc.health.v1 server on a real gRPC server,
// checked over HTTP as grpc-gateway's WithHealthzEndpoint does: 200 and
// the response when SERVING, 503 when not, 404 for an unknown service,
// with the request's metadata and the annotators' on the check.
func TestHealthEndpoint(t *testing.T) {
	t.Parallel()
	hs := health.NewServer()
	hs.SetServingStatus("app.v1.Up", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("app.v1.Down", healthpb.HealthCheckResponse_NOT_SERVING)
	seen := make(chan metadata.MD, 10)
	srv := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		seen <- md
		return h(ctx, req)
	}))
	healthpb.RegisterHealthServer(srv, hs)

	gw := protorest.NewGateway(
		protorest.WithHealthEndpoint("/healthz", healthpb.NewHealthClient(dial(t, serveGRPC(t, srv)))),
		protorest.WithMetadata(func(*http.Request) metadata.MD { return metadata.Pairs("x-probe", "k8s") }),
	)
	web := httptest.NewServer(gw)
	t.Cleanup(web.Close)
	for _, tt := range []struct {
		query string
		code  int
		body  string
	}{
		{"", 200, `{"status":"SERVING"}`},
		{"?service=app.v1.Up", 200, `{"status":"SERVING"}`},
		{"?service=app.v1.Down", 503, `{"code":14,"message":"NOT_SERVING","details":[]}`},
		{"?service=app.v1.Nope", 404, `{"code":5,"message":"unknown service","details":[]}`},
	} {
		got := fetch(t, "GET", web.URL+"/healthz"+tt.query, "", "Grpc-Metadata-Tenant", "t1")
		if got.code != tt.code || got.body != tt.body {
			t.Errorf("%s: %d %s\nwant %d %s", tt.query, got.code, got.body, tt.code, tt.body)
		}
		md := <-seen
		if md.Get("tenant")[0] != "t1" || md.Get("x-probe")[0] != "k8s" {
			t.Errorf("%s: the check's metadata %v", tt.query, md)
		}
	}
	if got := fetch(t, "POST", web.URL+"/healthz", ""); got.code != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz: %d", got.code)
	}
}
