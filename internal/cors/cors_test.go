package cors

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestNewErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    Config
		want string // part of the error; "" for none
	}{
		{"exact origin", Config{AllowedOrigins: []string{"https://app.example.com"}}, ""},
		{"origin with port, upper case", Config{AllowedOrigins: []string{" HTTPS://App.Example.com:8443 "}}, ""},
		{"pattern", Config{AllowedOrigins: []string{"https://*.example.com", "*.example.org"}}, ""},
		{"star", Config{AllowedOrigins: []string{"*"}}, ""},
		{"no scheme", Config{AllowedOrigins: []string{"app.example.com"}}, "want scheme://host[:port]"},
		{"a path", Config{AllowedOrigins: []string{"https://app.example.com/x"}}, "want scheme://host[:port]"},
		{"a query", Config{AllowedOrigins: []string{"https://app.example.com?x"}}, "want scheme://host[:port]"},
		{"bad pattern", Config{AllowedOrigins: []string{"https://[*.example.com"}}, "syntax error"},
		{"star with credentials", Config{AllowedOrigins: []string{"*"}, AllowCredentials: true}, "list the origins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.c)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
		})
	}
}

func TestAllows(t *testing.T) {
	t.Parallel()
	p, err := New(Config{AllowedOrigins: []string{"https://app.example.com", "https://*.example.org", "*.example.net"}})
	if err != nil {
		t.Fatal(err)
	}
	for origin, want := range map[string]bool{
		"https://app.example.com":         true,
		"HTTPS://APP.EXAMPLE.COM":         true,
		"http://app.example.com":          false, // another scheme is another origin
		"https://app.example.com:8443":    false,
		"https://evil.com":                false,
		"https://app.example.com.evil":    false,
		"https://a.example.org":           true,
		"http://a.example.org":            false, // the pattern names its scheme
		"https://example.org":             false,
		"https://a.b.example.org":         true, // "*" spans labels, as path.Match's spans all but "/"
		"http://x.example.net":            true, // no scheme in the pattern: any
		"https://x.example.net":           true,
		"null":                            false,
		"":                                false,
		"https://app.example.com/%zz\x7f": false,
	} {
		if got := p.allows(origin); got != want {
			t.Errorf("allows(%q) = %v, want %v", origin, got, want)
		}
	}
	star, _ := New(Config{AllowedOrigins: []string{"*"}})
	if !star.allows("https://anything.example") || !star.allows("null") {
		t.Error(`"*" does not allow every origin`)
	}
}

func TestIsPreflight(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("OPTIONS", "/v1/x", nil)
	if IsPreflight(r) {
		t.Error("OPTIONS without Access-Control-Request-Method is a preflight")
	}
	r.Header.Set("Access-Control-Request-Method", "PUT")
	if !IsPreflight(r) {
		t.Error("not a preflight")
	}
	r.Method = "POST"
	if IsPreflight(r) {
		t.Error("POST is a preflight")
	}
	if Origin(r) != "" {
		t.Error("Origin without the header")
	}
	r.Header.Set("Origin", "https://a.example")
	if Origin(r) != "https://a.example" {
		t.Error("Origin")
	}
}

func TestPreflight(t *testing.T) {
	t.Parallel()
	p, err := New(Config{
		AllowedOrigins:   []string{"https://app.example.com"},
		AllowCredentials: true,
		AllowedHeaders:   []string{"X-Tenant", "X-Trace-*"},
		MaxAge:           90 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		origin    string
		method    string
		reqHdrs   string
		methods   []string
		wantErr   codes.Code // OK: answered
		wantAllow string
		wantHdrs  string
	}{
		{"the path's methods", "https://app.example.com", "PUT", "", []string{"GET", "PUT"}, codes.OK, "GET, PUT", ""},
		{"custom kind '*' answers the method asked", "https://app.example.com", "PROPFIND", "", []string{"*"}, codes.OK, "PROPFIND", ""},
		{"allowed headers only, lower case", "https://app.example.com", "POST", "content-type, X-Tenant,x-evil, grpc-metadata-user, X-Trace-Id, ,", []string{"POST"}, codes.OK, "POST",
			"content-type, x-tenant, grpc-metadata-user, x-trace-id"},
		{"no allowed header asked", "https://app.example.com", "POST", "x-evil", []string{"POST"}, codes.OK, "POST", ""},
		{"origin not allowed", "https://evil.example", "GET", "", []string{"GET"}, codes.PermissionDenied, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("OPTIONS", "/v1/x", nil)
			r.Header.Set("Origin", tt.origin)
			r.Header.Set("Access-Control-Request-Method", tt.method)
			if tt.reqHdrs != "" {
				r.Header.Set("Access-Control-Request-Headers", tt.reqHdrs)
			}
			w := httptest.NewRecorder()
			err := p.Preflight(w, r, tt.methods)
			h := w.Result().Header
			if got := h.Get("Vary"); got != "Origin, Access-Control-Request-Method, Access-Control-Request-Headers" {
				t.Errorf("Vary %q", got)
			}
			if tt.wantErr != codes.OK {
				if status.Code(err) != tt.wantErr {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				if h.Get("Access-Control-Allow-Origin") != "" || w.Body.Len() != 0 {
					t.Errorf("a refused preflight wrote: %v %q", h, w.Body)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Code != http.StatusNoContent {
				t.Errorf("status %d", w.Code)
			}
			for k, want := range map[string]string{
				"Access-Control-Allow-Origin":      tt.origin,
				"Access-Control-Allow-Credentials": "true",
				"Access-Control-Allow-Methods":     tt.wantAllow,
				"Access-Control-Allow-Headers":     tt.wantHdrs,
				"Access-Control-Max-Age":           "90",
			} {
				if got := h.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
	def, _ := New(Config{AllowedOrigins: []string{"*"}})
	r := httptest.NewRequest("OPTIONS", "/", nil)
	r.Header.Set("Origin", "https://a.example")
	r.Header.Set("Access-Control-Request-Method", "GET")
	w := httptest.NewRecorder()
	if err := def.Preflight(w, r, []string{"GET"}); err != nil {
		t.Fatal(err)
	}
	if got := w.Header().Get("Access-Control-Max-Age"); got != "600" {
		t.Errorf("default Max-Age %q, want 600", got)
	}
	if got := w.Header().Get("Access-Control-Allow-Credentials"); got != "" {
		t.Errorf("credentials without AllowCredentials: %q", got)
	}
}

// TestActual: an allowed origin's response carries Allow-Origin and the
// exposed headers, with each Grpc-Metadata-* header the response has by
// the time its header is written (sorted, whatever the map's order);
// another origin's gets no CORS header but Vary.
func TestActual(t *testing.T) {
	t.Parallel()
	p, err := New(Config{AllowedOrigins: []string{"https://app.example.com"}, ExposedHeaders: []string{"X-Request-Id"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, write := range []struct {
		name string
		do   func(w http.ResponseWriter)
	}{
		{"WriteHeader", func(w http.ResponseWriter) { w.WriteHeader(200) }},
		{"Write", func(w http.ResponseWriter) { w.Write([]byte("x")) }},
		{"Flush", func(w http.ResponseWriter) { w.(http.Flusher).Flush() }},
	} {
		t.Run(write.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/v1/x", nil)
			r.Header.Set("Origin", "https://app.example.com")
			rec := httptest.NewRecorder()
			w := p.Actual(rec, r)
			w.Header().Set("Grpc-Metadata-Zeta", "1")
			w.Header().Set("Grpc-Metadata-Alpha", "2")
			write.do(w)
			w.Header().Set("Grpc-Metadata-Late", "3") // after the header: not exposed
			h := rec.Result().Header
			if got, want := h.Get("Access-Control-Expose-Headers"), "Grpc-Status, Grpc-Message, Grpc-Status-Details-Bin, Grpc-Encoding, Grpc-Accept-Encoding, Connect-Content-Encoding, Connect-Accept-Encoding, X-Request-Id, Grpc-Metadata-Alpha, Grpc-Metadata-Zeta"; got != want {
				t.Errorf("Expose-Headers %q, want %q", got, want)
			}
			if got := h.Get("Access-Control-Allow-Origin"); got != "https://app.example.com" {
				t.Errorf("Allow-Origin %q", got)
			}
			if got := h.Get("Vary"); got != "Origin" {
				t.Errorf("Vary %q", got)
			}
			if u, ok := w.(interface{ Unwrap() http.ResponseWriter }); !ok || u.Unwrap() != rec {
				t.Error("the writer does not unwrap to the server's")
			}
		})
	}
	r := httptest.NewRequest("GET", "/v1/x", nil)
	r.Header.Set("Origin", "https://evil.example")
	rec := httptest.NewRecorder()
	if w := p.Actual(rec, r); w != http.ResponseWriter(rec) {
		t.Error("another origin's response is wrapped")
	}
	h := rec.Result().Header
	if h.Get("Access-Control-Allow-Origin") != "" || h.Get("Access-Control-Expose-Headers") != "" || h.Get("Vary") != "Origin" {
		t.Errorf("another origin's headers: %v", h)
	}
}
