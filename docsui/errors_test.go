package docsui_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/docsui"
)

// TestErrorsAsTheGateway: the page's errors, read by a net/http client
// from a loopback server, have the bytes and headers of the gateway's own
// error responses (protorest.DefaultErrorHandler) for the same status.
func TestErrorsAsTheGateway(t *testing.T) {
	t.Parallel()
	h, err := docsui.Handler("/docs/", "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		method, path string
		httpStatus   int
		code         codes.Code
		message      string
	}{
		{"GET", "/docs/LICENSE", http.StatusNotFound, codes.NotFound, "the docs page has no such file"},
		{"GET", "/docsx", http.StatusNotFound, codes.NotFound, "the docs page has no such file"},
		{"POST", "/docs/", http.StatusMethodNotAllowed, codes.Unimplemented, "the docs page is read with GET"},
	} {
		want := httptest.NewRecorder()
		protorest.DefaultErrorHandler(want, httptest.NewRequest(tt.method, tt.path, nil), status.Error(tt.code, tt.message))

		req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.URL+tt.path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.httpStatus || string(body) != want.Body.String() {
			t.Errorf("%s %s: %d %s\nwant %d %s", tt.method, tt.path, resp.StatusCode, body, tt.httpStatus, want.Body)
		}
		for _, k := range []string{"Content-Type", "Content-Length"} {
			if got, want := resp.Header.Get(k), want.Header().Get(k); got != want {
				t.Errorf("%s %s: %s %q, want %q", tt.method, tt.path, k, got, want)
			}
		}
	}
}
