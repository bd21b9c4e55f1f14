package httperr

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestGRPCMessage: printable ASCII but '%' passes as it is; '%', control
// bytes and UTF-8 are percent-encoded, and decode back to the message.
func TestGRPCMessage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"too many gRPC calls in flight: try again", "too many gRPC calls in flight: try again"},
		{"100% sure", "100%25 sure"},
		{"line\nbreak\x7f", "line%0Abreak%7F"},
		{"café ☕", "caf%C3%A9 %E2%98%95"},
	} {
		got := GRPCMessage(tt.in)
		if got != tt.want {
			t.Errorf("GRPCMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if back, err := url.PathUnescape(got); err != nil || back != tt.in {
			t.Errorf("%q decodes to %q, %v", got, back, err)
		}
	}
}

// TestWriteGRPCStatus: a Trailers-Only answer, 200 with the status in the
// headers, its message percent-encoded; none for OK.
func TestWriteGRPCStatus(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	WriteGRPCStatus(w, "application/grpc-web+proto", status.New(codes.ResourceExhausted, "über 4 MiB"))
	h := w.Header()
	if w.Code != 200 || h.Get("Content-Type") != "application/grpc-web+proto" || h.Get("Grpc-Status") != "8" || h.Get("Grpc-Message") != "%C3%BCber 4 MiB" || w.Body.Len() != 0 {
		t.Errorf("%d %v %q", w.Code, h, w.Body)
	}
	w = httptest.NewRecorder()
	WriteGRPCStatus(w, "application/grpc", status.New(codes.OK, ""))
	if _, ok := w.Header()["Grpc-Message"]; ok || w.Header().Get("Grpc-Status") != "0" {
		t.Errorf("OK: %v", w.Header())
	}
}

func BenchmarkGRPCMessage(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		GRPCMessage("too many gRPC calls in flight: try again")
	}
}
