package otelprotorest_test

import (
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// incoming is the trace context of a client's span, as a browser or a
// proxy sends it.
const (
	incomingTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	incomingParent = "00f067aa0ba902b7"
	traceparent    = "00-" + incomingTrace + "-" + incomingParent + "-01"
)

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if g, ok := got[attribute.Key(k)]; !ok || g.Emit() != v {
			t.Errorf("span %q: %s = %q (set: %v), want %q", s.Name(), k, g.Emit(), ok, v)
		}
	}
}

// TestSpans: a server span per request named by its route template, with
// http.route and the call's rpc.* attributes, child of the incoming
// traceparent and parent of the gRPC call's span, in-process and remote;
// Error only for 5xx.
func TestSpans(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// serve returns the gateway's URL and the name of the gRPC
		// span that must be the HTTP span's child.
		serve func(*testing.T, *telemetry) string
		kind  trace.SpanKind
	}{
		{"in-process", inProcess, trace.SpanKindServer},
		{"remote", func(t *testing.T, tel *telemetry) string { url, _, _ := remote(t, tel); return url }, trace.SpanKindClient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				path, fail string
				status     int
				code       string
				spanStatus otelcodes.Code
			}{
				{"/v1/shelves/fiction/books/dune", "", http.StatusOK, "OK", otelcodes.Unset},
				{"/v1/shelves/fiction/books/nope", "", http.StatusNotFound, "NOT_FOUND", otelcodes.Unset},
				{"/v1/shelves/fiction/books/dune", "1", http.StatusInternalServerError, "INTERNAL", otelcodes.Error},
			} {
				tel := newTelemetry(t)
				url := tc.serve(t, tel)
				kv := []string{"Traceparent", traceparent}
				if c.fail != "" {
					kv = append(kv, "Grpc-Metadata-X-Fail", c.fail)
				}
				if got := get(t, url+c.path, kv...); got != c.status {
					t.Fatalf("GET %s: %d, want %d", c.path, got, c.status)
				}
				h := tel.span(t, "GET /v1/{name=shelves/*/books/*}")
				if h.SpanKind() != trace.SpanKindServer {
					t.Errorf("HTTP span kind %v", h.SpanKind())
				}
				if got := h.SpanContext().TraceID().String(); got != incomingTrace {
					t.Errorf("HTTP span trace %s, want the incoming %s", got, incomingTrace)
				}
				if got := h.Parent().SpanID().String(); got != incomingParent || !h.Parent().IsRemote() {
					t.Errorf("HTTP span parent %s (remote %v), want the incoming %s", got, h.Parent().IsRemote(), incomingParent)
				}
				if h.Status().Code != c.spanStatus {
					t.Errorf("%d: HTTP span status %v, want %v", c.status, h.Status().Code, c.spanStatus)
				}
				wantAttrs(t, h, map[string]string{
					"http.route":                "/v1/{name=shelves/*/books/*}",
					"http.request.method":       "GET",
					"http.response.status_code": itoa(c.status),
					"url.path":                  c.path,
					"rpc.system.name":           "grpc",
					"rpc.method":                "library.v1.LibraryService/GetBook",
					"rpc.response.status_code":  c.code,
					"server.address":            "gateway.test",
				})
				g := tel.span(t, "library.v1.LibraryService/GetBook")
				if g.SpanKind() != tc.kind {
					t.Errorf("gRPC span kind %v, want %v", g.SpanKind(), tc.kind)
				}
				if g.Parent().SpanID() != h.SpanContext().SpanID() || g.SpanContext().TraceID() != h.SpanContext().TraceID() {
					t.Errorf("gRPC span's parent %s/%s, want the HTTP span %s/%s",
						g.Parent().TraceID(), g.Parent().SpanID(), h.SpanContext().TraceID(), h.SpanContext().SpanID())
				}
			}
		})
	}
}

// TestRemoteTraceparent: the backend gets one traceparent, the client
// span's: the gateway's raw forward of the incoming one is replaced.
func TestRemoteTraceparent(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t)
	url, be, _ := remote(t, tel)
	if got := get(t, url+"/v1/shelves/fiction/books/dune", "Traceparent", traceparent); got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	g := tel.span(t, "library.v1.LibraryService/GetBook")
	want := "00-" + incomingTrace + "-" + g.SpanContext().SpanID().String() + "-01"
	if got := be.lastMetadata()["traceparent"]; len(got) != 1 || got[0] != want {
		t.Errorf("backend's traceparent %q, want [%q]", got, want)
	}
}

// TestSpanWithoutRoute: an unmatched request's span is named by its
// method alone, has no rpc.* attributes, and is not an error.
func TestSpanWithoutRoute(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t)
	url := inProcess(t, tel)
	if got := get(t, url+"/no/such/route"); got != http.StatusNotFound {
		t.Fatalf("status %d", got)
	}
	s := tel.span(t, "GET")
	if s.Status().Code != otelcodes.Unset {
		t.Errorf("status %v", s.Status().Code)
	}
	for _, k := range []attribute.Key{"http.route", "rpc.method", "rpc.system.name"} {
		if v, ok := attrs(s)[k]; ok {
			t.Errorf("%s = %q on an unmatched request", k, v.Emit())
		}
	}
}

// TestStreamSpan: a server stream is one span, with an event counting
// its messages, and the messages are counted in metrics.
func TestStreamSpan(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t)
	url := inProcess(t, tel)
	if got := get(t, url+"/api/v1/example/watch?count=3&intervalMs=10"); got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	h := tel.span(t, "GET /api/v1/example/watch")
	var found bool
	for _, e := range h.Events() {
		if e.Name != "messages" {
			continue
		}
		found = true
		got := map[attribute.Key]int64{}
		for _, kv := range e.Attributes {
			got[kv.Key] = kv.Value.AsInt64()
		}
		if got["protorest.stream.messages.received"] != 1 || got["protorest.stream.messages.sent"] != 3 {
			t.Errorf("messages event %v, want 1 received, 3 sent", got)
		}
	}
	if !found {
		t.Errorf("no messages event: %v", h.Events())
	}
	msgs := tel.metric(t, "protorest.stream.messages.sent").(metricdata.Sum[int64])
	if len(msgs.DataPoints) != 1 || msgs.DataPoints[0].Value != 3 {
		t.Errorf("protorest.stream.messages.sent: %+v", msgs.DataPoints)
	}
}
