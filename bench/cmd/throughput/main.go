// Command throughput is the driver of the throughput harness
// (scripts/throughput.sh), which measures the gateways under load beside
// each other: each contender a process of its own in front of one gRPC
// backend (or, in-process, with the Library in its own process), loaded
// by wrk (HTTP/1.1) and h2load (HTTP/2 over h2c and over TLS) in a closed
// loop, round after round, the contenders interleaved.
//
//	throughput run -bin DIR -out results.jsonl [flags]
//	throughput report -md ../docs/benchmarks.md -chart ../docs/throughput.png results.jsonl
//
// run writes one JSON line describing the run, then one per contender,
// route and protocol of each round: requests, req/s, latency
// percentiles, the contender process's CPU time per request
// (utime+stime from /proc/PID/stat) and its peak RSS (VmHWM, reset
// before each round). report writes the medians over the rounds into the
// generated section of the Markdown file, between
// <!-- throughput:begin --> and <!-- throughput:end -->, and a chart.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: throughput run|report [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCommand(os.Args[2:])
	case "report":
		err = reportCommand(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "throughput: unknown command %q: want run or report\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
		os.Exit(1)
	}
}
