package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// runLoad runs hey against serve in consecutive windows, a GET and a POST
// run side by side in each, and prints a row per window with serve's RSS,
// file descriptors and threads at its end (and a row for the start): a
// load run is one window, a soak many, so that a leak shows as a trend.
func runLoad(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	hey := fs.String("hey", "hey", "the hey binary")
	pid := fs.Int("pid", 0, "serve's process ID, for /proc")
	window := fs.Duration("window", 30*time.Second, "length of a window")
	windows := fs.Int("windows", 1, "how many windows, one after the other")
	getURL := fs.String("get", "", "URL of the GET")
	getC := fs.Int("get-c", 40, "concurrent GET clients")
	postURL := fs.String("post", "", "URL of the POST")
	postBody := fs.String("post-body", "{}", "JSON body of the POST")
	postC := fs.Int("post-c", 10, "concurrent POST clients")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pid == 0 || *getURL == "" || *postURL == "" {
		return fmt.Errorf("-pid, -get and -post are required")
	}
	start, err := readProc(*pid)
	if err != nil {
		return err
	}
	t := newTable(stdout, "window", "req/s", "GET p50 / p99", "POST p50 / p99", "statuses", "errors", "serve RSS", "fds", "threads")
	t.Row("start", "", "", "", "", "", mib(start.rssKiB), strconv.Itoa(start.fds), strconv.Itoa(start.threads))
	zs := strconv.FormatFloat(window.Seconds(), 'f', -1, 64) + "s"
	totals := heyResult{statuses: map[int]int{}, errors: map[string]int{}}
	for i := 1; i <= *windows; i++ {
		var get, post heyResult
		var getErr, postErr error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			get, getErr = runHey(ctx, *hey, "-z", zs, "-c", strconv.Itoa(*getC), *getURL)
		}()
		go func() {
			defer wg.Done()
			post, postErr = runHey(ctx, *hey, "-z", zs, "-c", strconv.Itoa(*postC), "-m", "POST",
				"-T", "application/json", "-d", *postBody, *postURL)
		}()
		wg.Wait()
		if getErr != nil {
			return getErr
		}
		if postErr != nil {
			return postErr
		}
		end, err := readProc(*pid)
		if err != nil {
			return fmt.Errorf("serve is gone after window %d: %v", i, err)
		}
		merged := merge(get, post)
		mergeInto(&totals, merged)
		t.Row(fmt.Sprintf("%d (%s)", i, *window), fmt.Sprintf("%.0f", get.rps+post.rps),
			ms(get.p50)+" / "+ms(get.p99), ms(post.p50)+" / "+ms(post.p99),
			statusText(merged.statuses), errorText(merged.errors),
			mib(end.rssKiB), strconv.Itoa(end.fds), strconv.Itoa(end.threads))
	}
	fmt.Fprintf(stdout, "\n%d requests in %d × %s (%d GET clients, %d POST clients): %s; errors %s.\n",
		totals.requests()+totals.errorCount(), *windows, *window, *getC, *postC, statusText(totals.statuses), errorText(totals.errors))
	return nil
}

// merge adds two runs' counts.
func merge(a, b heyResult) heyResult {
	m := heyResult{statuses: map[int]int{}, errors: map[string]int{}}
	mergeInto(&m, a)
	mergeInto(&m, b)
	return m
}

func mergeInto(dst *heyResult, r heyResult) {
	for c, n := range r.statuses {
		dst.statuses[c] += n
	}
	for k, n := range r.errors {
		dst.errors[k] += n
	}
}
