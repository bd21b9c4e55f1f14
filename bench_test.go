package protorest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// BenchmarkUnary measures whole in-process requests through the gateway:
// route, negotiate, bind, invoke (through the generated-style handler) and
// render, with httptest's recorder as the client.
func BenchmarkUnary(b *testing.B) {
	reply := &confv1.Probe{Name: "abc", Id: 5, DisplayName: "A probe", Tags: []string{"a", "b"}}
	rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) { return reply, nil }}
	gw := newFixture(b, "A", rec)
	const post = `{"name":"abc","i32":5,"tags":["a","b"],"inner":{"s":"x"}}`
	cases := []struct {
		name, method, target, body string
		emptyBody                  bool   // a body that is not http.NoBody, as HTTP/2 gives every request
		coding                     string // the body's Content-Encoding
	}{
		{"get", "GET", "/v1/probes/abc", "", false, ""},
		{"get/h2-body", "GET", "/v1/probes/abc", "", true, ""},
		{"get/query", "GET", "/v1/probes?i32=5&tags=a&tags=b&inner.s=x", "", false, ""},
		{"post/json", "POST", "/v1/probes", post, false, ""},
		{"post/json-gzip", "POST", "/v1/probes", encode("gzip", post), false, "gzip"},
		{"post/json-zstd", "POST", "/v1/probes", encode("zstd", post), false, "zstd"},
		{"get/multi-segment", "GET", "/v1/shelves/s1/books/b2", "", false, ""},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec.mu.Lock()
				rec.calls = rec.calls[:0]
				rec.mu.Unlock()
				var body *strings.Reader
				req := httptest.NewRequest(c.method, c.target, nil)
				if c.body != "" {
					body = strings.NewReader(c.body)
					req = httptest.NewRequest(c.method, c.target, body)
				}
				if c.emptyBody {
					req.Body = io.NopCloser(strings.NewReader(""))
				}
				if c.coding != "" {
					req.Header.Set("Content-Encoding", c.coding)
				}
				w := httptest.NewRecorder()
				gw.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
