package protorest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
)

// TestEncodedSlashFallback sends the requests of a client that escapes
// the slashes of path parameters, as the OpenAPI clients grpc-gateway
// users generate do, to the example library over a real HTTP server: by
// default they reach the route grpc-gateway gives them, with the decoded
// values; WithoutEncodedSlashFallback keeps %2F as data (404).
func TestEncodedSlashFallback(t *testing.T) {
	t.Parallel()
	type result struct {
		code    int
		allow   string
		pattern string
		body    string
	}
	serve := func(t *testing.T, opts ...protorest.Option) func(method, target, body string) result {
		gw := protorest.NewGateway(opts...)
		libraryv1.RegisterLibraryServiceServer(gw, services.NewLibrary())
		var mu sync.Mutex
		var pattern string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gw.ServeHTTP(w, r)
			mu.Lock()
			pattern = r.Pattern
			mu.Unlock()
		}))
		t.Cleanup(srv.Close)
		return func(method, target, body string) result {
			t.Helper()
			req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+target, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			return result{res.StatusCode, res.Header.Get("Allow"), pattern, string(b)}
		}
	}

	t.Run("default", func(t *testing.T) {
		t.Parallel()
		do := serve(t)
		for _, tc := range []struct {
			method, target, body string
			code                 int
			pattern              string
			name                 string // the book's name in a 200's body
			allow                string
			bodyHas              string
		}{
			{method: "GET", target: "/v1/shelves%2Ffiction%2Fbooks%2Fdune", code: 200, pattern: "/v1/{name=shelves/*/books/*}", name: "shelves/fiction/books/dune"},
			{method: "GET", target: "/v1/shelves%2ffiction%2fbooks%2fdune", code: 200, pattern: "/v1/{name=shelves/*/books/*}", name: "shelves/fiction/books/dune"},
			{method: "GET", target: "/v1/shelves%2Ffiction/books?page_size=1", code: 200, pattern: "/v1/{parent=shelves/*}/books", bodyHas: `"name":"shelves/fiction/books/`},
			{method: "PATCH", target: "/v1/shelves%2Ffiction%2Fbooks%2Fdune", body: `{"pageCount":413}`, code: 200, pattern: "/v1/{book.name=shelves/*/books/*}", name: "shelves/fiction/books/dune"},
			{method: "POST", target: "/v1/shelves%2Ffiction%2Fbooks%2Fdune:move", body: `{"otherShelfName":"shelves/poetry"}`, code: 200, pattern: "/v1/{name=shelves/*/books/*}:move", name: "shelves/poetry/books/dune"},
			// The escaped path matches other methods only: 405, as for
			// the same path written with slashes.
			{method: "PUT", target: "/v1/shelves%2Fpoetry%2Fbooks%2Fdune", code: 405, allow: "DELETE, GET, PATCH", bodyHas: `"code":12`},
			// An encoded colon is data, in the fallback too (C045): no
			// :move, so the path is a book's, which POST does not serve.
			{method: "POST", target: "/v1/shelves%2Fpoetry%2Fbooks%2Fdune%3Amove", body: `{}`, code: 405, allow: "DELETE, GET, PATCH", bodyHas: `"code":12`},
			{method: "GET", target: "/v1/shelves%2Fpoetry%2Fnope", code: 404, bodyHas: `"code":5`},
			// A path that matches as written is served as written: the
			// one-segment value keeps its slash (ListBooks's parent).
			{method: "GET", target: "/v1/shelves/a%2Fb/books", code: 400, pattern: "/v1/{parent=shelves/*}/books", bodyHas: `shelves/a%2Fb`},
		} {
			got := do(tc.method, tc.target, tc.body)
			if got.code != tc.code || got.allow != tc.allow || tc.pattern != "" && got.pattern != tc.pattern || !strings.Contains(got.body, tc.bodyHas) {
				t.Errorf("%s %s: %d Allow %q pattern %q %s\nwant %d Allow %q pattern %q, body with %s", tc.method, tc.target, got.code, got.allow, got.pattern, got.body, tc.code, tc.allow, tc.pattern, tc.bodyHas)
				continue
			}
			if tc.name != "" {
				var book libraryv1.Book
				if err := protojson.Unmarshal([]byte(got.body), &book); err != nil || book.GetName() != tc.name {
					t.Errorf("%s %s: book %q (%v), want %q", tc.method, tc.target, book.GetName(), err, tc.name)
				}
			}
		}
	})

	t.Run("WithoutEncodedSlashFallback", func(t *testing.T) {
		t.Parallel()
		do := serve(t, protorest.WithoutEncodedSlashFallback())
		for _, target := range []string{"/v1/shelves%2Ffiction%2Fbooks%2Fdune", "/v1/shelves%2Ffiction/books"} {
			if got := do("GET", target, ""); got.code != 404 || !strings.Contains(got.body, `"code":5`) {
				t.Errorf("GET %s: %d %s, want 404 NOT_FOUND", target, got.code, got.body)
			}
		}
		if got := do("GET", "/v1/shelves/fiction/books/dune", ""); got.code != 200 {
			t.Errorf("GET with slashes: %d %s", got.code, got.body)
		}
	})
}
