package otelprotorest_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
	"github.com/protorest/protorest/otelprotorest"
)

// BenchmarkGetBook is GET /v1/shelves/fiction/books/dune through a
// gateway, in-process and remote (a grpc.Server on loopback), without
// telemetry ("off": the bare gateway) and with it ("on": NewHandler,
// GatewayOption or DialOption, an SDK tracer provider sampling every
// request (the traceparent's sampled flag) and ending its spans into a
// no-op exporter, an SDK meter provider with a manual reader), with a
// traceparent on the request. The difference is the cost of traces and
// metrics per request, short of exporting them.
func BenchmarkGetBook(b *testing.B) {
	for _, mode := range []string{"in-process", "remote"} {
		for _, on := range []bool{false, true} {
			name := mode + "/off"
			if on {
				name = mode + "/on"
			}
			b.Run(name, func(b *testing.B) {
				h := benchGateway(b, mode, on)
				req := httptest.NewRequest("GET", "/v1/shelves/fiction/books/dune", nil)
				req.Header.Set("Traceparent", traceparent)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
				}
			})
		}
	}
}

func benchGateway(b *testing.B, mode string, on bool) http.Handler {
	var opts []otelprotorest.Option
	if on {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		b.Cleanup(func() {
			tp.Shutdown(context.Background())
			mp.Shutdown(context.Background())
		})
		opts = []otelprotorest.Option{otelprotorest.WithTracerProvider(tp), otelprotorest.WithMeterProvider(mp)}
	}
	var gw *protorest.Gateway
	switch mode {
	case "in-process":
		var gwOpts []protorest.Option
		if on {
			gwOpts = append(gwOpts, otelprotorest.GatewayOption(opts...))
		}
		gw = protorest.NewGateway(gwOpts...)
		libraryv1.RegisterLibraryServiceServer(gw, services.NewLibrary())
	case "remote":
		gs := grpc.NewServer()
		libraryv1.RegisterLibraryServiceServer(gs, services.NewLibrary())
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		go gs.Serve(lis)
		b.Cleanup(gs.Stop)
		dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
		if on {
			dial = append(dial, otelprotorest.DialOption(opts...))
		}
		conn, err := grpc.NewClient(lis.Addr().String(), dial...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		gw = protorest.NewGateway()
		if err := gw.RegisterRemote(context.Background(), conn, protorest.WithRemoteFiles(protoregistry.GlobalFiles, "library.v1.LibraryService")); err != nil {
			b.Fatal(err)
		}
	}
	if !on {
		return gw
	}
	return otelprotorest.NewHandler(gw, opts...)
}
