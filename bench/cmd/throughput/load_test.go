package main

import (
	"os"
	"path/filepath"
	"testing"
)

// h2loadOutput is what h2load 1.52 printed for a run of a second.
const h2loadOutput = `starting benchmark...
Application protocol: h2c

finished in 1.10s, 3919.00 req/s, 765.67KB/s
requests: 3925 total, 3927 started, 3924 done, 3919 succeeded, 5 failed, 5 errored, 0 timeout
status codes: 3919 2xx, 0 3xx, 2 4xx, 0 5xx
traffic: 765.67KB (784046) total, 15.43KB (15800) headers (space savings 95.42%), 681.23KB (697582) data
time for request:      170us     29.17ms       494us       801us    98.04%
`

func TestParseLoadOutputs(t *testing.T) {
	h2, err := parseH2load([]byte(h2loadOutput))
	if err != nil {
		t.Fatal(err)
	}
	if h2.requests != 3919 || h2.errors != 7 || h2.seconds != 1.1 {
		t.Errorf("h2load: %+v, want 3919 requests, 7 errors (5 failed, 2 4xx) in 1.1 s", h2)
	}
	wrk, err := parseWrk([]byte("Running 1s test\nthroughput: requests=1200 duration_us=1002000 errors=203 non2xx=200 p50=812 p99=9100 p999=15000\n"))
	if err != nil {
		t.Fatal(err)
	}
	if wrk.requests != 1000 || wrk.errors != 203 || wrk.seconds != 1.002 || wrk.p50 != 812 || wrk.p99 != 9100 || wrk.p999 != 15000 {
		t.Errorf("wrk: %+v", wrk)
	}
	for _, out := range []string{"", "finished in 1s", "throughput: requests=1"} {
		if _, err := parseH2load([]byte(out)); err == nil {
			t.Errorf("h2load output %q: no error", out)
		}
		if _, err := parseWrk([]byte(out)); err == nil {
			t.Errorf("wrk output %q: no error", out)
		}
	}
}

func TestLatencies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	// start, status, µs: only the 2xx count.
	if err := os.WriteFile(path, []byte("1\t200\t30\n2\t200\t10\n3\t503\t1\n4\t200\t20\n5\t200\t40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lat, err := latencies(path)
	if err != nil {
		t.Fatal(err)
	}
	if p50, p99 := percentile(lat, 50), percentile(lat, 99); len(lat) != 4 || p50 != 20 || p99 != 40 {
		t.Errorf("latencies %v: p50 %v, p99 %v; want 4 of them, 20 and 40", lat, p50, p99)
	}
	if percentile(nil, 50) != 0 {
		t.Error("the percentile of nothing is not 0")
	}
}

// FuzzParseLoadOutputs: the parsers of wrk's and h2load's summaries
// never panic, and what they accept has no negative count or time.
func FuzzParseLoadOutputs(f *testing.F) {
	f.Add([]byte(h2loadOutput))
	f.Add([]byte("throughput: requests=5 duration_us=1000000 errors=0 non2xx=0 p50=1 p99=2 p999=3\n"))
	f.Add([]byte("throughput: requests=1 duration_us=1 errors=99999999999999999999 non2xx=7 p50=1 p99=2 p999=3\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, parse := range []func([]byte) (loadResult, error){parseWrk, parseH2load} {
			r, err := parse(out)
			if err == nil && (r.requests < 0 || r.seconds < 0 || r.p50 < 0) {
				t.Errorf("%q: %+v", out, r)
			}
		}
	})
}
