package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/protorest/protorest"
)

// accessLines stops s and returns its access log lines, decoded (serve
// runs with --log-format json). The lines are written within 100 ms of
// their requests, and all of them as serve exits: stopping it first
// makes sure every one is there.
func accessLines(t *testing.T, s *served) []map[string]any {
	t.Helper()
	s.stop(t)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON log line: %q", l)
		}
		if m["msg"] == "request" {
			lines = append(lines, m)
		}
	}
	return lines
}

// TestAccessLog: a line per request with OpenTelemetry's names, the
// gRPC outcome from the gateway's CallInfo (the method's error, the
// gateway's own, none for a custom route).
func TestAccessLog(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, true)
	s := startServe(t, "--upstream", addr, "--log-format", "json")
	s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
	s.do(t, "GET", "/v1/books/", "")                                  // 400 from the upstream
	s.do(t, "GET", "/no/such/route", "")                              // 404 from the gateway
	s.do(t, "DELETE", "/api/v1/example/upper", "")                    // 405
	s.do(t, "GET", "/openapi.json", "")                               // a custom route (not a probe: TestProbesInTheAccessLog)
	s.do(t, "GET", "/api/v1/example/watch?count=2&intervalMs=10", "") // a stream
	const none = ""
	want := []struct {
		method, path, route string
		status              float64
		rpcMethod, code     string
		read                float64
		written             float64 // -1: any but 0
		errMsg              bool
	}{
		{"POST", "/api/v1/example/upper", "/api/v1/example/upper", 200, "example.v1.MySvc/Upper", "OK", 11, 11, false},
		{"GET", "/v1/books/", "/v1/books/{name=**}", 400, "bookstore.v1.BookService/GetBook", "INVALID_ARGUMENT", 0, -1, true},
		{"GET", "/no/such/route", "", 404, none, "NOT_FOUND", 0, -1, true},
		{"DELETE", "/api/v1/example/upper", "", 405, none, "UNIMPLEMENTED", 0, -1, true},
		{"GET", "/openapi.json", "/openapi.json", 200, none, none, 0, -1, false},
		{"GET", "/api/v1/example/watch", "/api/v1/example/watch", 200, "example.v1.MySvc/Watch", "OK", 0, -1, false},
	}
	lines := accessLines(t, s)
	if len(lines) != len(want) {
		t.Fatalf("%d access log lines, want %d: %v", len(lines), len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		str := func(k string) string { v, _ := l[k].(string); return v }
		if str("http.request.method") != w.method || str("url.path") != w.path || l["http.route"] != w.route ||
			l["http.response.status_code"] != w.status || str("rpc.method") != w.rpcMethod || str("rpc.response.status_code") != w.code ||
			l["http.request.body.size"] != w.read ||
			w.written >= 0 && l["http.response.body.size"] != w.written || w.written < 0 && l["http.response.body.size"] == 0.0 ||
			l["level"] != "INFO" || (str("error.message") != "") != w.errMsg {
			t.Errorf("line %d: %v\nwant %+v", i, l, w)
		}
		if d, ok := l["http.server.request.duration"].(float64); !ok || d <= 0 || d > 10 {
			t.Errorf("line %d: duration %v (seconds)", i, l["http.server.request.duration"])
		}
		if str("client.address") != "127.0.0.1" || str("user_agent.original") == "" {
			t.Errorf("line %d: client.address %v, user_agent.original %v", i, l["client.address"], l["user_agent.original"])
		}
		if _, ok := l["trace_id"]; ok {
			t.Errorf("line %d: a trace_id with no tracing: %v", i, l["trace_id"])
		}
	}
}

// TestAccessLogConnections: the requests of one HTTP/1.1 connection,
// which share its CallInfo (accessConnContext), each get a line of their
// own outcome only, whatever came before on the connection; and the
// concurrent requests of an HTTP/2 connection, which each get their own,
// a line each with its own outcome (run with -race).
func TestAccessLogConnections(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, true)
	s := startServe(t, "--upstream", addr, "--log-format", "json")
	var conns atomic.Int32
	one := &http.Transport{MaxConnsPerHost: 1, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conns.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	s.client = &http.Client{Transport: one}
	type outcome struct {
		method, path, body string
		status             float64
		code               string
		read               float64
		errMsg             bool
	}
	sequence := []outcome{
		{"GET", "/v1/books/", "", 400, "INVALID_ARGUMENT", 0, true},
		{"POST", "/api/v1/example/upper", `{"msg":"abc"}`, 200, "OK", 13, false},
		{"GET", "/no/such/route", "", 404, "NOT_FOUND", 0, true},
		{"GET", "/openapi.json", "", 200, "", 0, false},
		{"POST", "/api/v1/example/upper", `{"msg":"x"}`, 200, "OK", 11, false},
	}
	for _, o := range sequence {
		s.do(t, o.method, o.path, o.body)
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections, want one", n)
	}
	h2c := &http.Client{Transport: &http.Transport{Protocols: new(http.Protocols)}}
	h2c.Transport.(*http.Transport).Protocols.SetUnencryptedHTTP2(true)
	const concurrent = 40
	var wg sync.WaitGroup
	for i := range concurrent {
		wg.Go(func() {
			path, body := "/api/v1/example/upper", `{"msg":"`+strings.Repeat("y", i)+`"}`
			if i%2 == 1 {
				path, body = "/v1/books/", ""
			}
			req, _ := http.NewRequest(map[bool]string{true: "POST", false: "GET"}[body != ""], s.url+path, strings.NewReader(body))
			resp, err := h2c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.ProtoMajor != 2 {
				t.Errorf("%s, want HTTP/2", resp.Proto)
			}
		})
	}
	wg.Wait()
	lines := accessLines(t, s)
	if len(lines) != len(sequence)+concurrent {
		t.Fatalf("%d access log lines, want %d", len(lines), len(sequence)+concurrent)
	}
	for i, o := range sequence {
		l := lines[i]
		str := func(k string) string { v, _ := l[k].(string); return v }
		if str("http.request.method") != o.method || str("url.path") != o.path || l["http.response.status_code"] != o.status ||
			str("rpc.response.status_code") != o.code || l["http.request.body.size"] != o.read || (str("error.message") != "") != o.errMsg {
			t.Errorf("HTTP/1.1 line %d: %v\nwant %+v", i, l, o)
		}
	}
	for _, l := range lines[len(sequence):] {
		str := func(k string) string { v, _ := l[k].(string); return v }
		ok := str("http.request.method") == "POST" && l["http.response.status_code"] == 200.0 && str("rpc.response.status_code") == "OK" &&
			l["http.request.body.size"] == l["http.response.body.size"] && str("error.message") == ""
		bad := str("http.request.method") == "GET" && l["http.response.status_code"] == 400.0 &&
			str("rpc.response.status_code") == "INVALID_ARGUMENT" && str("error.message") != "" && l["http.request.body.size"] == 0.0
		if !ok && !bad {
			t.Errorf("HTTP/2 line: %v", l)
		}
	}
}

func TestAccessLogOff(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	s := startServe(t, "--upstream", addr, "--access-log=false", "--log-level", "warn")
	s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
	s.stop(t)
	if out := s.stderr.String(); out != "" {
		t.Errorf("logged with --access-log=false --log-level warn: %s", out)
	}
	// At warn, a 200's info line would not show even with the access log
	// on: at info, where it would, there must be none.
	s = startServe(t, "--upstream", addr, "--access-log=false", "--log-format", "json")
	s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
	if lines := accessLines(t, s); len(lines) != 0 {
		t.Errorf("access log lines with --access-log=false: %v", lines)
	}
}

// BenchmarkAccessLog: the access log's cost per request, for a route's
// request logged at info (JSON, to io.Discard) and a probe's, at debug,
// which the info level drops before building the line; and, to subtract,
// the route's request with no access log (/v1/things-off).
func BenchmarkAccessLog(b *testing.B) {
	gw := protorest.NewGateway()
	ok := func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"status":"ok"}`)) }
	for _, path := range []string{"/livez", "/v1/things"} {
		if err := gw.HandlePath("GET", path, ok); err != nil {
			b.Fatal(err)
		}
	}
	out := newLogWriter(io.Discard)
	defer out.Close()
	h := accessLog(newAccessLogger(out, "json", "info"), gw, []string{"/livez"}, true)
	for _, path := range []string{"/v1/things", "/livez", "/v1/things-off"} {
		b.Run(path, func(b *testing.B) {
			h, path := h, path
			if p, ok := strings.CutSuffix(path, "-off"); ok {
				h, path = gw, p
			}
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
			}
		})
	}
}

// BenchmarkAccessLogMiddleware is what the access log adds to a request
// (on) over the gateway alone (off), with the request and the response
// writer made once, so that only the middleware's work differs: a custom
// route's answer logged at info, in each format, to io.Discard; on an
// HTTP/1.1 connection of serve's (conn: its context from
// accessConnContext), and on one without (as an HTTP/2 request is served).
func BenchmarkAccessLogMiddleware(b *testing.B) {
	gw := protorest.NewGateway()
	if err := gw.HandlePath("GET", "/v1/things", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"status":"ok"}`)) }); err != nil {
		b.Fatal(err)
	}
	out := newLogWriter(io.Discard)
	defer out.Close()
	for _, c := range []struct {
		name string
		h    http.Handler
		conn bool
	}{
		{"off", gw, false},
		{"on/text", accessLog(newAccessLogger(out, "text", "info"), gw, nil, true), false},
		{"on/json", accessLog(newAccessLogger(out, "json", "info"), gw, nil, true), false},
		{"on/text/conn", accessLog(newAccessLogger(out, "text", "info"), gw, nil, true), true},
		{"on/json/conn", accessLog(newAccessLogger(out, "json", "info"), gw, nil, true), true},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/v1/things", nil)
			if c.conn {
				r = r.WithContext(accessConnContext(nil)(r.Context(), nil))
			}
			r.Header.Set("User-Agent", "bench/1.0")
			w := &discardWriter{header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				c.h.ServeHTTP(w, r)
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps nothing but its header.
type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}
