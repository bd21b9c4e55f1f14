package protorest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/dynamicpb"

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

func TestCustomRoutesAndMiddleware(t *testing.T) {
	t.Parallel()
	var seen []string
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = append(seen, r.Method+" "+r.URL.Path)
			next.ServeHTTP(w, r)
		})
	}
	rec := &recorder{}
	gw := newFixture(t, "A", rec)
	h := mw(gw)
	if err := gw.HandlePath("GET", "/files/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "file %s", r.PathValue("id"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := gw.HandlePath("GET", "/v1/probes/{name}/raw", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "raw %s", r.PathValue("name"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := gw.HandlePath("GET", "/ui/{path=**}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "ui %q", r.PathValue("path"))
	}); err != nil {
		t.Fatal(err)
	}
	for target, want := range map[string]string{
		"/files/a%2Fb":     "file a/b",
		"/v1/probes/x/raw": "raw x",
		"/ui/a/b.css":      `ui "a/b.css"`,
		"/ui":              `ui ""`,
	} {
		if resp := do(t, h, "GET", target, ""); resp.code != 200 || resp.body != want {
			t.Errorf("%s: %d %q, want %q", target, resp.code, resp.body, want)
		}
	}
	if resp := do(t, h, "GET", "/v1/probes/x", ""); resp.code != 200 || rec.count() != 1 {
		t.Errorf("method route beside custom ones: %d", resp.code)
	}
	// Conflicts with method routes and with each other are errors.
	if err := gw.HandlePath("GET", "/v1/probes/{id}", func(http.ResponseWriter, *http.Request) {}); err == nil || !strings.Contains(err.Error(), "conf.v1.Probes.GetProbe") {
		t.Errorf("conflict with GetProbe: %v", err)
	}
	if err := gw.HandlePath("GET", "/files/{x}", func(http.ResponseWriter, *http.Request) {}); err == nil {
		t.Error("duplicate custom route accepted")
	}
	if err := gw.HandlePath("GET", "/files/{", func(http.ResponseWriter, *http.Request) {}); err == nil || !strings.Contains(err.Error(), "column") {
		t.Errorf("bad template: %v", err)
	}
	do(t, h, "GET", "/nope", "")
	if len(seen) < 5 || seen[len(seen)-1] != "GET /nope" {
		t.Errorf("middleware saw %v", seen)
	}
}

// TestPatternForMiddleware: after the gateway has served a request, a
// middleware around it reads the matched template in r.Pattern (as after
// http.ServeMux), for method routes in-process and remote, additional
// bindings, streams and custom routes, whose path values it reads too; a
// request no route matches has none.
func TestPatternForMiddleware(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"in-process", "remote"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			gw := probesGateway(t, kind, newStreamer())
			if err := gw.HandlePath("GET", "/files/{id}", func(http.ResponseWriter, *http.Request) {}); err != nil {
				t.Fatal(err)
			}
			var pattern, id string
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gw.ServeHTTP(w, r)
				pattern, id = r.Pattern, r.PathValue("id")
			})
			for _, tt := range []struct{ target, pattern, id string }{
				{"/v1/probes/abc", "/v1/probes/{name}", ""},
				{"/v1/shelves/1/books/2", "/v1/{name=shelves/*/books/*}", ""},
				{"/v1/shelves/p/lookup/n", "/v1/shelves/{parent}/lookup/{name}", ""},
				{"/v1/watch/w?count=1", "/v1/watch/{name}", ""},
				{"/files/a%2Fb", "/files/{id}", "a/b"},
				{"/nope", "", ""},
			} {
				pattern, id = "unset", "unset"
				do(t, h, "GET", tt.target, "")
				if pattern != tt.pattern || id != tt.id {
					t.Errorf("GET %s: r.Pattern %q, r.PathValue(\"id\") %q; want %q, %q", tt.target, pattern, id, tt.pattern, tt.id)
				}
			}
		})
	}
}

// TestVerbWithColonServed: a verb that contains ":", which
// google/api/http.proto forbids and grpc-gateway serves (its
// a_bit_of_everything.proto has {uuid}:custom:custom), is served for
// migration, and when several registered verbs end the last segment the
// longest wins (PROFILE.md, R13).
func TestVerbWithColonServed(t *testing.T) {
	t.Parallel()
	post := func(path string) *annotations.HttpRule {
		return &annotations.HttpRule{Pattern: &annotations.HttpRule_Post{Post: path}}
	}
	files, desc := ruleFiles(t, post("/v1/{name}:custom"), post("/v1/{name}:custom:custom"), post("/v1/{name}"))
	fd, err := files.FindFileByPath("t/v1/t.proto")
	if err != nil {
		t.Fatal(err)
	}
	in := fd.Messages().ByName("Req")
	type call struct{ method, name string }
	calls := make(chan call, 1)
	for i := range desc.Methods {
		method := desc.Methods[i].MethodName
		desc.Methods[i].Handler = func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			m := dynamicpb.NewMessage(in)
			if err := dec(m); err != nil {
				return nil, err
			}
			calls <- call{method, m.Get(in.Fields().ByName("name")).String()}
			return m, nil
		}
	}
	gw := protorest.NewGateway(protorest.WithFiles(files))
	gw.RegisterService(desc, nil)
	for _, tt := range []struct {
		path string
		want call
	}{
		{"/v1/abc:custom:custom", call{"M1", "abc"}},
		{"/v1/abc:custom", call{"M0", "abc"}},
		{"/v1/a:b:custom:custom", call{"M1", "a:b"}},
		{"/v1/a:custom:b", call{"M2", "a:custom:b"}}, // no registered verb ends it
		{"/v1/custom:custom", call{"M0", "custom"}},
	} {
		if resp := do(t, gw, "POST", tt.path, ""); resp.code != 200 {
			t.Errorf("POST %s: %d %s", tt.path, resp.code, resp.body)
			continue
		}
		if got := <-calls; got != tt.want {
			t.Errorf("POST %s called %+v, want %+v", tt.path, got, tt.want)
		}
	}
}
