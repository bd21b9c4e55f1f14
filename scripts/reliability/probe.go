package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// probeResult is how a legitimate client fared: n requests, each on a new
// connection.
type probeResult struct {
	n       int
	served  []time.Duration // the latency of each 200, in order
	failed  map[string]int  // the rest: "503", "timeout", …
	slowest time.Duration   // of the served
}

// probe sends n GETs of url, one every interval, each on a new connection
// (as a client arriving during a flood would) and timed out after
// timeout.
func probe(ctx context.Context, url string, n int, interval, timeout time.Duration) probeResult {
	r := probeResult{n: n, failed: map[string]int{}}
	client := &http.Client{
		Timeout:   timeout,
		Transport: &http.Transport{DisableKeepAlives: true},
	}
	for i := range n {
		if i > 0 {
			select {
			case <-ctx.Done():
				return r
			case <-time.After(interval):
			}
		}
		start := time.Now()
		status := get(ctx, client, url)
		took := time.Since(start)
		switch {
		case status == http.StatusOK:
			r.served = append(r.served, took)
			r.slowest = max(r.slowest, took)
		case status == 0 && took >= timeout:
			r.failed[fmt.Sprintf("no answer in %s", timeout)]++
		case status == 0:
			r.failed["connection failed"]++
		default:
			r.failed[fmt.Sprint(status)]++
		}
	}
	return r
}

// String spells the result: "10/10 served, p50 1.2 ms, slowest 3.4 ms".
func (r probeResult) String() string {
	s := fmt.Sprintf("%d/%d served", len(r.served), r.n)
	if len(r.served) > 0 {
		sorted := slices.Clone(r.served)
		slices.Sort(sorted)
		s += fmt.Sprintf(", p50 %s, slowest %s", ms(percentile(sorted, 50)), ms(r.slowest))
	}
	if len(r.failed) > 0 {
		s += "; " + errorText(r.failed)
	}
	return s
}
