package otelprotorest_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// messageEvents lists a span's rpc.message events as "SENT 1", "RECEIVED 1"…
func messageEvents(s sdktrace.ReadOnlySpan) []string {
	var got []string
	for _, e := range s.Events() {
		if e.Name != "rpc.message" {
			continue
		}
		var kind string
		var id, size int64 = -1, -1
		for _, kv := range e.Attributes {
			switch kv.Key {
			case "rpc.message.type":
				kind = kv.Value.AsString()
			case "rpc.message.id":
				id = kv.Value.AsInt64()
			case "rpc.message.uncompressed_size":
				size = kv.Value.AsInt64()
			}
		}
		if size < 0 {
			kind += " (no size)"
		}
		got = append(got, fmt.Sprintf("%s %d", kind, id))
	}
	return got
}

// TestMessageEvents: a call's gRPC span has an rpc.message event per
// message each way, numbered from 1: every message of an in-process
// stream, and a remote unary call's request and response.
func TestMessageEvents(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(t)
	url := inProcess(t, tel)
	if got := get(t, url+"/api/v1/example/watch?count=3&intervalMs=10"); got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	want := []string{"RECEIVED 1", "SENT 1", "SENT 2", "SENT 3"}
	if got := messageEvents(tel.span(t, "example.v1.MySvc/Watch")); !slices.Equal(got, want) {
		t.Errorf("in-process stream: events %q, want %q", got, want)
	}

	tel = newTelemetry(t)
	url, _, _ = remote(t, tel)
	if got := get(t, url+"/v1/shelves/fiction/books/dune"); got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	want = []string{"SENT 1", "RECEIVED 1"}
	if got := messageEvents(tel.span(t, "library.v1.LibraryService/GetBook")); !slices.Equal(got, want) {
		t.Errorf("remote unary call: events %q, want %q", got, want)
	}
}
