package protorest_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
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
		{"patch/field-body", "PATCH", "/v1/probes/abc", `{"s":"x"}`, false, ""},
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

// BenchmarkServerStream measures a 10,000-message server stream over a
// real HTTP/1.1 connection, in-process and through a gRPC backend, per
// framing: messages per second, and allocations per message. An op is a
// whole stream, so allocs/op is per 10,000 messages; allocs/msg divides
// it out. Both count the whole process: the HTTP client and, for
// "remote", the gRPC backend, as well as the gateway.
func BenchmarkServerStream(b *testing.B) {
	const n = 10000
	urls, _ := streamGateways(b)
	for _, gw := range []string{"in-process", "remote"} {
		for _, f := range []struct{ name, accept string }{
			{"envelope", ""},
			{"sse", "text/event-stream"},
			{"binary", "application/proto"},
		} {
			b.Run(gw+"/"+f.name, func(b *testing.B) {
				b.ReportAllocs()
				url := fmt.Sprintf("%s/v1/watch/w?i32=%d", urls[gw], n)
				before := mallocs()
				for b.Loop() {
					req, _ := http.NewRequest("GET", url, nil)
					if f.accept != "" {
						req.Header.Set("Accept", f.accept)
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					got, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || got < n*10 {
						b.Fatalf("status %d, %d bytes", resp.StatusCode, got)
					}
				}
				reportPerMessage(b, n, before)
			})
		}
	}
}

// BenchmarkClientStream measures a 10,000-message NDJSON client stream,
// with the same metrics as BenchmarkServerStream.
func BenchmarkClientStream(b *testing.B) {
	const n = 10000
	urls, _ := streamGateways(b)
	body := []byte(strings.Repeat(`{"name":"n","i32":7,"tags":["a","b"]}`+"\n", n))
	for _, gw := range []string{"in-process", "remote"} {
		b.Run(gw, func(b *testing.B) {
			b.ReportAllocs()
			before := mallocs()
			for b.Loop() {
				resp, err := http.Post(urls[gw]+"/v1/bulk", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.Contains(string(out), `"i32":10000`) {
					b.Fatalf("%d %.200s", resp.StatusCode, out)
				}
			}
			reportPerMessage(b, n, before)
		})
	}
}

// mallocs is the process's count of heap allocations so far.
func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// reportPerMessage reports the messages per second and the allocations
// per message of b's streams of n messages each, counting allocations
// from before (mallocs, read before the loop).
func reportPerMessage(b *testing.B, n int, before uint64) {
	msgs := float64(n * b.N)
	b.ReportMetric(msgs/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(mallocs()-before)/msgs, "allocs/msg")
}
