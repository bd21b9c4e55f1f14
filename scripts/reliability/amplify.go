package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// runAmplify stores one large book upstream (a PATCH of many map labels)
// and reads it through serve with many GETs at once, sampling serve's
// RSS: how much memory a small number of requests for a large response
// costs. The book's labels are emptied again at the end.
func runAmplify(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("amplify", flag.ContinueOnError)
	book := fs.String("book", "", "URL of a book through serve (GET and PATCH)")
	labels := fs.Int("labels", 200_000, "labels of the large book")
	gets := fs.Int("gets", 20, "concurrent GETs")
	pid := fs.Int("pid", 0, "serve's process ID")
	every := fs.Duration("every", 50*time.Millisecond, "RSS sampling interval")
	serveFlags := fs.String("serve-flags", "", "what serve ran with, for the row")
	grpcTimeout := fs.String("grpc-timeout", "", "Grpc-Timeout of every request (e.g. 120S), to lift serve's default deadline")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *book == "" || *pid == 0 {
		return fmt.Errorf("-book and -pid are required")
	}
	body := labelsBody(*labels)
	status, err := send(ctx, http.MethodPatch, *book, body, *grpcTimeout)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("PATCH of %d labels (%d bytes): %d", *labels, len(body), status)
	}
	defer send(context.Background(), http.MethodPatch, *book, []byte(`{"labels":{}}`), *grpcTimeout)

	time.Sleep(time.Second)
	before, err := readProc(*pid)
	if err != nil {
		return err
	}
	s := startSampler(*pid, *every)
	type got struct {
		status int
		size   int64
		took   time.Duration
	}
	results := make([]got, *gets)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *gets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			status, size := getSize(ctx, *book, *grpcTimeout)
			results[i] = got{status, size, time.Since(t0)}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	peak, samples := s.Stop()

	statuses := map[int]int{}
	var sizes []int64
	var slowest time.Duration
	for _, r := range results {
		statuses[r.status]++
		if r.status == http.StatusOK {
			sizes = append(sizes, r.size)
		}
		slowest = max(slowest, r.took)
	}
	size := "none"
	if len(sizes) > 0 {
		slices.Sort(sizes)
		size = fmt.Sprintf("%.1f MB", float64(sizes[len(sizes)-1])/1e6)
	}
	t := newTable(stdout, "serve flags", "book", "GETs at once", "answers", "response", "all answered in", "serve RSS before", "peak RSS (sampled every "+every.String()+")", "peak − before")
	t.Row(*serveFlags, fmt.Sprintf("%d labels, PATCH of %.1f MB", *labels, float64(len(body))/1e6), strconv.Itoa(*gets),
		statusText(statuses), size, ms(max(wall, slowest)), mib(before.rssKiB),
		fmt.Sprintf("%s (%d samples)", mib(peak), samples), mib(peak-before.rssKiB))
	return nil
}

// labelsBody is a PATCH body of n labels "lbl-000000": "x", …: 17 bytes a
// label in JSON and in binary.
func labelsBody(n int) []byte {
	var b bytes.Buffer
	b.Grow(17*n + 16)
	b.WriteString(`{"labels":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"lbl-%06d":"x"`, i)
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// send sends a JSON request, with a Grpc-Timeout unless it is "", and
// discards the answer's body.
func send(ctx context.Context, method, url string, body []byte, timeout string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if timeout != "" {
		req.Header.Set("Grpc-Timeout", timeout)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	return res.StatusCode, err
}

// getSize GETs url, with a Grpc-Timeout unless it is "", and counts the
// body's bytes.
func getSize(ctx context.Context, url, timeout string) (int, int64) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0
	}
	if timeout != "" {
		req.Header.Set("Grpc-Timeout", timeout)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil {
		return 0, n
	}
	return res.StatusCode, n
}
