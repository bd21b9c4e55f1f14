package main

import (
	"context"
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"

	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
)

// otlpReceiver is an OTLP/gRPC receiver, the collector's trace and
// metrics services, keeping the span and metric names it is sent.
type otlpReceiver struct {
	collectortrace.UnimplementedTraceServiceServer
	collectormetrics.UnimplementedMetricsServiceServer
	mu      sync.Mutex
	spans   map[string]string // span name → trace id (hex)
	metrics map[string]bool
}

func (o *otlpReceiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				o.spans[s.GetName()] = hex.EncodeToString(s.GetTraceId())
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// metricsService is the receiver's MetricsService (its Export method
// clashes with the trace service's).
type metricsService struct{ *otlpReceiver }

func (o metricsService) Export(_ context.Context, req *collectormetrics.ExportMetricsServiceRequest) (*collectormetrics.ExportMetricsServiceResponse, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				o.metrics[m.GetName()] = true
			}
		}
	}
	return &collectormetrics.ExportMetricsServiceResponse{}, nil
}

func startOTLPReceiver(t *testing.T) (*otlpReceiver, string) {
	o := &otlpReceiver{spans: map[string]string{}, metrics: map[string]bool{}}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, o)
	collectormetrics.RegisterMetricsServiceServer(srv, metricsService{o})
	return o, serveGRPC(t, srv)
}

// TestServeTelemetry: with --metrics-listen and --otlp-endpoint, a
// request's traceparent reaches the upstream in the same trace (the
// gateway's client span as parent), /metrics parses as Prometheus text
// with the route template's histogram, and the spans and metrics are
// exported by OTLP to a receiver.
func TestServeTelemetry(t *testing.T) {
	t.Parallel()
	otlp, otlpAddr := startOTLPReceiver(t)
	var mu sync.Mutex
	var upstreamTP []string
	up := grpc.NewServer(grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		mu.Lock()
		upstreamTP = md["traceparent"]
		mu.Unlock()
		return h(ctx, req)
	}))
	examplev1.RegisterMySvcServer(up, services.NewMySvc())
	reflection.Register(up)
	upstream := serveGRPC(t, up)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := new(syncBuffer), new(syncBuffer)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--upstream", upstream,
			"--metrics-listen", "127.0.0.1:0", "--otlp-endpoint", "http://" + otlpAddr, "--log-format", "json"}, stdout, stderr)
	}()
	base := "http://" + waitFor(t, stdout, regexp.MustCompile(`HTTP/JSON on (\S+)`))
	metricsURL := waitFor(t, stdout, regexp.MustCompile(`metrics on (\S+)`))

	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	req, _ := http.NewRequest("POST", base+"/api/v1/example/upper", strings.NewReader(`{"msg":"x"}`))
	req.Header.Set("Traceparent", "00-"+trace+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	mu.Lock()
	tp := upstreamTP
	mu.Unlock()
	if len(tp) != 1 || !strings.HasPrefix(tp[0], "00-"+trace+"-") || strings.Contains(tp[0], "00f067aa0ba902b7") {
		t.Errorf("upstream's traceparent %q: want one, in trace %s, with the gateway's span as parent", tp, trace)
	}
	// The access log's line is written within 100 ms.
	eventually(t, 5*time.Second, "the trace_id in the access log", func() (bool, string) {
		return strings.Contains(stderr.String(), `"trace_id":"`+trace+`"`), stderr.String()
	})

	resp, err = http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	h := families["http_server_request_duration_seconds"]
	if h == nil {
		t.Fatalf("no http_server_request_duration_seconds in %d families", len(families))
	}
	found := false
	for _, m := range h.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if _, ok := labels["url_path"]; ok {
			t.Errorf("a url_path label: %v", labels)
		}
		if labels["http_route"] == "/api/v1/example/upper" && labels["http_request_method"] == "POST" &&
			labels["http_response_status_code"] == "200" && m.GetHistogram().GetSampleCount() == 1 && len(m.GetHistogram().GetBucket()) > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("no histogram with buckets for POST /api/v1/example/upper 200: %v", h)
	}
	for _, name := range []string{"http_server_active_requests", "protorest_upstream_connectivity", "protorest_access_log_dropped_total"} {
		if families[name] == nil {
			t.Errorf("no %s on /metrics", name)
		}
	}

	cancel() // serve flushes its exporters as it stops
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
	otlp.mu.Lock()
	defer otlp.mu.Unlock()
	if got := otlp.spans["POST /api/v1/example/upper"]; got != trace {
		t.Errorf("OTLP: the HTTP span's trace %q, want %s (spans: %v)", got, trace, otlp.spans)
	}
	if _, ok := otlp.spans["example.v1.MySvc/Upper"]; !ok {
		t.Errorf("OTLP: no client span (spans: %v)", otlp.spans)
	}
	for _, name := range []string{"http.server.request.duration", "protorest.upstream.connectivity"} {
		if !otlp.metrics[name] {
			t.Errorf("OTLP: no metric %s (got %v)", name, otlp.metrics)
		}
	}
}
