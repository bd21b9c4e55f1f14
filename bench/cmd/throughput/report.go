package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/protorest/protorest/bench"
	"github.com/protorest/protorest/bench/internal/mdsection"
)

// The markers of the generated section of docs/benchmarks.md.
const (
	beginMarker = "<!-- throughput:begin -->"
	endMarker   = "<!-- throughput:end -->"
)

func reportCommand(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	md := fs.String("md", "../docs/benchmarks.md", "the Markdown file whose generated section to write; empty: print the section")
	chart := fs.String("chart", "", "the PNG to draw the chart into, linked from -md; empty: no chart")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("report: want one results file")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	run, results, err := readResults(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	if len(results) == 0 {
		return fmt.Errorf("%s: no results", fs.Arg(0))
	}
	m := medians(results)
	chartLink := ""
	if *chart != "" {
		img, err := cpuChart(run, m).PNG()
		if err != nil {
			return err
		}
		if err := os.WriteFile(*chart, img, 0o644); err != nil {
			return err
		}
		if *md != "" {
			if chartLink, err = filepath.Rel(filepath.Dir(*md), *chart); err != nil {
				return err
			}
		}
	}
	section := report(run, results, m, filepath.ToSlash(chartLink))
	if *md == "" {
		fmt.Print(section)
		return nil
	}
	doc, err := os.ReadFile(*md)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	out, err := mdsection.Splice(string(doc), section, beginMarker, endMarker)
	if err != nil {
		return fmt.Errorf("%s: %w", *md, err)
	}
	return os.WriteFile(*md, []byte(out), 0o644)
}

// A key names the rounds of one contender on one route and protocol.
type key struct{ protocol, route, contender string }

// A median is the medians of a key's rounds (peak RSS: the largest).
type median struct {
	rps, p50, p99, p999, cpu float64
	peakRSS                  int64
	rounds                   int
}

func medians(results []Result) map[key]median {
	by := map[key][]Result{}
	for _, r := range results {
		k := key{r.Protocol, r.Route, r.Contender}
		by[k] = append(by[k], r)
	}
	out := map[key]median{}
	for k, rs := range by {
		of := func(f func(Result) float64) float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r)
			}
			slices.Sort(v)
			if n := len(v); n%2 == 0 {
				return (v[n/2-1] + v[n/2]) / 2
			}
			return v[len(v)/2]
		}
		md := median{
			rps: of(func(r Result) float64 { return r.RPS }), p50: of(func(r Result) float64 { return r.P50 }),
			p99: of(func(r Result) float64 { return r.P99 }), p999: of(func(r Result) float64 { return r.P999 }),
			cpu: of(func(r Result) float64 { return r.CPU }), rounds: len(rs),
		}
		for _, r := range rs {
			md.peakRSS = max(md.peakRSS, r.PeakRSS)
		}
		out[k] = md
	}
	return out
}

// ratio is a's value over b's, or NaN when either is missing.
func ratio(m map[key]median, p, route, a, b string, value func(median) float64) float64 {
	ma, okA := m[key{p, route, a}]
	mb, okB := m[key{p, route, b}]
	if !okA || !okB || value(mb) == 0 {
		return math.NaN()
	}
	return value(ma) / value(mb)
}

func cpuOf(md median) float64   { return md.cpu }
func rpsOf(md median) float64   { return md.rps }
func p99Of(md median) float64   { return md.p99 }
func fmtRatio(r float64) string { return mdsection.Sig(r) + "×" }

// report is the generated section.
func report(run *Run, results []Result, m map[key]median, chartLink string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Throughput under load: the latest run of scripts/throughput.sh (generated)\n\n")
	p("_Written by `scripts/throughput.sh` (`bench/cmd/throughput`) from its last run; edit the generator, not this section._\n\n")
	loads := make([]float64, len(results))
	for i, r := range results {
		loads[i] = r.Load
	}
	slices.Sort(loads)
	serve := "its defaults (the access log on, to a file)"
	if len(run.ServeFlags) > 0 {
		serve = "`" + strings.Join(run.ServeFlags, " ") + "`"
	}
	p("Machine: %s; %s; %s. Run %s at %s, in %s: medians of %d interleaved rounds (each round loads every contender in turn on each route and protocol for %s), %d connections with one request at a time on each (closed loop), %d threads of the load generator. protorest serve with %s. ",
		run.Machine, run.GoVersion, strings.Join(tools(run), ", "), run.Date, run.Commit, orDash(run.Elapsed), run.Count, run.Duration, run.Conns, run.Threads, serve)
	p("The load generator runs on the same CPUs as the contender, and the machine was shared: its 1-minute load average as the rounds began ranged %.1f to %.1f (median %.1f). Absolute figures are noisy; the claim is the ratios within this run.\n\n",
		loads[0], loads[len(loads)-1], loads[len(loads)/2])
	p("CPU per request is the contender process's user and system time (`/proc/PID/stat`) over the round, divided by its requests: the gateway's own cost, and for an in-process contender the Library's too; the remote contenders share one gRPC backend process, not counted. Peak RSS is the process's `VmHWM` over a round, reset to its RSS as the round begins (so it includes what the process kept from earlier rounds, the list route's buffers among them); the largest of the rounds.\n\n")
	p("Command: `%s bash scripts/throughput.sh`.\n\n", knobs(run, results))
	if chartLink != "" {
		p("![CPU per request relative to the floor](%s)\n\n", chartLink)
	}
	p("The routes (bench's Library, `bench/routes.go`):\n\n")
	rt := mdsection.Table{Head: []string{"route", "request", "answer"}, Align: "lll"}
	for _, r := range bench.Routes {
		req := r.Op.HTTP.Method + " " + r.Op.HTTP.Target
		if r.Op.HTTP.Body != "" {
			req += " with a JSON body"
		}
		rt.Add(r.Name, "`"+req+"`", routeAnswers[r.Name])
	}
	p("%s\n", &rt)

	p("### Issue 24's targets\n\n")
	targetsTable(&b, m)
	serveVariants(&b, m)

	for _, remote := range []bool{true, false} {
		for _, proto := range protocols {
			var names []string
			for _, c := range contenders {
				if c.remote == remote && hasAny(m, proto.name, c.name) {
					names = append(names, c.name)
				}
			}
			if len(names) == 0 {
				continue
			}
			floorName, gwName := bench.FloorProxyName, "grpc-gateway"
			title := "Remote, in front of the gRPC backend"
			if !remote {
				floorName, gwName, title = bench.FloorName, bench.GRPCGatewayInProcessName, "In-process (library mode)"
			}
			p("### %s: %s\n\n", title, proto.label)
			t := mdsection.Table{Head: []string{"route", "contender", "req/s", "p50", "p99", "p99.9", "CPU/request", "CPU vs floor", "CPU vs grpc-gateway", "peak RSS"}, Align: "llrrrrrrrr"}
			for _, route := range bench.Routes {
				for _, c := range names {
					md, ok := m[key{proto.name, route.Name, c}]
					if !ok {
						if why, skip := bench.SkippedRoutes[c][route.Name]; skip {
							t.Add(route.Name, c, "—", "—", "—", "—", "—", "—", "—", why)
						}
						continue
					}
					t.Add(route.Name, c, mdsection.Sig(md.rps), fmtMicros(md.p50), fmtMicros(md.p99), fmtMicros(md.p999),
						fmtMicros(md.cpu), ratioCell(ratio(m, proto.name, route.Name, c, floorName, cpuOf)),
						ratioCell(ratio(m, proto.name, route.Name, c, gwName, cpuOf)), mdsection.Sig(float64(md.peakRSS)/1024)+" MiB")
				}
			}
			p("%s\n", &t)
		}
	}
	return b.String()
}

// serveVariants writes, when the run measured them, protorest serve's
// CPU per request beside serve without its access log, and beside serve
// built at BASE.
func serveVariants(b *strings.Builder, m map[key]median) {
	const off, base = "protorest-no-access-log", "protorest-base"
	hasOff, hasBase := false, false
	for k := range m {
		hasOff = hasOff || k.contender == off
		hasBase = hasBase || k.contender == base
	}
	if !hasOff && !hasBase {
		return
	}
	fmt.Fprintf(b, "### protorest serve's CPU per request: the access log, and the BASE revision\n\n")
	t := mdsection.Table{Head: []string{"protocol", "route", "protorest serve"}, Align: "llr"}
	if hasOff {
		t.Head = append(t.Head, "--access-log=false", "the access log's cost")
		t.Align += "rr"
	}
	if hasBase {
		t.Head = append(t.Head, "at BASE", "vs BASE")
		t.Align += "rr"
	}
	for _, proto := range protocols {
		for _, route := range bench.Routes {
			on, ok := m[key{proto.name, route.Name, "protorest"}]
			if !ok {
				continue
			}
			row := []string{proto.name, route.Name, fmtMicros(on.cpu)}
			if hasOff {
				if o, ok := m[key{proto.name, route.Name, off}]; ok {
					row = append(row, fmtMicros(o.cpu), fmt.Sprintf("%+.1f µs", on.cpu-o.cpu))
				} else {
					row = append(row, "—", "—")
				}
			}
			if hasBase {
				if o, ok := m[key{proto.name, route.Name, base}]; ok {
					row = append(row, fmtMicros(o.cpu), fmtRatio(on.cpu/o.cpu))
				} else {
					row = append(row, "—", "—")
				}
			}
			t.Add(row...)
		}
	}
	fmt.Fprintf(b, "%s\n", &t)
}

// tools are the load generators' versions, without wrk's copyright.
func tools(run *Run) []string {
	var out []string
	for _, t := range run.Tools {
		t, _, _ = strings.Cut(t, " Copyright")
		out = append(out, t)
	}
	return out
}

// knobs are the settings of scripts/throughput.sh that reproduce the
// run: its counts, and the routes, contenders and protocols it measured,
// in the order of the run.
func knobs(run *Run, results []Result) string {
	var routes, names, protos []string
	for _, r := range results {
		if !slices.Contains(routes, r.Route) {
			routes = append(routes, r.Route)
		}
		if !slices.Contains(names, r.Contender) {
			names = append(names, r.Contender)
		}
		if !slices.Contains(protos, r.Protocol) {
			protos = append(protos, r.Protocol)
		}
	}
	k := fmt.Sprintf("COUNT=%d DURATION=%s CONNS=%d THREADS=%d ROUTES=%s CONTENDERS=%s PROTOCOLS=%s",
		run.Count, run.Duration, run.Conns, run.Threads, strings.Join(routes, ","), strings.Join(names, ","), strings.Join(protos, ","))
	if len(run.ServeFlags) > 0 {
		k += fmt.Sprintf(" SERVE_FLAGS='%s'", strings.Join(run.ServeFlags, " "))
	}
	if slices.Contains(names, "protorest-base") {
		k += " BASE=<the revision>"
	}
	return k
}

// routeAnswers say what each route answers.
var routeAnswers = map[string]string{
	"get":    "a Book, 0.2 KB",
	"query":  "SearchBooks: two Books, 0.4 KB",
	"post":   "CreateBook: the Book",
	"list":   fmt.Sprintf("ListItems, %d items: 100 KB", bench.ListRouteItems),
	"stream": fmt.Sprintf("StreamItems: a server stream of %d lines of {\"result\": Item}", bench.StreamRouteItems),
}

func hasAny(m map[key]median, protocol, contender string) bool {
	for k := range m {
		if k.protocol == protocol && k.contender == contender {
			return true
		}
	}
	return false
}

func ratioCell(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return fmtRatio(r)
}

func fmtMicros(us float64) string {
	if us >= 1000 {
		return mdsection.Sig(us/1000) + " ms"
	}
	return mdsection.Sig(us) + " µs"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
