package main

import (
	"testing"
	"time"
)

// heyOutput is hey 0.1.4's summary of a run that had errors (the
// histogram and details trimmed).
const heyOutput = `
Summary:
  Total:	10.0049 secs
  Slowest:	0.7271 secs
  Fastest:	0.0007 secs
  Average:	0.0130 secs
  Requests/sec:	1539.3841

  Total data:	993945 bytes
  Size/request:	215 bytes

Response time histogram:
  0.001 [1]	|
  0.073 [4552]	|■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■


Latency distribution:
  10% in 0.0022 secs
  50% in 0.0038 secs
  99% in 0.3597 secs

Status code distribution:
  [200]	4623 responses
  [503]	17 responses

Error distribution:
  [3]	Get "http://127.0.0.1:1/v1/x": dial tcp 127.0.0.1:1: connect: connection refused
  [2]	Get "http://127.0.0.1:1/v1/x": EOF
`

func TestParseHey(t *testing.T) {
	t.Parallel()
	r, err := parseHey([]byte(heyOutput))
	if err != nil {
		t.Fatal(err)
	}
	if r.total != 10004900*time.Microsecond || r.rps != 1539.3841 {
		t.Errorf("total %v, rps %v", r.total, r.rps)
	}
	if r.p50 != 3800*time.Microsecond || r.p99 != 359700*time.Microsecond {
		t.Errorf("p50 %v, p99 %v", r.p50, r.p99)
	}
	if got := statusText(r.statuses); got != "200: 4623, 503: 17" {
		t.Errorf("statuses %q", got)
	}
	if got := errorText(r.errors); got != "EOF: 2, connection refused: 3" {
		t.Errorf("errors %q", got)
	}
	if r.requests() != 4640 || r.errorCount() != 5 {
		t.Errorf("requests %d, errors %d", r.requests(), r.errorCount())
	}
}

func TestParseHeyWithoutSummary(t *testing.T) {
	t.Parallel()
	if _, err := parseHey([]byte("flag provided but not defined: -zz\nUsage: hey [options...] <url>\n")); err == nil {
		t.Error("no error for output without a summary")
	}
}
