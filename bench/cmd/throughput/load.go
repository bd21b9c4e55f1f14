package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/protorest/protorest/bench"
)

// A load is one closed-loop run of a load generator against one URL.
type load struct {
	conns, threads int
	duration       time.Duration
	dir            string // for scripts, bodies and latency logs
}

// A loadResult is what the load generator measured.
type loadResult struct {
	requests       int64   // completed with a 2xx
	errors         int64   // anything else: non-2xx, timeouts, socket errors
	seconds        float64 // the measured time
	p50, p99, p999 float64 // latency, µs
}

// seconds is the whole seconds of d, at least 1: wrk and h2load take
// their duration in whole seconds.
func seconds(d time.Duration) int {
	return max(int(d.Round(time.Second)/time.Second), 1)
}

// wrk runs wrk (HTTP/1.1) on url with route's request.
func (l load) wrk(url string, route bench.Route) (loadResult, error) {
	script := filepath.Join(l.dir, "wrk-"+route.Name+".lua")
	if err := os.WriteFile(script, []byte(wrkScript(route)), 0o644); err != nil {
		return loadResult{}, err
	}
	out, err := exec.Command("wrk", "-t", strconv.Itoa(l.threads), "-c", strconv.Itoa(l.conns),
		"-d", strconv.Itoa(seconds(l.duration))+"s", "--timeout", "10s", "-s", script, url+route.Op.HTTP.Target).CombinedOutput()
	if err != nil {
		return loadResult{}, fmt.Errorf("wrk: %v: %s", err, out)
	}
	return parseWrk(out)
}

// wrkScript is the Lua script that sets route's method, body and
// Content-Type and prints the summary as one line.
func wrkScript(route bench.Route) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %q\n", route.Op.HTTP.Method)
	if body := route.Op.HTTP.Body; body != "" {
		fmt.Fprintf(&b, "wrk.body = [==[%s]==]\nwrk.headers[\"Content-Type\"] = \"application/json\"\n", body)
	}
	b.WriteString(`done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("throughput: requests=%d duration_us=%d errors=%d non2xx=%d p50=%d p99=%d p999=%d\n",
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
`)
	return b.String()
}

var wrkLine = regexp.MustCompile(`throughput: requests=(\d+) duration_us=(\d+) errors=(\d+) non2xx=(\d+) p50=(\d+) p99=(\d+) p999=(\d+)`)

func parseWrk(out []byte) (loadResult, error) {
	m := wrkLine.FindSubmatch(out)
	if m == nil {
		return loadResult{}, fmt.Errorf("wrk: no summary in %s", out)
	}
	n := make([]float64, len(m)-1)
	for i := range n {
		n[i], _ = strconv.ParseFloat(string(m[i+1]), 64)
	}
	// wrk counts an answer other than 2xx or 3xx among both requests
	// and errors; socket errors and timeouts among errors alone.
	return loadResult{requests: int64(max(n[0]-n[3], 0)), errors: int64(n[2]), seconds: n[1] / 1e6, p50: n[4], p99: n[5], p999: n[6]}, nil
}

// h2load runs h2load (HTTP/2, h2c for http://, TLS with ALPN for
// https://) on url with route's request, one stream at a time on each
// connection.
func (l load) h2load(url string, route bench.Route) (loadResult, error) {
	logFile := filepath.Join(l.dir, "h2load.log")
	args := []string{"-c", strconv.Itoa(l.conns), "-t", strconv.Itoa(min(l.threads, l.conns)), "-m", "1",
		"-D", strconv.Itoa(seconds(l.duration)), "--log-file", logFile}
	if body := route.Op.HTTP.Body; body != "" {
		bodyFile := filepath.Join(l.dir, "body-"+route.Name+".json")
		if err := os.WriteFile(bodyFile, []byte(body), 0o644); err != nil {
			return loadResult{}, err
		}
		args = append(args, "-d", bodyFile, "-H", "content-type: application/json")
	}
	if m := route.Op.HTTP.Method; m != "GET" && m != "POST" {
		return loadResult{}, fmt.Errorf("h2load sends GET, or POST with -d: not %s", m)
	}
	out, err := exec.Command("h2load", append(args, url+route.Op.HTTP.Target)...).CombinedOutput()
	if err != nil {
		return loadResult{}, fmt.Errorf("h2load: %v: %s", err, out)
	}
	res, err := parseH2load(out)
	if err != nil {
		return res, err
	}
	lat, err := latencies(logFile)
	if err != nil {
		return res, err
	}
	res.p50, res.p99, res.p999 = percentile(lat, 50), percentile(lat, 99), percentile(lat, 99.9)
	return res, nil
}

var (
	h2Finished = regexp.MustCompile(`finished in ([0-9.]+)(s|ms)`)
	h2Requests = regexp.MustCompile(`requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2Status   = regexp.MustCompile(`status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx`)
)

func parseH2load(out []byte) (loadResult, error) {
	f, r, s := h2Finished.FindSubmatch(out), h2Requests.FindSubmatch(out), h2Status.FindSubmatch(out)
	if f == nil || r == nil || s == nil {
		return loadResult{}, fmt.Errorf("h2load: no summary in %s", out)
	}
	secs, _ := strconv.ParseFloat(string(f[1]), 64)
	if string(f[2]) == "ms" {
		secs /= 1000
	}
	n := func(m [][]byte, i int) int64 { v, _ := strconv.ParseInt(string(m[i]), 10, 64); return v }
	// Requests still open when the duration ended are cut off, not
	// errors; failed ones (errored and timed out included) are, and so
	// are answers other than 2xx. (h2load counts the status of a
	// response whose headers came in time but not its end.)
	return loadResult{requests: min(n(r, 4), n(s, 1)), errors: n(r, 5) + n(s, 2) + n(s, 3) + n(s, 4), seconds: secs}, nil
}

// latencies are the response times, µs, of the 2xx answers in an
// h2load --log-file: start (µs since the epoch), status, µs to the end
// of the response.
func latencies(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lat []float64
	s := bufio.NewScanner(f)
	for s.Scan() {
		cols := bytes.Split(s.Bytes(), []byte("\t"))
		if len(cols) < 3 || len(cols[1]) == 0 || cols[1][0] != '2' {
			continue
		}
		v, err := strconv.ParseFloat(string(cols[2]), 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		lat = append(lat, v)
	}
	slices.Sort(lat)
	return lat, s.Err()
}

// percentile is the p-th percentile of sorted values (nearest rank).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
