package protorest_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// traceHeaders are a W3C trace context as a browser or a proxy sends it,
// with client headers that try to add to it through Grpc-Metadata-*.
var traceHeaders = []string{
	"Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"Tracestate", "congo=t61rcWkgMzE",
	"Baggage", "userId=alice",
	"Grpc-Metadata-Traceparent", "00-11111111111111111111111111111111-2222222222222222-01",
	"Grpc-Metadata-Baggage", "userId=mallory",
}

// wantTrace is the metadata a method must see for traceHeaders: each
// header's value under its own name, once, and nothing a client made.
var wantTrace = map[string][]string{
	"traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	"tracestate":  {"congo=t61rcWkgMzE"},
	"baggage":     {"userId=alice"},
}

// TestTraceContextForwarded: traceparent, tracestate and baggage reach
// the method as metadata of the same names, with no tracer wired
// (grpc-gateway drops them: grpc-gateway#2228), in-process and remote;
// a client cannot add a second value through Grpc-Metadata-*.
func TestTraceContextForwarded(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, md map[string][]string) {
		t.Helper()
		for k, want := range wantTrace {
			if got := md[k]; !slices.Equal(got, want) {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
	}
	t.Run("in-process", func(t *testing.T) {
		t.Parallel()
		rec := &recorder{}
		gw := newFixture(t, "A", rec)
		req := httptest.NewRequest("GET", "/v1/probes/abc", nil)
		for i := 0; i < len(traceHeaders); i += 2 {
			req.Header.Add(traceHeaders[i], traceHeaders[i+1])
		}
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		check(t, rec.last(t).md)
	})
	t.Run("remote", func(t *testing.T) {
		t.Parallel()
		be := startBackend(t, "tcp", "127.0.0.1:0")
		srv := remoteGateway(t, dial(t, be.addr))
		resp, body := send(t, "GET", srv.URL+"/v1/shelves", "", traceHeaders...)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		be.mu.Lock()
		md := be.md
		be.mu.Unlock()
		check(t, md)
	})
}
