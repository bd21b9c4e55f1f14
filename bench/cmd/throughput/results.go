package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// A Run describes a run of the harness: the first line of its results.
type Run struct {
	Date       string   `json:"date"`   // UTC, when it started
	Commit     string   `json:"commit"` // of the repository
	Machine    string   `json:"machine"`
	GoVersion  string   `json:"go_version"`
	Tools      []string `json:"tools"` // wrk's and h2load's versions
	Command    string   `json:"command"`
	Count      int      `json:"count"`
	Duration   string   `json:"duration"`
	Conns      int      `json:"conns"`
	Threads    int      `json:"threads"`
	ServeFlags []string `json:"serve_flags,omitempty"`
	Elapsed    string   `json:"elapsed,omitempty"` // set by the last line
}

// A Result is one contender's round on one route and protocol.
type Result struct {
	Round     int     `json:"round"`
	Protocol  string  `json:"protocol"`
	Route     string  `json:"route"`
	Contender string  `json:"contender"`
	Requests  int64   `json:"requests"` // answered 2xx
	Errors    int64   `json:"errors"`
	Seconds   float64 `json:"seconds"`
	RPS       float64 `json:"rps"`
	P50       float64 `json:"p50_us"`
	P99       float64 `json:"p99_us"`
	P999      float64 `json:"p999_us"`
	CPU       float64 `json:"cpu_us_per_request"` // the contender process's utime+stime over requests
	PeakRSS   int64   `json:"peak_rss_kib"`       // its VmHWM during the round
	Load      float64 `json:"load1"`              // the machine's 1-minute load average as the round began
}

// A line of the results file: a Run or a Result.
type line struct {
	Run    *Run    `json:"run,omitempty"`
	Result *Result `json:"result,omitempty"`
}

// readResults reads a results file: its Run (the last one written) and
// its Results.
func readResults(r io.Reader) (*Run, []Result, error) {
	var run *Run
	var results []Result
	s := bufio.NewScanner(r)
	s.Buffer(nil, 1<<20)
	for n := 1; s.Scan(); n++ {
		var l line
		if err := json.Unmarshal(s.Bytes(), &l); err != nil {
			return nil, nil, fmt.Errorf("line %d: %v", n, err)
		}
		if l.Run != nil {
			run = l.Run
		}
		if l.Result != nil {
			results = append(results, *l.Result)
		}
	}
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	if run == nil {
		return nil, nil, fmt.Errorf("no run description")
	}
	return run, results, nil
}
