package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protorest/protorest/bench"
)

// syntheticResults are two rounds of every contender on get and stream
// over h1: contender i's CPU per request is 10×(i+1) µs in round 1 and
// 10×(i+1)+10 in round 2, so its median is 10×(i+1)+5.
func syntheticResults() (*Run, []Result) {
	run := &Run{Date: "2026-01-02 03:04 UTC", Commit: "abc1234", Machine: "amd64, 2 CPUs", GoVersion: "go1.26",
		Tools: []string{"wrk debian/4.1.0 [epoll] Copyright (C) 2012 Will Glozer", "h2load nghttp2/1.52.0"},
		Count: 2, Duration: "5s", Conns: 64, Threads: 2, Elapsed: "1m0s"}
	var results []Result
	for round := 1; round <= 2; round++ {
		for _, route := range []string{"get", "stream"} {
			for i, name := range defaultContenders {
				if _, skip := bench.SkippedRoutes[name][route]; skip {
					continue
				}
				cpu := float64(10*(i+1) + 10*(round-1))
				results = append(results, Result{Round: round, Protocol: "h1", Route: route, Contender: name, Requests: 1000,
					Seconds: 1, RPS: 1000 * float64(8-i), P50: 100, P99: 900, P999: 1500, CPU: cpu, PeakRSS: 20480, Load: 1.5 + float64(i)})
			}
		}
	}
	return run, results
}

func TestReport(t *testing.T) {
	run, results := syntheticResults()
	dir := t.TempDir()
	path := filepath.Join(dir, "results.jsonl")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.Encode(line{Run: run})
	for i := range results {
		enc.Encode(line{Result: &results[i]})
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, "benchmarks.md")
	if err := os.WriteFile(md, []byte("# B\n\nintro\n\n"+beginMarker+"\nold\n"+endMarker+"\n\n## After\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join(dir, "throughput.png")
	if err := reportCommand([]string{"-md", md, "-chart", chart, path}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{
		"## After\n", "![CPU per request relative to the floor](throughput.png)",
		"wrk debian/4.1.0 [epoll], h2load nghttp2/1.52.0",
		"Command: `COUNT=2 DURATION=5s CONNS=64 THREADS=2 ROUTES=get,stream CONTENDERS=floor-proxy,grpc-gateway,vanguard,protorest,floor,grpc-gateway-inproc,protorest-inproc PROTOCOLS=h1 bash scripts/throughput.sh`",
		// protorest (i = 3): median 45 µs; the floor proxy's 15, grpc-gateway's 25.
		"| get | protorest | 5,000 | 100 µs | 900 µs | 1.50 ms | 45.0 µs | 3.00× | 1.80× | 20.0 MiB |",
		"| stream | vanguard | — | — | — | — | — | — | — | " + bench.SkippedRoutes[bench.VanguardName]["stream"] + " |",
		"| protorest serve vs the floor proxy, CPU/request, get: ≤ 1.15× | h1 | 3.00× (get) | **missed** |",
		"| protorest serve vs grpc-gateway, req/s, every route: ≥ 1.3× | h1 | 0.714× (get) | **missed** |",
		"| protorest serve vs grpc-gateway, p99, every route: ≤ 1× | h1 | 1.00× (get) | met |",
		"load average as the rounds began ranged 1.5 to 7.5",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the report has no %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "\nold\n") {
		t.Error("the old section is still there")
	}
	f, err := os.Open(chart)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if img, err := png.Decode(f); err != nil || img.Bounds().Dx() < 600 {
		t.Errorf("chart: %v", err)
	}
}
