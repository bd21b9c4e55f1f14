package docsui

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMultiRange asks a real server for the docs page's largest file in
// many one-byte ranges, the request that amplified 14.6 times: the answer
// is one range, the first, not a multipart body a hundred times the size
// of the bytes asked for. A single range and no Range are served as
// before.
func TestMultiRange(t *testing.T) {
	h, err := Handler("/docs/", "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	url := srv.URL + "/docs/swagger-ui-bundle.js"
	// 4,000 ranges: about 40 KiB of header, under a server's 64 KiB.
	specs := make([]string, 4000)
	for i := range specs {
		specs[i] = fmt.Sprintf("%d-%d", 2*i+100, 2*i+100)
	}
	multi := "bytes=" + strings.Join(specs, ",")
	get := func(rng string) (status int, contentRange string, body int64) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Accept-Encoding", "identity")
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		n, _ := io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Range"), n
	}
	status, cr, n := get(multi)
	t.Logf("%d ranges in a %d-byte Range header: %d %q, %d bytes of body (%.1f× the header)", len(specs), len(multi), status, cr, n, float64(n)/float64(len(multi)))
	if status != http.StatusPartialContent || !strings.HasPrefix(cr, "bytes 100-100/") || n != 1 {
		t.Errorf("multi-range: %d %q, %d bytes; want 206, bytes 100-100/…, 1 byte", status, cr, n)
	}
	if status, cr, n := get("bytes=10-19"); status != http.StatusPartialContent || !strings.HasPrefix(cr, "bytes 10-19/") || n != 10 {
		t.Errorf("one range: %d %q, %d bytes", status, cr, n)
	}
	if status, cr, n := get(""); status != http.StatusOK || cr != "" || n < 1<<20 {
		t.Errorf("no range: %d %q, %d bytes", status, cr, n)
	}
}
