package protorest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzGateway sends arbitrary methods, targets, bodies and content types
// through the conformance fixture. Whatever the input, the gateway must
// not panic, must answer with a status it documents, must send a
// google.rpc.Status body with every error, and must never blame the
// method (500) for input it should have rejected itself.
func FuzzGateway(f *testing.F) {
	seeds := []struct{ method, target, body, ct string }{
		{"GET", "/v1/probes/abc", "", ""},
		{"GET", "/v1/probes?i32=1&tags=a&inner.s=x+y", "", ""},
		{"POST", "/v1/probes", `{"name":"n","attrs":{"a":[1,{"b":null}]}}`, "application/json"},
		{"PATCH", "/v1/probes/abc?i32=4", `{"s":"b","deeper":{"i":1}}`, ""},
		{"POST", "/v1/probes/p1:rename", `"New"`, ""},
		{"POST", "/v1/probes/a:b:archive", `{}`, ""},
		{"GET", "/v1/files/a%2Fb/c%3F", "", ""},
		{"GET", "/v1/tree/a/meta/b/meta", "", ""},
		{"POST", "/v1/uploads/u1", "\x00\xff", "text/plain"},
		{"POST", "/v1/probes", "\x0a\x01a", "application/proto"},
		{"DELETE", "/v1/probes/", "", ""},
		{"FOO", "/v1/ids/9223372036854775808", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, s.body, s.ct)
	}
	rec := &recorder{}
	gw := newFixture(f, "A", rec)
	f.Fuzz(func(t *testing.T, method, target, body, ct string) {
		req, err := http.NewRequest(method, "http://example.com"+target, strings.NewReader(body))
		if err != nil || !strings.HasPrefix(target, "/") {
			return
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, req)
		switch w.Code {
		case 200, 400, 404, 405, 413:
		default:
			t.Fatalf("%s %s %q: status %d: %s", method, target, body, w.Code, w.Body)
		}
		if w.Code >= 400 && !strings.HasPrefix(w.Body.String(), `{"code":`) {
			t.Fatalf("%s %s: error body is not a Status: %s", method, target, w.Body)
		}
		rec.mu.Lock()
		rec.calls = rec.calls[:0]
		rec.mu.Unlock()
	})
}
