package main

import (
	"bytes"
	"image/png"
	"math"
	"slices"
	"strings"
	"testing"
)

// input is three interleaved passes of a few benchmarks of two packages,
// with the run's description, go test's noise, and malformed lines.
const input = `count: 3
benchtime: 0.1s
date: 2026-01-02 03:04 UTC
go: go1.99
nproc: 2
cpu-model: Test CPU @ 1 GHz
goos: linux
goarch: amd64
pkg: example.com/core/route
cpu: Test CPU
BenchmarkMatch/routes=1-2        	 1000	  100 ns/op	   0 B/op	   0 allocs/op
BenchmarkMatch/routes=5000-2     	 1000	  110 ns/op	   0 B/op	   0 allocs/op
BenchmarkStream-2                	   10	  5000 ns/op	 2000 msgs/s
PASS
ok  	example.com/core/route	0.5s
pkg: github.com/protorest/protorest/bench
BenchmarkPeers/GetBook/floor-2               	 100	 1000 ns/op	 500 B/op	 10 allocs/op
BenchmarkPeers/GetBook/grpc-gateway-inproc-2 	 100	 4000 ns/op	 900 B/op	 40 allocs/op
BenchmarkPeers/GetBook/protorest-inproc-2    	 100	 1200 ns/op	 600 B/op	 12 allocs/op
BenchmarkPeers/ListItems-500/floor-2               	 10	 100000 ns/op	 5 allocs/op
BenchmarkPeers/ListItems-500/grpc-gateway-inproc-2 	 10	 300000 ns/op	 30 allocs/op
BenchmarkPeers/ListItems-500/protorest-inproc-2    	 10	  50000 ns/op	  9 allocs/op
BenchmarkCodec/marshal/500/protojson-2         	 10	 1000000 ns/op	 100 allocs/op
BenchmarkCodec/marshal/500/protorest-jsonenc-2 	 10	  100000 ns/op	   1 allocs/op
BenchmarkMessageSize/encode/1KiB/proto-2 	 100	 1000 ns/op	 1024.00 MB/s
BenchmarkPeers/GetBook/floor-2 this line is a benchmark's log, not a result
Benchmark	garbage
PASS
pkg: example.com/core/route
BenchmarkMatch/routes=1-2        	 1000	  100 ns/op	   0 B/op	   0 allocs/op
BenchmarkMatch/routes=5000-2     	 1000	  130 ns/op	   0 B/op	   0 allocs/op
BenchmarkStream-2                	   10	  6000 ns/op	 1000 msgs/s
pkg: github.com/protorest/protorest/bench
BenchmarkPeers/GetBook/floor-2               	 100	 1000 ns/op	 500 B/op	 10 allocs/op
BenchmarkPeers/GetBook/grpc-gateway-inproc-2 	 100	 2000 ns/op	 900 B/op	 40 allocs/op
BenchmarkPeers/GetBook/protorest-inproc-2    	 100	  900 ns/op	 600 B/op	 12 allocs/op
BenchmarkPeers/ListItems-500/floor-2               	 10	 100000 ns/op	 5 allocs/op
BenchmarkPeers/ListItems-500/grpc-gateway-inproc-2 	 10	 200000 ns/op	 30 allocs/op
BenchmarkPeers/ListItems-500/protorest-inproc-2    	 10	  40000 ns/op	  9 allocs/op
BenchmarkCodec/marshal/500/protojson-2         	 10	 1000000 ns/op	 100 allocs/op
BenchmarkCodec/marshal/500/protorest-jsonenc-2 	 10	  120000 ns/op	   1 allocs/op
pkg: example.com/core/route
BenchmarkMatch/routes=1-2        	 1000	  100 ns/op	   0 B/op	   0 allocs/op
BenchmarkMatch/routes=5000-2     	 1000	  115 ns/op	   0 B/op	   1 allocs/op
BenchmarkStream-2                	   10	  4000 ns/op	 3000 msgs/s
pkg: github.com/protorest/protorest/bench
BenchmarkPeers/GetBook/floor-2               	 100	 1100 ns/op	 500 B/op	 10 allocs/op
BenchmarkPeers/GetBook/grpc-gateway-inproc-2 	 100	 3000 ns/op	 900 B/op	 40 allocs/op
BenchmarkPeers/GetBook/protorest-inproc-2    	 100	 1000 ns/op	 600 B/op	 11 allocs/op
BenchmarkPeers/ListItems-500/floor-2               	 10	 100000 ns/op	 5 allocs/op
BenchmarkPeers/ListItems-500/grpc-gateway-inproc-2 	 10	 250000 ns/op	 30 allocs/op
BenchmarkPeers/ListItems-500/protorest-inproc-2    	 10	  70000 ns/op	  9 allocs/op
BenchmarkCodec/marshal/500/protojson-2         	 10	 1000000 ns/op	 100 allocs/op
BenchmarkCodec/marshal/500/protorest-jsonenc-2 	 10	  110000 ns/op	   1 allocs/op
`

const corePkg = "example.com/core/route"

func parsed(t *testing.T) *Results {
	t.Helper()
	res := NewResults()
	if err := res.Parse(strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestParse(t *testing.T) {
	res := parsed(t)
	if got, want := res.Packages(), []string{corePkg, benchPkg}; !slices.Equal(got, want) {
		t.Errorf("packages %q, want %q", got, want)
	}
	if got, want := res.Names[corePkg], []string{"BenchmarkMatch/routes=1", "BenchmarkMatch/routes=5000", "BenchmarkStream"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q (the -2 suffix removed, in order)", got, want)
	}
	if got, want := res.Samples(corePkg, "BenchmarkMatch/routes=5000", "ns/op"), []float64{110, 130, 115}; !slices.Equal(got, want) {
		t.Errorf("samples %v, want %v, in pass order", got, want)
	}
	if got, want := res.Samples(corePkg, "BenchmarkStream", "msgs/s"), []float64{2000, 1000, 3000}; !slices.Equal(got, want) {
		t.Errorf("custom metric %v, want %v", got, want)
	}
	// The log line and "Benchmark	garbage" are not results.
	if got := res.Samples(benchPkg, "BenchmarkPeers/GetBook/floor", "ns/op"); len(got) != 3 {
		t.Errorf("GetBook/floor has %d samples, want 3", len(got))
	}
	if got := res.Samples(benchPkg, "BenchmarkMessageSize/encode/1KiB/proto", "MB/s"); !slices.Equal(got, []float64{1024}) {
		t.Errorf("MB/s %v", got)
	}
	if got, want := res.Units(corePkg, "BenchmarkMatch/routes=1"), []string{"ns/op", "B/op", "allocs/op"}; !slices.Equal(got, want) {
		t.Errorf("units %q, want %q", got, want)
	}
	if lo, hi := res.SampleRange(""); lo != 1 || hi != 3 {
		t.Errorf("sample range %d–%d, want 1–3 (MessageSize ran once)", lo, hi)
	}
	if lo, hi := res.SampleRange(corePkg); lo != 3 || hi != 3 {
		t.Errorf("core sample range %d–%d, want 3–3", lo, hi)
	}
	m := MetaFrom(res)
	if m.CPU != "Test CPU @ 1 GHz" || m.NProc != "2" || m.GoVersion != "go1.99" || m.Count != "3" || m.Benchtime != "0.1s" || m.GOARCH != "amd64" || m.Passes != 1 {
		t.Errorf("meta %+v", m)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
		ok   bool
	}{
		{nil, 0, false},
		{[]float64{7}, 7, true},
		{[]float64{3, 1, 2}, 2, true},
		{[]float64{4, 1, 3, 2}, 2.5, true},
		{[]float64{10, 10, 1000, 10, 9}, 10, true},
	} {
		in := slices.Clone(c.in)
		got, ok := Median(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Median(%v) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("Median sorted its argument")
		}
	}
}

func TestSpreads(t *testing.T) {
	res := parsed(t)
	sp := res.Spreads(corePkg, "ns/op")
	// routes=1: 0; routes=5000: deviations 5, 15, 0 from 115; Stream:
	// 1000, 0, 1000 from 5000.
	want := []float64{0, 5.0 / 115, 0.2}
	if len(sp) != len(want) {
		t.Fatalf("spreads %v, want %v", sp, want)
	}
	for i := range want {
		if math.Abs(sp[i]-want[i]) > 1e-12 {
			t.Errorf("spreads %v, want %v", sp, want)
		}
	}
	if q, _ := Quantile(sp, 0.5); q != sp[1] {
		t.Errorf("median spread %v, want %v", q, sp[1])
	}
	if q, _ := Quantile(sp, 0.9); q != 0.2 {
		t.Errorf("90th percentile %v, want 0.2", q)
	}
}

func TestOutliers(t *testing.T) {
	res := parsed(t)
	// GetBook/grpc-gateway-inproc 4000 is not above 2 × 3000; nothing is.
	if out, n := res.Outliers(benchPkg, "ns/op", 2); out != 0 || n != 25 {
		t.Errorf("%d outliers of %d, want 0 of 25", out, n)
	}
	if out, _ := res.Outliers(benchPkg, "ns/op", 1.3); out != 2 {
		t.Errorf("%d outliers above 1.3 × the median, want 2 (4000 vs 3000, 70000 vs 50000)", out)
	}
}

func TestViewAndRatio(t *testing.T) {
	res := parsed(t)
	v := View{res, benchPkg, -1}
	gw := "BenchmarkPeers/GetBook/grpc-gateway-inproc"
	pr := "BenchmarkPeers/GetBook/protorest-inproc"
	if got, _ := v.Get(gw, "ns/op"); got != 3000 {
		t.Errorf("median %v, want 3000", got)
	}
	if got, _ := v.Ratio(pr, gw, "ns/op"); got != 1000.0/3000 {
		t.Errorf("ratio of medians %v, want 1/3", got)
	}
	if got, _ := v.Ratio(pr, gw, "allocs/op"); got != 12.0/40 {
		t.Errorf("allocs ratio %v, want 0.3", got)
	}
	if got, _ := (View{res, benchPkg, 1}).Ratio(pr, gw, "ns/op"); got != 900.0/2000 {
		t.Errorf("pass 1's ratio %v, want 0.45", got)
	}
	if _, ok := (View{res, benchPkg, 3}).Get(pr, "ns/op"); ok {
		t.Error("a fourth pass")
	}
	if _, ok := (View{res, corePkg, -1}).Ratio("BenchmarkMatch/routes=1", "BenchmarkMatch/routes=1", "allocs/op"); ok {
		t.Error("a ratio over 0")
	}
	if _, ok := v.Ratio(pr, "BenchmarkPeers/GetBook/missing", "ns/op"); ok {
		t.Error("a ratio with a missing benchmark")
	}
	if got, want := v.Sub("BenchmarkPeers", 0), []string{"GetBook", "ListItems-500"}; !slices.Equal(got, want) {
		t.Errorf("ops %q, want %q", got, want)
	}
	if got, want := v.Sub("BenchmarkPeers", 1), []string{floor, gwInProc, prInProc}; !slices.Equal(got, want) {
		t.Errorf("peers %q, want %q", got, want)
	}
}

func TestTargets(t *testing.T) {
	res := parsed(t)
	targets := []Target{
		// GetBook 1000/3000 = 0.33, ListItems-500 50000/250000 = 0.2;
		// by pass: 0.3, 0.45, 0.33.
		everyOpTarget("time ≤ 0.4", prInProc, gwInProc, "ns/op", 0.4),
		everyOpTarget("time ≤ 0.3", prInProc, gwInProc, "ns/op", 0.3),
		// 12/40 = 0.3 and 9/30 = 0.3.
		everyOpTarget("allocs ≤ 0.33", prInProc, gwInProc, "allocs/op", 0.33),
		// 50000/100000.
		ratioTarget("floor ≤ 0.6", peerName("ListItems-500", prInProc), peerName("ListItems-500", floor), "ns/op", 0.6),
		ratioTarget("absent", peerName("Echo", prInProc), peerName("Echo", floor), "ns/op", 1),
		// 1,000,000/110,000 = 9.09, 1 alloc.
		codecTarget("marshal ≥ 9×", "marshal", 500, 9, 4),
		codecTarget("marshal ≥ 9×, 0 allocs", "marshal", 500, 9, 0),
		codecTarget("unmarshal", "unmarshal", 500, 5, -1),
		// 115/100, with 0 allocs in the median but 1 in pass 3.
		routingTarget("routing", corePkg, "BenchmarkMatch/routes=5000", "BenchmarkMatch/routes=1", 1.2),
	}
	want := []struct {
		measured, met bool
		detail        string
		passesMet     int
	}{
		{true, true, "worst 0.33× (GetBook), best 0.20×", 2},
		{true, false, "worst 0.33× (GetBook), best 0.20×", 1},
		{true, true, "worst 0.30× (GetBook), best 0.30×", 3},
		{true, true, "0.50×", 2},
		{false, false, "", 0},
		{true, true, "9.09× faster, 1 allocs/op (protorest-jsonenc)", 2},
		{true, false, "9.09× faster, 1 allocs/op (protorest-jsonenc)", 0},
		{false, false, "no protorest codec in BenchmarkCodec/unmarshal", 0},
		{true, true, "1.15×, 0 allocs/op", 1},
	}
	got := EvalTargets(res, benchPkg, targets)
	if len(got) != len(want) {
		t.Fatalf("%d results for %d targets", len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.Measured != w.measured || g.Met != w.met || g.Detail != w.detail || g.PassesMet != w.passesMet || len(g.PassRatios) != g.Passes {
			t.Errorf("%s: measured %v, met %v, %q, passes %d/%d; want %v, %v, %q, %d/3",
				g.Desc, g.Measured, g.Met, g.Detail, g.PassesMet, g.Passes, w.measured, w.met, w.detail, w.passesMet)
		}
		if i == 0 && !slices.Equal(g.PassRatios, []float64{0.3, 0.45, 1000.0 / 3000}) {
			t.Errorf("per-pass worst ratios %v, want [0.3 0.45 0.33]", g.PassRatios)
		}
		if g.Measured && g.Passes != 3 {
			t.Errorf("%s: evaluated on %d passes, want 3", g.Desc, g.Passes)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmtTime(5.628), "5.63 ns"},
		{fmtTime(1234), "1.23 µs"},
		{fmtTime(161269), "161 µs"},
		{fmtTime(1.67e6), "1.67 ms"},
		{fmtTime(999.6), "1,000 ns"},
		{fmtBytes(6771), "6,771 B"},
		{fmtBytes(21915), "21.4 KiB"},
		{fmtBytes(1.86e6), "1.77 MiB"},
		{fmtCount(21349), "21,349"},
		{fmtCount(12.5), "12.5"},
		{fmtRatio(0.333), "0.33×"},
		{fmtRatio(60.52), "60.5×"},
		{fmtValue(135000, "msgs/s"), "135 k msgs/s"},
		{fmtValue(8162.67, "MB/s"), "8,163 MB/s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestSplice(t *testing.T) {
	const doc = "# Benchmarks\n\nIntro.\n\nReproduce: this.\n\n## Routing\n\nBy hand.\n"
	got, err := Splice(doc, "GENERATED\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Benchmarks\n\nIntro.\n\nReproduce: this.\n\n" + beginMarker + "\nGENERATED\n" + endMarker + "\n\n## Routing\n\nBy hand.\n"
	if got != want {
		t.Errorf("inserted:\n%s\nwant:\n%s", got, want)
	}
	again, err := Splice(got, "NEW\nLINES\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(want, "GENERATED\n", "NEW\nLINES\n", 1); again != want {
		t.Errorf("replaced:\n%s\nwant:\n%s", again, want)
	}
	if got, _ := Splice("# T\n\nOnly an intro.", "G\n"); got != "# T\n\nOnly an intro.\n\n"+beginMarker+"\nG\n"+endMarker+"\n" {
		t.Errorf("appended: %q", got)
	}
	if _, err := Splice("# T\n"+endMarker+"\n"+beginMarker+"\n", "G\n"); err == nil {
		t.Error("markers in the wrong order were accepted")
	}
}

func TestReportAndChart(t *testing.T) {
	res := parsed(t)
	meta := MetaFrom(res)
	meta.ChartLink = "benchmarks.png"
	md := Report(res, meta)
	for _, want := range []string{
		"Test CPU @ 1 GHz", "go1.99", "`-benchtime 0.1s`", "![", "(benchmarks.png)",
		"| GetBook | 1.00 µs | 3.00 µs | 1.00 µs |",
		"| ListItems-500 | 0.20× | 0.30× | — | — | 0.50× | 1.80× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, beginMarker) || strings.Contains(md, endMarker) {
		t.Error("the section contains a marker")
	}
	b, err := PeersChart(res, meta).PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() < 600 || r.Dy() < 300 {
		t.Errorf("chart of %v", r)
	}
	c := PeersChart(res, meta)
	if got := c.Series[2].Values; len(got) != 2 || got[0] != 1.0 || got[1] != 0.5 || math.IsNaN(got[0]) {
		t.Errorf("protorest's bars %v, want [1 0.5]", got)
	}
}
