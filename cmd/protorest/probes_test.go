package main

import (
	"strings"
	"testing"
	"time"
)

// TestProbes checks /livez and /readyz while the upstream is down, after
// it comes up, and after it goes down again; /healthz stays as it was.
func TestProbes(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	s := startServe(t, "--upstream", addr)
	if code, body := s.do(t, "GET", "/livez", ""); code != 200 || body != `{"status":"ok"}`+"\n" {
		t.Errorf("livez, upstream down: %d %s", code, body)
	}
	if code, body := s.do(t, "GET", "/readyz", ""); code != 503 || !strings.Contains(body, `"status":"not ready","reason":"routes not loaded: upstream `) {
		t.Errorf("readyz, upstream down: %d %s", code, body)
	}

	stop := upstreamAt(t, addr, false)
	eventually(t, 5*time.Second, "ready once the upstream is up", func() (bool, string) {
		code, body := s.do(t, "GET", "/readyz", "")
		return code == 200 && body == `{"status":"ok"}`+"\n", body
	})
	if code, body := s.do(t, "GET", "/healthz", ""); code != 200 || !strings.Contains(body, `"status":"SERVING"`) {
		t.Errorf("healthz, upstream up: %d %s", code, body)
	}

	stop()
	eventually(t, 5*time.Second, "not ready once the upstream is gone", func() (bool, string) {
		code, body := s.do(t, "GET", "/readyz", "")
		return code == 503 && strings.Contains(body, `"reason":"upstream `), body
	})
	if code, body := s.do(t, "GET", "/livez", ""); code != 200 {
		t.Errorf("livez, upstream gone: %d %s", code, body)
	}
}

func TestProbePaths(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	upstreamAt(t, addr, false)
	s := startServe(t, "--upstream", addr, "--livez-path", "/alive", "--readyz-path", "", "--health-path", "")
	for path, want := range map[string]int{"/alive": 200, "/livez": 404, "/readyz": 404, "/healthz": 404} {
		if code, _ := s.do(t, "GET", path, ""); code != want {
			t.Errorf("GET %s: %d, want %d", path, code, want)
		}
	}
}
