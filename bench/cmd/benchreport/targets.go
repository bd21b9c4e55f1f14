package main

import (
	"fmt"
	"strings"
)

// The names the benchmark suite gives its peers, routers and codecs
// (bench/peers.go, routing_bench_test.go, codec_bench_test.go);
// names_test.go checks the peers' against the suite's constants.
const (
	floor        = "floor"
	gwInProc     = "grpc-gateway-inproc"
	gwTCP        = "grpc-gateway-tcp"
	gwUnix       = "grpc-gateway-unix"
	prInProc     = "protorest-inproc"
	prTCP        = "protorest-tcp"
	prUnix       = "protorest-unix"
	grpcDirect   = "grpc-tcp"
	protojson    = "protojson"
	routerPR     = "protorest"
	routerGW     = "grpc-gateway"
	protorestPfx = "protorest" // the codecs of protorest's own are named protorest…
)

// peerName is BenchmarkPeers' name for peer on op.
func peerName(op, peer string) string { return "BenchmarkPeers/" + op + "/" + peer }

// codecName is BenchmarkCodec's name for codec on dir ("marshal",
// "unmarshal") at n items.
func codecName(dir string, n int, codec string) string {
	return fmt.Sprintf("BenchmarkCodec/%s/%d/%s", dir, n, codec)
}

// routingName is BenchmarkRouting's name for router among n routes.
func routingName(n int, router string) string {
	return fmt.Sprintf("BenchmarkRouting/%d/%s", n, router)
}

// An Outcome is a target evaluated on medians, or on one pass.
type Outcome struct {
	Measured bool    // false: the benchmarks it needs are missing
	Met      bool    // the target holds
	Ratio    float64 // the ratio the target bounds
	Detail   string  // what was measured, e.g. "worst 0.83× (UpdateBook), best 0.22×"
}

// A Target is one of issue 5's goals, a condition on ratios of medians.
type Target struct {
	Desc string
	Pkg  string // the package of the benchmarks it reads; "" for the suite's
	Eval func(v View) Outcome
}

// ratioTarget is "a/b in unit ≤ limit" for one pair of benchmarks.
func ratioTarget(desc, a, b, unit string, limit float64) Target {
	return Target{desc, "", func(v View) Outcome {
		r, ok := v.Ratio(a, b, unit)
		if !ok {
			return Outcome{}
		}
		return Outcome{Measured: true, Met: r <= limit, Ratio: r, Detail: fmtRatio(r)}
	}}
}

// everyOpTarget is "pr/gw in unit ≤ limit" on every op of BenchmarkPeers;
// it reports the worst op.
func everyOpTarget(desc, pr, gw, unit string, limit float64) Target {
	return Target{desc, "", func(v View) Outcome {
		worst, worstOp := -1.0, ""
		best := -1.0
		for _, op := range v.Sub("BenchmarkPeers", 0) {
			r, ok := v.Ratio(peerName(op, pr), peerName(op, gw), unit)
			if !ok {
				continue
			}
			if r > worst {
				worst, worstOp = r, op
			}
			if best < 0 || r < best {
				best = r
			}
		}
		if worstOp == "" {
			return Outcome{}
		}
		return Outcome{Measured: true, Met: worst <= limit, Ratio: worst,
			Detail: fmt.Sprintf("worst %s (%s), best %s", fmtRatio(worst), worstOp, fmtRatio(best))}
	}}
}

// codecTarget is "protorest's codec is at least speedup times faster than
// protojson on dir at n items", and, if maxAllocs ≥ 0, "with at most
// maxAllocs allocations". protorest's codec is the first codec of
// BenchmarkCodec whose name starts with "protorest" for dir.
func codecTarget(desc, dir string, n int, speedup float64, maxAllocs float64) Target {
	return Target{desc, "", func(v View) Outcome {
		codec := ""
		for _, c := range v.Sub(fmt.Sprintf("BenchmarkCodec/%s/%d", dir, n), 0) {
			if strings.HasPrefix(c, protorestPfx) {
				codec = c
				break
			}
		}
		if codec == "" {
			return Outcome{Detail: "no protorest codec in BenchmarkCodec/" + dir}
		}
		r, ok := v.Ratio(codecName(dir, n, protojson), codecName(dir, n, codec), "ns/op")
		if !ok {
			return Outcome{}
		}
		o := Outcome{Measured: true, Met: r >= speedup, Ratio: r, Detail: fmt.Sprintf("%s faster (%s)", fmtRatio(r), codec)}
		if maxAllocs >= 0 {
			a, ok := v.Get(codecName(dir, n, codec), "allocs/op")
			if !ok {
				return Outcome{}
			}
			o.Met = o.Met && a <= maxAllocs
			o.Detail = fmt.Sprintf("%s faster, %s allocs/op (%s)", fmtRatio(r), fmtCount(a), codec)
		}
		return o
	}}
}

// routingTarget is "routing among 5,000 routes (name5000) takes at most
// limit times the time among 1 (name1), with no allocation", on pkg's
// benchmarks.
func routingTarget(desc, pkg, name5000, name1 string, limit float64) Target {
	return Target{desc, pkg, func(v View) Outcome {
		r, ok := v.Ratio(name5000, name1, "ns/op")
		a, ok2 := v.Get(name5000, "allocs/op")
		if !ok || !ok2 {
			return Outcome{}
		}
		return Outcome{Measured: true, Met: r <= limit && a == 0, Ratio: r, Detail: fmt.Sprintf("%s, %s allocs/op", fmtRatio(r), fmtCount(a))}
	}}
}

// Targets are issue 5's performance goals.
var Targets = []Target{
	everyOpTarget("protorest in-process vs grpc-gateway in-process, time, every op: ≤ 0.4×", prInProc, gwInProc, "ns/op", 0.4),
	everyOpTarget("protorest in-process vs grpc-gateway in-process, allocs, every op: ≤ 0.33×", prInProc, gwInProc, "allocs/op", 0.33),
	ratioTarget("protorest in-process vs floor, time, GetBook: ≤ 1.0×", peerName("GetBook", prInProc), peerName("GetBook", floor), "ns/op", 1.0),
	ratioTarget("protorest in-process vs floor, time, UpdateBook: ≤ 1.0×", peerName("UpdateBook", prInProc), peerName("UpdateBook", floor), "ns/op", 1.0),
	ratioTarget("protorest in-process vs floor, time, Echo: ≤ 1.0×", peerName("Echo", prInProc), peerName("Echo", floor), "ns/op", 1.0),
	ratioTarget("protorest in-process vs floor, time, ListItems 50: ≤ 0.8×", peerName("ListItems-50", prInProc), peerName("ListItems-50", floor), "ns/op", 0.8),
	ratioTarget("protorest in-process vs floor, time, ListItems 500: ≤ 0.6×", peerName("ListItems-500", prInProc), peerName("ListItems-500", floor), "ns/op", 0.6),
	ratioTarget("protorest remote vs grpc-gateway remote (TCP), time, ListItems 500: ≤ 0.6×", peerName("ListItems-500", prTCP), peerName("ListItems-500", gwTCP), "ns/op", 0.6),
	ratioTarget("protorest remote vs grpc-gateway remote (Unix), time, ListItems 500: ≤ 0.6×", peerName("ListItems-500", prUnix), peerName("ListItems-500", gwUnix), "ns/op", 0.6),
	ratioTarget("protorest remote vs grpc-gateway remote (TCP), time, GetBook: ≤ 0.8×", peerName("GetBook", prTCP), peerName("GetBook", gwTCP), "ns/op", 0.8),
	ratioTarget("protorest remote vs grpc-gateway remote (Unix), time, GetBook: ≤ 0.8×", peerName("GetBook", prUnix), peerName("GetBook", gwUnix), "ns/op", 0.8),
	codecTarget("JSON codec vs protojson, ListItems 500, marshal: ≥ 9× faster, ≤ 4 allocs", "marshal", 500, 9, 4),
	codecTarget("JSON codec vs protojson, ListItems 500, unmarshal: ≥ 5× faster", "unmarshal", 500, 5, -1),
	routingTarget("routing, 5,000 routes vs 1: ≤ 1.2× time, 0 allocs — the router (internal/route BenchmarkMatch)",
		"github.com/protorest/protorest/internal/route", "BenchmarkMatch/routes=5000", "BenchmarkMatch/routes=1", 1.2),
	routingTarget("routing, 5,000 routes vs 1: ≤ 1.2× time, 0 allocs — a whole dispatch through HandlePath (BenchmarkRouting)",
		"", routingName(5000, routerPR), routingName(1, routerPR), 1.2),
}

// A TargetResult is a target's outcome on the medians, and its outcomes
// on the samples of each pass alone, which pair samples measured seconds
// apart: on a noisy machine, where a benchmark's samples can be bimodal,
// the median of the per-pass ratios is the steadier estimate.
type TargetResult struct {
	Target
	Outcome
	PassRatios        []float64 // the ratio in each pass where it was measured
	PassesMet, Passes int
}

// EvalTargets evaluates targets on res; those that do not name their
// package read pkg's benchmarks.
func EvalTargets(res *Results, pkg string, targets []Target) []TargetResult {
	var out []TargetResult
	for _, t := range targets {
		pkg := pkg
		if t.Pkg != "" {
			pkg = t.Pkg
		}
		_, passes := res.SampleRange(pkg)
		tr := TargetResult{Target: t, Outcome: t.Eval(View{res, pkg, -1})}
		if tr.Measured {
			for p := range passes {
				if o := t.Eval(View{res, pkg, p}); o.Measured {
					tr.Passes++
					tr.PassRatios = append(tr.PassRatios, o.Ratio)
					if o.Met {
						tr.PassesMet++
					}
				}
			}
		}
		out = append(out, tr)
	}
	return out
}
