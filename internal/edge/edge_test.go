package edge

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/cors"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/httperr"
)

// fail answers errors as a gateway's default error handler does.
func fail(w http.ResponseWriter, _ *http.Request, err error) {
	httperr.Write(w, err, protojson.MarshalOptions{})
}

// reached answers "reached", with the request body, for the layers to
// be seen passing a request on.
var reached = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Reached", "yes")
	w.Write([]byte("reached " + string(body)))
})

type answer struct {
	code   int
	header http.Header
	body   string
}

// send serves one request with h on a real server.
func send(t *testing.T, h http.Handler, method, target string, body io.Reader, header ...string) answer {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest(method, srv.URL+target, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The transport's own gzip would hide what the layer did.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// TestChain: the first layer is the outermost; a nil layer, a feature
// that is off, is not in the chain at all.
func TestChain(t *testing.T) {
	t.Parallel()
	var order []string
	layer := func(name string) Layer {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				order = append(order, name)
				next.ServeHTTP(w, r)
			})
		}
	}
	h := Chain(reached, layer("a"), nil, layer("b"), nil)
	if got := send(t, h, "GET", "/", nil); got.body != "reached " || strings.Join(order, ",") != "a,b" {
		t.Errorf("%q through %v", got.body, order)
	}
	// Off, Admit and CORS are nil: the chain is the handler itself.
	got := Chain(reached, nil, Admit(&exchange.Env{}, fail), CORS(nil, nil, fail))
	if f, ok := got.(http.HandlerFunc); !ok || reflect.ValueOf(f).Pointer() != reflect.ValueOf(reached).Pointer() {
		t.Errorf("layers that are off wrapped the handler: %T", got)
	}
}

// TestAdmit: a request over a limit is answered through fail and goes
// no further; one within them is passed on.
func TestAdmit(t *testing.T) {
	t.Parallel()
	h := Chain(reached, Admit(&exchange.Env{MaxURLBytes: 20, MaxHeaders: 20, MaxQueryParams: 2}, fail))
	for _, tt := range []struct {
		name, target string
		code         int
		body         string
	}{
		{"within the limits", "/v1/a?x=1", 200, "reached "},
		{"a long target", "/v1/" + strings.Repeat("a", 20), 414, `"code":8`},
		{"many query parameters", "/v1/a?x&y&z", 400, `"code":3`},
	} {
		got := send(t, h, "GET", tt.target, nil)
		if got.code != tt.code || !strings.Contains(got.body, tt.body) {
			t.Errorf("%s: %d %s", tt.name, got.code, got.body)
		}
	}
}

// TestCORS: the policy's answers, before the router: Vary on a request
// without Origin, a preflight answered from the routes (a path without
// routes passed on, to the router's 404), an origin not allowed refused
// through fail, an actual request given the headers.
func TestCORS(t *testing.T) {
	t.Parallel()
	p, err := cors.New(cors.Config{AllowedOrigins: []string{"https://app.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(path string) []string {
		if path == "/v1/things" {
			return []string{"GET", "POST"}
		}
		return nil
	}
	h := Chain(reached, CORS(p, allowed, fail))
	const app = "https://app.example.com"
	for _, tt := range []struct {
		name    string
		method  string
		path    string
		header  []string
		code    int
		reached bool
		want    map[string]string
	}{
		{"same origin", "GET", "/v1/things", nil, 200, true, map[string]string{"Vary": "Origin"}},
		{"preflight", "OPTIONS", "/v1/things", []string{"Origin", app, "Access-Control-Request-Method", "POST"}, 204, false,
			map[string]string{"Access-Control-Allow-Methods": "GET, POST", "Access-Control-Allow-Origin": app}},
		{"preflight, no routes", "OPTIONS", "/v1/none", []string{"Origin", app, "Access-Control-Request-Method", "POST"}, 200, true, nil},
		{"preflight, origin not allowed", "OPTIONS", "/v1/things", []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "POST"}, 403, false,
			map[string]string{"Access-Control-Allow-Origin": ""}},
		{"actual", "GET", "/v1/things", []string{"Origin", app}, 200, true,
			map[string]string{"Access-Control-Allow-Origin": app, "Vary": "Origin"}},
		{"actual, origin not allowed", "GET", "/v1/things", []string{"Origin", "https://evil.example"}, 200, true,
			map[string]string{"Access-Control-Allow-Origin": "", "Vary": "Origin"}},
	} {
		got := send(t, h, tt.method, tt.path, nil, tt.header...)
		if got.code != tt.code || (got.header.Get("X-Reached") == "yes") != tt.reached {
			t.Errorf("%s: %d, reached %q: %s", tt.name, got.code, got.header.Get("X-Reached"), got.body)
		}
		for k, v := range tt.want {
			if got.header.Get(k) != v {
				t.Errorf("%s: %s %q, want %q", tt.name, k, got.header.Get(k), v)
			}
		}
	}
}

// TestVaryOriginShared: the Vary header of a request without Origin
// costs no allocation, and an append to it does not touch the shared
// slice.
func TestVaryOriginShared(t *testing.T) {
	h := http.Header{}
	if n := testing.AllocsPerRun(100, func() {
		delete(h, "Vary")
		cors.VaryOrigin(h)
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
	h.Add("Vary", "Accept-Encoding")
	other := http.Header{}
	cors.VaryOrigin(other)
	if got := strings.Join(other["Vary"], ","); got != "Origin" {
		t.Errorf("an append to one response's Vary reached another's: %q", got)
	}
}

// TestCompress: a response of the minimum size or more is compressed as
// Accept-Encoding asks; a smaller one is not.
func TestCompress(t *testing.T) {
	t.Parallel()
	layer, err := Compress(100)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("a", 200)
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(body[:len(r.URL.Query().Get("n"))]))
	}), layer)
	got := send(t, h, "GET", "/?n="+body, nil, "Accept-Encoding", "gzip")
	if got.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("200 bytes: %v", got.header)
	}
	zr, err := gzip.NewReader(strings.NewReader(got.body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); string(plain) != body {
		t.Errorf("decoded %q", plain)
	}
	if got := send(t, h, "GET", "/?n=aaaa", nil, "Accept-Encoding", "gzip"); got.header.Get("Content-Encoding") != "" || got.body != "aaaa" {
		t.Errorf("4 bytes: %v %q", got.header, got.body)
	}
}

// TestDecodeRequest: a gzip body reaches the handler decoded; a coding
// not decoded is a 415 with Accept-Encoding, and the handler is not
// called.
func TestDecodeRequest(t *testing.T) {
	t.Parallel()
	h := Chain(reached, DecodeRequest(fail))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("hello"))
	zw.Close()
	if got := send(t, h, "POST", "/", &gz, "Content-Encoding", "gzip"); got.code != 200 || got.body != "reached hello" {
		t.Errorf("gzip: %d %q", got.code, got.body)
	}
	got := send(t, h, "POST", "/", strings.NewReader("hello"), "Content-Encoding", "br")
	if got.code != 415 || got.header.Get("Accept-Encoding") != "gzip, zstd" || got.header.Get("X-Reached") != "" {
		t.Errorf("br: %d %v %s", got.code, got.header, got.body)
	}
}

// TestRefuse: every request gets 500 INTERNAL with a generic message;
// the mistakes are reported once.
func TestRefuse(t *testing.T) {
	t.Parallel()
	var reports atomic.Int32
	mistake := errors.New("protorest: WithCORS: a secret detail")
	h := Refuse(mistake, func(err error) {
		if err == mistake {
			reports.Add(1)
		}
	}, fail)
	for range 3 {
		got := send(t, h, "GET", "/", nil)
		if got.code != 500 || !strings.Contains(got.body, `"code":13`) || strings.Contains(got.body, "secret") {
			t.Errorf("%d %s", got.code, got.body)
		}
	}
	if n := reports.Load(); n != 1 {
		t.Errorf("reported %d times", n)
	}
}

// BenchmarkChain serves a request through the layers a gateway has by
// default (admission), and with CORS, to a handler that does nothing.
func BenchmarkChain(b *testing.B) {
	p, err := cors.New(cors.Config{AllowedOrigins: []string{"https://app.example.com"}})
	if err != nil {
		b.Fatal(err)
	}
	env := &exchange.Env{MaxURLBytes: 16 << 10, MaxHeaders: 100, MaxQueryParams: 1000}
	nothing := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, bb := range []struct {
		name string
		h    http.Handler
	}{
		{"admission", Chain(nothing, Admit(env, fail))},
		{"admission+cors", Chain(nothing, Admit(env, fail), CORS(p, func(string) []string { return nil }, fail))},
	} {
		b.Run(bb.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/v1/shelves/1/books/2?view=full", nil)
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				bb.h.ServeHTTP(w, r)
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps nothing but its header.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
