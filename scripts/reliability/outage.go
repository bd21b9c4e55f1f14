package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// runOutage kills serve's upstream with SIGKILL under load, restarts it
// on the same address after a pause, and reports what clients got in
// between, how soon after the upstream listened again a request
// succeeded, and serve's RSS and descriptors before and after. hey gives
// the load; a few watchers of our own time every request, so that the
// outage's answers and the recovery are seen to the millisecond. The
// restart command follows "--"; the restarted upstream keeps running,
// its process ID in -restarted-pid-file.
func runOutage(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("outage", flag.ContinueOnError)
	hey := fs.String("hey", "hey", "the hey binary")
	pid := fs.Int("pid", 0, "serve's process ID")
	url := fs.String("url", "", "a GET through serve that the upstream answers 200")
	upstreamPID := fs.Int("upstream-pid", 0, "the upstream's process ID, to kill")
	upstreamAddr := fs.String("upstream-addr", "", "the upstream's host:port, watched for its return")
	before := fs.Duration("before", 5*time.Second, "load before the kill")
	down := fs.Duration("down", 5*time.Second, "how long the upstream stays dead")
	after := fs.Duration("after", 10*time.Second, "load after the restart")
	clients := fs.Int("c", 20, "concurrent hey clients")
	watchers := fs.Int("watchers", 2, "concurrent timed clients")
	restartLog := fs.String("restart-log", os.DevNull, "where the restarted upstream's output goes")
	pidFile := fs.String("restarted-pid-file", "", "where the restarted upstream's process ID is written")
	if err := fs.Parse(args); err != nil {
		return err
	}
	restart := fs.Args()
	if *pid == 0 || *url == "" || *upstreamPID == 0 || *upstreamAddr == "" || len(restart) == 0 || *pidFile == "" {
		return fmt.Errorf("-pid, -url, -upstream-pid, -upstream-addr, -restarted-pid-file and a restart command after -- are required")
	}
	atRest, err := readProc(*pid)
	if err != nil {
		return err
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var load heyResult
	var loadErr error
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		total := *before + *down + *after
		load, loadErr = runHey(runCtx, *hey, "-z", strconv.FormatFloat(total.Seconds(), 'f', -1, 64)+"s", "-c", strconv.Itoa(*clients), *url)
	}()
	w := watch(runCtx, *url, *watchers)

	time.Sleep(*before)
	killed := time.Now()
	if err := syscall.Kill(*upstreamPID, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill the upstream: %v", err)
	}
	time.Sleep(*down)
	restarted := time.Now()
	logFile, err := os.Create(*restartLog)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(restart[0], restart[1:]...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("restart the upstream: %v", err)
	}
	if err := os.WriteFile(*pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		return err
	}
	listening, err := waitListening(ctx, *upstreamAddr, 30*time.Second)
	if err != nil {
		return err
	}
	<-loadDone
	stop()
	calls := w.Stop()
	if loadErr != nil {
		return loadErr
	}
	time.Sleep(2 * time.Second) // hey's and the watchers' connections close
	settled, err := readProc(*pid)
	if err != nil {
		return fmt.Errorf("serve is gone: %v", err)
	}

	var during []call
	firstOK, lastBad := time.Duration(-1), time.Duration(-1)
	for _, c := range calls {
		if !c.start.Before(killed) && c.end.Before(listening) {
			during = append(during, c)
		}
		if !c.end.After(listening) {
			continue
		}
		if c.status == http.StatusOK && (firstOK < 0 || c.end.Sub(listening) < firstOK) {
			firstOK = c.end.Sub(listening)
		}
		if c.status != http.StatusOK {
			lastBad = max(lastBad, c.end.Sub(listening))
		}
	}
	t := newTable(stdout, "measure", "figure")
	t.Row("hey, the whole run", fmt.Sprintf("%d clients, %s: %s; errors %s", *clients, load.total.Round(time.Second), statusText(load.statuses), errorText(load.errors)))
	t.Row("upstream down (SIGKILL → listening again)", ms(listening.Sub(killed))+fmt.Sprintf(" (restarted after %s, listening %s later)", *down, ms(listening.Sub(restarted))))
	t.Row("timed requests sent and answered while it was down", fmt.Sprintf("%d: %s", len(during), callStatuses(during)))
	t.Row("their latency p50 / p99 / max", latencies(during))
	t.Row("first 200 after it listened again", durationOr(firstOK, "none"))
	t.Row("last non-200 after it listened again", durationOr(lastBad, "none"))
	t.Row("serve RSS at rest, before → after", mib(atRest.rssKiB)+" → "+mib(settled.rssKiB))
	t.Row("serve fds at rest, before → after", fmt.Sprintf("%d → %d", atRest.fds, settled.fds))
	t.Row("serve threads, before → after", fmt.Sprintf("%d → %d", atRest.threads, settled.threads))
	return nil
}

// waitListening returns when addr accepts a TCP connection.
func waitListening(ctx context.Context, addr string, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			at := time.Now()
			c.Close()
			return at, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
	return time.Time{}, fmt.Errorf("%s did not listen within %s", addr, limit)
}

// A call is one timed request: status 0 when it got no response.
type call struct {
	start, end time.Time
	status     int
}

// A watcher sends GETs one after another on n clients, timing each.
type watcher struct {
	stop  context.CancelFunc
	wg    sync.WaitGroup
	mu    sync.Mutex
	calls []call
}

func watch(ctx context.Context, url string, n int) *watcher {
	ctx, stop := context.WithCancel(ctx)
	w := &watcher{stop: stop}
	client := &http.Client{Timeout: 2 * time.Second}
	for range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for ctx.Err() == nil {
				c := call{start: time.Now()}
				c.status = get(ctx, client, url)
				c.end = time.Now()
				if ctx.Err() != nil {
					return
				}
				w.mu.Lock()
				w.calls = append(w.calls, c)
				w.mu.Unlock()
			}
		}()
	}
	return w
}

// Stop ends the watch and returns the calls, in the order they ended.
func (w *watcher) Stop() []call {
	w.stop()
	w.wg.Wait()
	slices.SortFunc(w.calls, func(a, b call) int { return a.end.Compare(b.end) })
	return w.calls
}

// get sends a GET and reads its body: the status, 0 on failure.
func get(ctx context.Context, client *http.Client, url string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return 0
	}
	return res.StatusCode
}

// callStatuses spells the calls' statuses as statusText does, 0 for no
// response.
func callStatuses(calls []call) string {
	counts := map[int]int{}
	for _, c := range calls {
		counts[c.status]++
	}
	return statusText(counts)
}

// latencies spells the p50, p99 and largest latency of calls.
func latencies(calls []call) string {
	if len(calls) == 0 {
		return "no calls"
	}
	d := make([]time.Duration, len(calls))
	for i, c := range calls {
		d[i] = c.end.Sub(c.start)
	}
	slices.Sort(d)
	return ms(percentile(d, 50)) + " / " + ms(percentile(d, 99)) + " / " + ms(d[len(d)-1])
}

// percentile is the p-th percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

func durationOr(d time.Duration, none string) string {
	if d < 0 {
		return none
	}
	return ms(d)
}
