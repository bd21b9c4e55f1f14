package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// heyResult is what one run of hey (github.com/rakyll/hey) printed.
type heyResult struct {
	total    time.Duration // "Total:", the run's length
	rps      float64       // "Requests/sec:"
	p50, p99 time.Duration // from "Latency distribution:"
	statuses map[int]int   // "Status code distribution:"
	errors   map[string]int
}

// requests is the number of responses, whatever their status.
func (r heyResult) requests() int {
	n := 0
	for _, c := range r.statuses {
		n += c
	}
	return n
}

// errorCount is the requests that got no response.
func (r heyResult) errorCount() int {
	n := 0
	for _, c := range r.errors {
		n += c
	}
	return n
}

var (
	heyTotal   = regexp.MustCompile(`^\s*Total:\s+([0-9.]+) secs`)
	heyRPS     = regexp.MustCompile(`^\s*Requests/sec:\s+([0-9.]+)`)
	heyLatency = regexp.MustCompile(`^\s*(\d+)% in ([0-9.]+) secs`)
	heyStatus  = regexp.MustCompile(`^\s*\[(\d+)\]\s+(\d+) responses`)
	heyError   = regexp.MustCompile(`^\s*\[(\d+)\]\s+(.*)$`)
)

// parseHey reads hey's default (summary) output.
func parseHey(out []byte) (heyResult, error) {
	r := heyResult{statuses: map[int]int{}, errors: map[string]int{}}
	section := ""
	sawSummary := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":") {
			section = strings.TrimSuffix(line, ":")
			sawSummary = sawSummary || section == "Summary"
			continue
		}
		switch section {
		case "Summary":
			if m := heyTotal.FindStringSubmatch(line); m != nil {
				r.total = seconds(m[1])
			} else if m := heyRPS.FindStringSubmatch(line); m != nil {
				r.rps, _ = strconv.ParseFloat(m[1], 64)
			}
		case "Latency distribution":
			if m := heyLatency.FindStringSubmatch(line); m != nil {
				switch m[1] {
				case "50":
					r.p50 = seconds(m[2])
				case "99":
					r.p99 = seconds(m[2])
				}
			}
		case "Status code distribution":
			if m := heyStatus.FindStringSubmatch(line); m != nil {
				code, _ := strconv.Atoi(m[1])
				r.statuses[code], _ = strconv.Atoi(m[2])
			}
		case "Error distribution":
			if m := heyError.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				r.errors[errorKind(m[2])] += n
			}
		}
	}
	if !sawSummary || r.total == 0 {
		return r, fmt.Errorf("no summary in hey's output:\n%s", out)
	}
	return r, nil
}

// errorKind shortens one of hey's error lines to what went wrong, without
// the URL and addresses: "connection refused", "EOF", "timeout".
func errorKind(line string) string {
	for _, kind := range []string{"connection refused", "connection reset by peer", "Client.Timeout", "EOF", "broken pipe"} {
		if strings.Contains(line, kind) {
			return kind
		}
	}
	if i := strings.LastIndex(line, ": "); i >= 0 {
		return line[i+2:]
	}
	return line
}

// seconds parses hey's "0.0123" seconds.
func seconds(s string) time.Duration {
	f, _ := strconv.ParseFloat(s, 64)
	return time.Duration(f * float64(time.Second))
}

// runHey runs hey with args and parses what it printed.
func runHey(ctx context.Context, hey string, args ...string) (heyResult, error) {
	out, err := exec.CommandContext(ctx, hey, args...).CombinedOutput()
	if err != nil {
		return heyResult{}, fmt.Errorf("%s %s: %v\n%s", hey, strings.Join(args, " "), err, out)
	}
	return parseHey(out)
}

// statusText spells status counts as "200: 1234, 503: 5", in code order.
func statusText(statuses map[int]int) string {
	codes := make([]int, 0, len(statuses))
	for c := range statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d: %d", c, statuses[c])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// errorText spells error counts as "connection refused: 3", or "0".
func errorText(errs map[string]int) string {
	kinds := make([]string, 0, len(errs))
	for k := range errs {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s: %d", k, errs[k])
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, ", ")
}
