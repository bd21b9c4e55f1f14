package bench

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/protorest/protorest"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// BenchmarkCompression measures ListItems-500 (about 130 KiB of JSON)
// through protorest in-process: without WithCompression, and with it for
// a client that accepts nothing, gzip or zstd. wire-B/op is the size of
// the body the client gets.
func BenchmarkCompression(b *testing.B) {
	lib := NewLibrary()
	plain := protorest.NewGateway()
	libraryv1.RegisterLibraryServer(plain, lib)
	compressed := protorest.NewGateway(protorest.WithCompression(protorest.Compression{}))
	libraryv1.RegisterLibraryServer(compressed, lib)
	for _, tt := range []struct {
		name   string
		gw     http.Handler
		accept string
	}{
		{"off", plain, ""},
		{"on/identity", compressed, ""},
		{"on/gzip", compressed, "gzip"},
		{"on/zstd", compressed, "zstd"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			var wire int
			for b.Loop() {
				r := httptest.NewRequestWithContext(b.Context(), "GET", "/v1/items?n=500", nil)
				if tt.accept != "" {
					r.Header.Set("Accept-Encoding", tt.accept)
				}
				w := httptest.NewRecorder()
				tt.gw.ServeHTTP(w, r)
				if w.Code != http.StatusOK || w.Header().Get("Content-Encoding") != tt.accept {
					b.Fatalf("status %d, Content-Encoding %q", w.Code, w.Header().Get("Content-Encoding"))
				}
				wire = w.Body.Len()
			}
			b.ReportMetric(float64(wire), "wire-B/op")
		})
	}
}
