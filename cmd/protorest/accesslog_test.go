package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
