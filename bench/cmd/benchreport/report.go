package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/protorest/protorest/bench/internal/mdsection"
)

// benchPkg is the benchmark suite's package.
const benchPkg = "github.com/protorest/protorest/bench"

// peerLabels are the peers' column headings.
var peerLabels = map[string]string{
	floor:      "floor",
	gwInProc:   "grpc-gateway in-proc",
	prInProc:   "protorest in-proc",
	gwTCP:      "grpc-gateway TCP",
	prTCP:      "protorest TCP",
	gwUnix:     "grpc-gateway Unix",
	prUnix:     "protorest Unix",
	grpcDirect: "gRPC direct (TCP)",
}

// peerOrder is the order of the peers' columns; peers it does not name
// follow, in the order of the results.
var peerOrder = []string{floor, gwInProc, prInProc, gwTCP, prTCP, gwUnix, prUnix, grpcDirect}

// Meta describes the run.
type Meta struct {
	GOARCH, NProc, CPU, GoVersion, Date, Count, Benchtime, Commit, Elapsed string
	Passes                                                                 int // complete passes found
	ChartLink                                                              string
}

// MetaFrom reads the run's description from the configuration lines
// scripts/bench.sh writes (goarch, nproc, cpu-model, go, date, count,
// benchtime, commit, elapsed), falling back on go test's own (goarch,
// cpu).
func MetaFrom(res *Results) Meta {
	get := func(keys ...string) string {
		for _, k := range keys {
			if v := res.Config[k]; v != "" {
				return v
			}
		}
		return "?"
	}
	lo, _ := res.SampleRange("")
	return Meta{
		GOARCH: get("goarch"), NProc: get("nproc"), CPU: get("cpu-model", "cpu"),
		GoVersion: get("go"), Date: get("date"), Count: get("count"), Benchtime: get("benchtime"),
		Commit: get("commit"), Elapsed: get("elapsed"), Passes: lo,
	}
}

// Report is the Markdown of the generated section of docs/benchmarks.md (the
// text between the markers).
func Report(res *Results, meta Meta) string {
	v := View{res, benchPkg, -1}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("## The latest run of scripts/bench.sh (generated)\n\n")
	p("_Written by `scripts/bench.sh` (`bench/cmd/benchreport`) from its last run; edit the generator, not this section._\n\n")
	p("Machine: %s, %s CPUs (`nproc`), %s; %s. Run %s at %s, in %s: medians of %d interleaved passes (`COUNT=%s`), `-benchtime %s`. ",
		meta.GOARCH, meta.NProc, meta.CPU, meta.GoVersion, meta.Date, meta.Commit, meta.Elapsed, meta.Passes, meta.Count, meta.Benchtime)
	if sp := res.Spreads(benchPkg, "ns/op"); len(sp) > 0 {
		med, _ := Quantile(sp, 0.5)
		p90, _ := Quantile(sp, 0.9)
		p("Noise: the times' median absolute deviation over the passes is %.0f %% of the median for the median benchmark, %.0f %% at the 90th percentile",
			100*med, 100*p90)
		if out, n := res.Outliers(benchPkg, "ns/op", 2); out > 0 {
			p(", and %d of %d samples took more than twice their median (stalls of the shared machine, which the medians ignore)", out, n)
		}
		p("; ")
		if sa := res.Spreads(benchPkg, "allocs/op"); len(sa) > 0 {
			a90, _ := Quantile(sa, 0.9)
			p("allocation counts deviate by %.1f %% at the 90th percentile. ", 100*a90)
		}
	}
	p("Allocations of the remote peers count the whole process: HTTP client and server, gateway and gRPC backend. ")
	p("The floor is a hand-written `net/http` handler calling the same Library with `encoding/json` (`bench/floor.go`).\n\n")

	if meta.ChartLink != "" {
		p("![Time per request in-process, relative to the floor](%s)\n\n", meta.ChartLink)
	}

	p("### Issue 5's targets\n\n")
	p("The status is that of the ratio of the medians. _Per pass_ is the same ratio computed on each pass's samples ")
	p("alone, which were measured seconds apart: their median, and in how many passes the target held. ")
	p("Where the two disagree, the outcome is within the machine's noise.\n\n")
	tt := table{Head: []string{"target", "measured (medians)", "per pass", "status"}, Align: "lrrl"}
	for _, tr := range EvalTargets(res, benchPkg, Targets) {
		status, detail, passes := "not measured", tr.Detail, "—"
		if tr.Measured {
			status = "**missed**"
			if tr.Met {
				status = "met"
			}
			if m, ok := Median(tr.PassRatios); ok {
				passes = fmt.Sprintf("%s, met in %d/%d", fmtRatio(m), tr.PassesMet, tr.Passes)
			}
		}
		if detail == "" {
			detail = "—"
		}
		tt.Add(tr.Desc, detail, passes, status)
	}
	p("%s\n", &tt)

	ops := v.Sub("BenchmarkPeers", 0)
	if len(ops) > 0 {
		peers := orderPeers(v.Sub("BenchmarkPeers", 1))
		p("### Whole requests (BenchmarkPeers)\n\n")
		p("One request and its whole response per iteration. In-process peers are called with `httptest`; ")
		p("remote ones are a gateway on a loopback TCP or Unix socket in front of a gRPC backend over loopback; ")
		p("gRPC direct is the backend called with a gRPC client, no gateway.\n\n")
		for _, m := range []struct{ title, unit string }{
			{"Time per request", "ns/op"},
			{"Allocations per request", "allocs/op"},
			{"Bytes allocated per request", "B/op"},
		} {
			p("%s:\n\n", m.title)
			t := table{Head: []string{"op"}, Align: "l"}
			for _, peer := range peers {
				t.Head = append(t.Head, peerLabel(peer))
				t.Align += "r"
			}
			for _, op := range ops {
				row := []string{op}
				for _, peer := range peers {
					row = append(row, cell(v, peerName(op, peer), m.unit))
				}
				t.Add(row...)
			}
			p("%s\n", &t)
		}
		p("Ratios (protorest / grpc-gateway, protorest / floor; below 1 protorest is faster or allocates less):\n\n")
		t := table{
			Head: []string{"op", "time, in-proc vs gw", "allocs, in-proc vs gw", "time, TCP vs gw", "time, Unix vs gw",
				"time, in-proc vs floor", "allocs, in-proc vs floor"},
			Align: "lrrrrrr",
		}
		for _, op := range ops {
			pn := func(peer string) string { return peerName(op, peer) }
			t.Add(op,
				ratioCell(v, pn(prInProc), pn(gwInProc), "ns/op"),
				ratioCell(v, pn(prInProc), pn(gwInProc), "allocs/op"),
				ratioCell(v, pn(prTCP), pn(gwTCP), "ns/op"),
				ratioCell(v, pn(prUnix), pn(gwUnix), "ns/op"),
				ratioCell(v, pn(prInProc), pn(floor), "ns/op"),
				ratioCell(v, pn(prInProc), pn(floor), "allocs/op"))
		}
		p("%s\n", &t)
	}

	if dirs := v.Sub("BenchmarkCodec", 0); len(dirs) > 0 {
		p("### JSON codecs on the ListItems answer (BenchmarkCodec)\n\n")
		p("n items; _vs protojson_ is protojson's time over the codec's (above 1 the codec is faster). ")
		p("`encoding-json` works on the floor's plain structs; `proto` and `vtprotobuf` (the methods protoc-gen-go-vtproto generates, ")
		p("which protorest's binary codec uses when a message has them) are the binary encoding, for scale.\n\n")
		t := table{Head: []string{"", "n", "codec", "time/op", "vs protojson", "B/op", "allocs/op"}, Align: "lrlrrrr"}
		for _, dir := range dirs {
			for _, ns := range v.Sub("BenchmarkCodec/"+dir, 0) {
				n, err := strconv.Atoi(ns)
				if err != nil {
					continue
				}
				for _, c := range v.Sub("BenchmarkCodec/"+dir+"/"+ns, 0) {
					name := codecName(dir, n, c)
					vs := "—"
					if c != protojson {
						vs = ratioCell(v, codecName(dir, n, protojson), name, "ns/op")
					}
					t.Add(dir, ns, "`"+c+"`", cell(v, name, "ns/op"), vs, cell(v, name, "B/op"), cell(v, name, "allocs/op"))
				}
			}
		}
		p("%s\n", &t)
	}

	if counts := v.Sub("BenchmarkRouting", 0); len(counts) > 0 {
		routers := v.Sub("BenchmarkRouting", 1)
		p("### Routing (BenchmarkRouting)\n\n")
		p("Dispatching a GET among n AIP-style routes registered with `HandlePath`, matching one in the middle; ")
		p("the handler does nothing.\n\n")
		t := table{Head: []string{"routes"}, Align: "r"}
		for _, r := range routers {
			t.Head = append(t.Head, r+" time/op", r+" allocs/op", r+" vs 1 route")
			t.Align += "rrr"
		}
		hasRatio := slices.Contains(routers, routerPR) && slices.Contains(routers, routerGW)
		if hasRatio {
			t.Head = append(t.Head, "protorest / grpc-gateway")
			t.Align += "r"
		}
		for _, ns := range counts {
			n, err := strconv.Atoi(ns)
			if err != nil {
				continue
			}
			row := []string{fmtInt(n)}
			for _, r := range routers {
				row = append(row, cell(v, routingName(n, r), "ns/op"), cell(v, routingName(n, r), "allocs/op"),
					ratioCell(v, routingName(n, r), routingName(1, r), "ns/op"))
			}
			if hasRatio {
				row = append(row, ratioCell(v, routingName(n, routerPR), routingName(n, routerGW), "ns/op"))
			}
			t.Add(row...)
		}
		p("%s\n", &t)
	}

	if dirs := v.Sub("BenchmarkMessageSize", 0); len(dirs) > 0 {
		p("### Message size (BenchmarkMessageSize)\n\n")
		p("An `EchoMessage` whose text field has the given size; time per message and throughput of the payload.\n\n")
		codecs := v.Sub("BenchmarkMessageSize", 2)
		t := table{Head: []string{"size"}, Align: "l"}
		for _, d := range dirs {
			for _, c := range codecs {
				t.Head = append(t.Head, d+" "+c)
				t.Align += "r"
			}
		}
		for _, size := range v.Sub("BenchmarkMessageSize", 1) {
			row := []string{size}
			for _, d := range dirs {
				for _, c := range codecs {
					name := "BenchmarkMessageSize/" + d + "/" + size + "/" + c
					cellText := cell(v, name, "ns/op")
					if mbs, ok := v.Get(name, "MB/s"); ok {
						cellText += " · " + fmtValue(mbs, "MB/s")
					}
					row = append(row, cellText)
				}
			}
			t.Add(row...)
		}
		p("%s\n", &t)
	}

	var core []string
	for _, pkg := range res.Packages() {
		if pkg != benchPkg {
			core = append(core, pkg)
		}
	}
	if len(core) > 0 {
		p("### The core module's benchmarks\n\n")
		p("Medians of the same passes; the sections below this one discuss them.\n\n")
		p("<details><summary>%d benchmarks in %d packages</summary>\n\n", countNames(res, core), len(core))
		for _, pkg := range core {
			p("`%s`\n\n", pkg)
			t := table{Head: []string{"benchmark", "time/op", "B/op", "allocs/op", "other"}, Align: "lrrrl"}
			cv := View{res, pkg, -1}
			for _, name := range res.Names[pkg] {
				var other []string
				for _, u := range res.Units(pkg, name) {
					if u != "ns/op" && u != "B/op" && u != "allocs/op" {
						other = append(other, cell(cv, name, u))
					}
				}
				t.Add("`"+strings.TrimPrefix(name, "Benchmark")+"`", cell(cv, name, "ns/op"), cell(cv, name, "B/op"),
					cell(cv, name, "allocs/op"), strings.Join(other, ", "))
			}
			p("%s\n", &t)
		}
		p("</details>\n\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// orderPeers puts peers in peerOrder, unknown ones last.
func orderPeers(peers []string) []string {
	var out []string
	for _, p := range peerOrder {
		if slices.Contains(peers, p) {
			out = append(out, p)
		}
	}
	for _, p := range peers {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func peerLabel(p string) string {
	if l, ok := peerLabels[p]; ok {
		return l
	}
	return p
}

func countNames(res *Results, pkgs []string) int {
	n := 0
	for _, p := range pkgs {
		n += len(res.Names[p])
	}
	return n
}

// The markers of the generated section of docs/benchmarks.md.
const (
	beginMarker = "<!-- bench:begin -->"
	endMarker   = "<!-- bench:end -->"
)

// Splice puts section between the markers of doc, leaving the rest of doc
// as it is (mdsection.Splice).
func Splice(doc, section string) (string, error) {
	return mdsection.Splice(doc, section, beginMarker, endMarker)
}
