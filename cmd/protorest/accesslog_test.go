package main

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
)

// accessLines are the access log lines of s so far, decoded (serve runs
// with --log-format json).
func accessLines(t *testing.T, s *served) []map[string]any {
	t.Helper()
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

func TestAccessLog(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, true)
	s := startServe(t, "--upstream", addr, "--log-format", "json")
	s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
	s.do(t, "GET", "/v1/books/", "")                                  // 400 from the upstream
	s.do(t, "GET", "/no/such/route", "")                              // 404 from the gateway
	s.do(t, "DELETE", "/api/v1/example/upper", "")                    // 405
	s.do(t, "GET", "/healthz", "")                                    // a custom route
	s.do(t, "GET", "/api/v1/example/watch?count=2&intervalMs=10", "") // a stream
	want := []struct {
		method, path, route string
		status              float64
		code                codes.Code
		bytes               float64 // -1: any but 0
	}{
		{"POST", "/api/v1/example/upper", "/api/v1/example/upper", 200, codes.OK, 11},
		{"GET", "/v1/books/", "/v1/books/{name=**}", 400, codes.InvalidArgument, -1},
		{"GET", "/no/such/route", "", 404, codes.NotFound, -1},
		{"DELETE", "/api/v1/example/upper", "", 405, codes.Unimplemented, -1},
		{"GET", "/healthz", "/healthz", 200, codes.OK, -1},
		{"GET", "/api/v1/example/watch", "/api/v1/example/watch", 200, codes.OK, -1},
	}
	lines := accessLines(t, s)
	if len(lines) != len(want) {
		t.Fatalf("%d access log lines, want %d: %v", len(lines), len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		if l["method"] != w.method || l["path"] != w.path || l["route"] != w.route || l["status"] != w.status || l["grpc_code"] != w.code.String() ||
			w.bytes >= 0 && l["bytes"] != w.bytes || w.bytes < 0 && l["bytes"] == 0.0 || l["level"] != "INFO" {
			t.Errorf("line %d: %v\nwant %+v", i, l, w)
		}
		if d, ok := l["duration"].(float64); !ok || d <= 0 {
			t.Errorf("line %d: duration %v", i, l["duration"])
		}
		if r, _ := l["remote"].(string); !strings.HasPrefix(r, "127.0.0.1:") {
			t.Errorf("line %d: remote %v", i, l["remote"])
		}
	}
}

func TestAccessLogOff(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	s := startServe(t, "--upstream", addr, "--access-log=false", "--log-level", "warn")
	s.do(t, "POST", "/api/v1/example/upper", `{"msg":"x"}`)
	if out := s.stderr.String(); out != "" {
		t.Errorf("logged with --access-log=false --log-level warn: %s", out)
	}
}

func TestLeadingCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{`{"code":5,"message"`: 5, `{"code":13}`: 13, `{"code":`: -1, `{"msg":1}`: -1, `{"code":x`: -1} {
		c, ok := leadingCode([]byte(in))
		if got := int(c); !ok {
			got = -1
		} else if got != want {
			t.Errorf("leadingCode(%q) = %d, want %d", in, got, want)
		}
	}
}
