package protorest_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/protorest/protorest"
)

func TestLimits(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := newFixture(t, "A", rec, protorest.WithMaxRequestBodySize(16))
	resp := do(t, gw, "POST", "/v1/probes", `{"name":"0123456789012345678901234567890"}`)
	if resp.code != 413 || !strings.Contains(resp.body, `"code":8`) {
		t.Errorf("status %d body %s", resp.code, resp.body)
	}
	// Without a Content-Length the limit still holds, and the reader is
	// not drained past it.
	src := &countingReader{n: 1 << 30}
	req := httptest.NewRequest("POST", "/v1/probes", src)
	req.ContentLength = -1
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, req)
	if w.Code != 413 || src.read > 17 {
		t.Errorf("status %d after reading %d bytes", w.Code, src.read)
	}
	if rec.count() != 0 {
		t.Error("the method was called")
	}
	long := strings.Repeat("x", 1<<20)
	resp = do(t, newFixture(t, "A", rec), "POST", "/v1/probes", `{"i32":"`+long+`"}`)
	if resp.code != 400 || len(resp.body) > 400 {
		t.Errorf("status %d, error body of %d bytes", resp.code, len(resp.body))
	}
}

type countingReader struct{ n, read int }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.read += len(p)
	return len(p), nil
}
