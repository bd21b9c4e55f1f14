package otelprotorest_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
	"github.com/protorest/protorest/otelprotorest"
)

// telemetry is an SDK tracer and meter provider that keep what they get
// in memory: ended spans, and the metrics of a manual collection.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	opts   []otelprotorest.Option
}

func newTelemetry(t *testing.T) *telemetry {
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	tel.opts = []otelprotorest.Option{otelprotorest.WithTracerProvider(tp), otelprotorest.WithMeterProvider(mp),
		otelprotorest.WithServerName("gateway.test")}
	return tel
}

// span returns the one ended span named name.
func (tel *telemetry) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range tel.spans.Ended() {
			names = append(names, s.Name())
		}
		t.Fatalf("%d spans named %q; ended: %q", len(found), name, names)
	}
	return found[0]
}

// metric returns the metric named name of a collection.
func (tel *telemetry) metric(t *testing.T, name string) metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

// failInternal is an interceptor that fails the calls whose metadata
// has x-fail (the header Grpc-Metadata-X-Fail) with INTERNAL: a 500.
func failInternal(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if md, _ := metadata.FromIncomingContext(ctx); len(md["x-fail"]) > 0 {
		return nil, status.Error(codes.Internal, "failed as asked")
	}
	return h(ctx, req)
}

// inProcess serves the library and example services in-process behind
// NewHandler on a loopback HTTP server.
func inProcess(t *testing.T, tel *telemetry) string {
	gw := protorest.NewGateway(otelprotorest.GatewayOption(tel.opts...),
		protorest.WithUnaryInterceptors(failInternal))
	libraryv1.RegisterLibraryServiceServer(gw, services.NewLibrary())
	examplev1.RegisterMySvcServer(gw, services.NewMySvc())
	srv := httptest.NewServer(otelprotorest.NewHandler(gw, tel.opts...))
	t.Cleanup(srv.Close)
	return srv.URL
}

// backend is a grpc.Server on loopback with the library, reflection, and
// the metadata of the last call it served.
type backend struct {
	mu sync.Mutex
	md metadata.MD
}

func (b *backend) lastMetadata() metadata.MD {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.md
}

// remote serves the library of a backend grpc.Server through a gateway
// whose connection has DialOption, behind NewHandler on a loopback HTTP
// server.
func remote(t *testing.T, tel *telemetry) (string, *backend, *grpc.ClientConn) {
	be := &backend{}
	gs := grpc.NewServer(grpc.ChainUnaryInterceptor(
		func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			md, _ := metadata.FromIncomingContext(ctx)
			be.mu.Lock()
			be.md = md
			be.mu.Unlock()
			return h(ctx, req)
		}, failInternal))
	libraryv1.RegisterLibraryServiceServer(gs, services.NewLibrary())
	reflection.Register(gs)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		otelprotorest.DialOption(tel.opts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	gw := protorest.NewGateway()
	if err := gw.RegisterRemote(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(otelprotorest.NewHandler(gw, tel.opts...))
	t.Cleanup(srv.Close)
	return srv.URL, be, conn
}

// get sends a GET with the header pairs kv and returns the status.
func get(t *testing.T, url string, kv ...string) int {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
