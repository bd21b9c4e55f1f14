package docsui

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRelativeTo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ page, document, want string }{
		{"/docs/", "/openapi.json", "../openapi.json"},
		{"/", "/openapi.json", "./openapi.json"},
		{"/api/v1/docs/", "/api/openapi.yaml", "../../../api/openapi.yaml"},
		{"/docs/", "/x:y.json", "../x:y.json"}, // not a scheme
		{"/docs/", "openapi.json", "openapi.json"},
		{"/docs/", "https://api.example.com/openapi.json", "https://api.example.com/openapi.json"},
		{"/docs/", "//api.example.com/openapi.json", "//api.example.com/openapi.json"},
	} {
		if got := relativeTo(tt.page, tt.document); got != tt.want {
			t.Errorf("relativeTo(%q, %q) = %q, want %q", tt.page, tt.document, got, tt.want)
		}
	}
}

func TestHandlerErrors(t *testing.T) {
	t.Parallel()
	if _, err := Handler("docs/", "/openapi.json"); err == nil || !strings.Contains(err.Error(), "must start with /") {
		t.Errorf("a page path without /: %v", err)
	}
	if _, err := Handler("/docs/", ""); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("no document: %v", err)
	}
}

// The page and its files, served by a net/http server on loopback and
// read by a net/http client.
func TestHandler(t *testing.T) {
	t.Parallel()
	h, err := Handler("/api/docs", "/api/openapi.json") // the slash is added
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the parallel subtests
	client := &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{DisableCompression: true}, // the test asks for gzip itself
	}
	get := func(t *testing.T, method, path string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}

	tests := []struct {
		name, method, path string
		header             []string
		status             int
		contentType        string
		body               string // a part of the body
		location           string
	}{
		{name: "page", path: "/api/docs/", status: 200, contentType: "text/html; charset=utf-8",
			body: `<div id="swagger-ui" data-document="../../api/openapi.json">`},
		{name: "page without its slash", path: "/api/docs?x=1", status: 301, location: "docs/?x=1"},
		{name: "page script", path: "/api/docs/docs.js", status: 200, contentType: "text/javascript; charset=utf-8", body: "validatorUrl: null"},
		{name: "streams plugin", path: "/api/docs/streams.js", status: 200, contentType: "text/javascript; charset=utf-8", body: "window.protorestStreams"},
		{name: "bundle", path: "/api/docs/swagger-ui-bundle.js", status: 200, contentType: "text/javascript; charset=utf-8", body: "SwaggerUIBundle"},
		{name: "stylesheet", path: "/api/docs/swagger-ui.css", status: 200, contentType: "text/css; charset=utf-8", body: ".swagger-ui"},
		{name: "icon", path: "/api/docs/favicon-32x32.png", status: 200, contentType: "image/png", body: "PNG"},
		{name: "head", method: "HEAD", path: "/api/docs/", status: 200, contentType: "text/html; charset=utf-8"},
		{name: "not a file of the page", path: "/api/docs/LICENSE", status: 404, contentType: "application/json",
			body: `{"code":5,"message":"the docs page has no such file","details":[]}`},
		{name: "a directory", path: "/api/docs/a/", status: 404, contentType: "application/json", body: `"code":5`},
		{name: "outside the page", path: "/api/docsx", status: 404, contentType: "application/json", body: `"code":5`},
		{name: "post", method: "POST", path: "/api/docs/", status: 405, contentType: "application/json", body: `"code":12`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			method := tt.method
			if method == "" {
				method = "GET"
			}
			resp, body := get(t, method, tt.path, tt.header...)
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != tt.contentType ||
				!bytes.Contains(body, []byte(tt.body)) || resp.Header.Get("Location") != tt.location {
				t.Errorf("%s %s: %d %q Location %q, body %.200q; want %d %q Location %q, a body with %q",
					method, tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Location"), body,
					tt.status, tt.contentType, tt.location, tt.body)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self';") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD: a body of %d bytes", len(body))
			}
		})
	}

	t.Run("gzip and entity tags", func(t *testing.T) {
		t.Parallel()
		plain, want := get(t, "GET", "/api/docs/swagger-ui-bundle.js")
		zipped, body := get(t, "GET", "/api/docs/swagger-ui-bundle.js", "Accept-Encoding", "br, gzip;q=0.5")
		if zipped.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(zipped.Header.Get("Vary"), "Accept-Encoding") {
			t.Fatalf("Content-Encoding %q, Vary %q", zipped.Header.Get("Content-Encoding"), zipped.Header.Get("Vary"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("gunzipped: %d bytes (%v), want the %d of the plain response", len(got), err, len(want))
		}
		t.Logf("swagger-ui-bundle.js: %d bytes, %d gzipped", len(want), len(body))
		if plain.Header.Get("ETag") == zipped.Header.Get("ETag") {
			t.Errorf("the same ETag %s for both encodings", plain.Header.Get("ETag"))
		}
		if r, _ := get(t, "GET", "/api/docs/swagger-ui-bundle.js", "Accept-Encoding", "gzip;q=0"); r.Header.Get("Content-Encoding") != "" {
			t.Errorf("gzip;q=0: Content-Encoding %q", r.Header.Get("Content-Encoding"))
		}
		for _, r := range []*http.Response{plain, zipped} {
			again, body := get(t, "GET", "/api/docs/swagger-ui-bundle.js", "If-None-Match", r.Header.Get("ETag"),
				"Accept-Encoding", r.Header.Get("Content-Encoding"))
			if again.StatusCode != http.StatusNotModified || len(body) != 0 {
				t.Errorf("If-None-Match %s: %d with %d bytes, want 304", r.Header.Get("ETag"), again.StatusCode, len(body))
			}
		}
	})
}

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lines []string
		want  bool
	}{
		{nil, false},
		{[]string{"gzip"}, true},
		{[]string{"br, GZIP;q=0.5"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"gzip; q=0.000"}, false},
		{[]string{"*"}, true},
		{[]string{"*, gzip;q=0"}, false},
		{[]string{"identity", "deflate, gzip"}, true},
		{[]string{"zstd"}, false},
	} {
		if got := acceptsGzip(tt.lines); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.lines, got, tt.want)
		}
	}
}
