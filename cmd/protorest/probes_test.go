package main

import (
	"fmt"
	"reflect"
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

// TestProbesInTheAccessLog: the requests of the probes and the health
// report are access log lines at debug, a 503 among them, never at info
// or error, and none at all with --access-log-probes=false; other
// requests keep their level.
func TestProbesInTheAccessLog(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	down := startServe(t, "--upstream", addr, "--log-format", "json", "--log-level", "debug")
	quiet := startServe(t, "--upstream", addr, "--log-format", "json", "--log-level", "debug", "--access-log-probes=false")
	for _, s := range []*served{down, quiet} {
		for _, path := range []string{"/livez", "/readyz", "/healthz", "/no/such/route"} {
			s.do(t, "GET", path, "")
		}
	}
	levels := func(s *served) map[string]string {
		got := map[string]string{}
		for _, l := range accessLines(t, s) {
			got[l["url.path"].(string)+" "+fmt.Sprint(l["http.response.status_code"])] = l["level"].(string)
		}
		return got
	}
	want := map[string]string{"/livez 200": "DEBUG", "/readyz 503": "DEBUG", "/healthz 503": "DEBUG", "/no/such/route 503": "ERROR"}
	if got := levels(down); !reflect.DeepEqual(got, want) {
		t.Errorf("access log levels: %v, want %v", got, want)
	}
	if got := levels(quiet); !reflect.DeepEqual(got, map[string]string{"/no/such/route 503": "ERROR"}) {
		t.Errorf("access log with --access-log-probes=false: %v, want only the route's", got)
	}
}

// TestReadinessLoggedOnce: becoming ready, and not ready, is one line
// each, however many probes ask meanwhile.
func TestReadinessLoggedOnce(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	stop := upstreamAt(t, addr, false)
	s := startServe(t, "--upstream", addr, "--log-format", "json")
	count := func(msg string) int { return strings.Count(s.stderr.String(), `"msg":"`+msg+`"`) }
	eventually(t, 5*time.Second, "ready logged", func() (bool, string) { return count("ready") == 1, s.stderr.String() })

	stop()
	eventually(t, 5*time.Second, "not ready logged", func() (bool, string) { return count("not ready") == 1, s.stderr.String() })
	for range 20 {
		if code, _ := s.do(t, "GET", "/readyz", ""); code != 503 {
			t.Fatalf("readyz with the upstream gone: %d", code)
		}
		time.Sleep(50 * time.Millisecond) // a second of probes: the connection retries meanwhile
	}
	upstreamAt(t, addr, false)
	eventually(t, 5*time.Second, "ready again logged", func() (bool, string) { return count("ready") == 2, s.stderr.String() })
	if n := count("not ready"); n != 1 {
		t.Errorf("%d lines of not ready, want 1: %s", n, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), `"level":"WARN","msg":"not ready","reason":"upstream `) {
		t.Errorf("not ready without its reason: %s", s.stderr.String())
	}
}
