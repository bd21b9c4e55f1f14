package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// legitInterval and legitTimeout pace the legitimate client of an attack:
// a request every interval, each given timeout. A request still waiting
// when the attack ends counts as unanswered if it had waited legitSlow
// (the p99 issue 22 asks for), and is left out if not.
const (
	legitInterval = 20 * time.Millisecond
	legitTimeout  = 5 * time.Second
	legitSlow     = 100 * time.Millisecond
)

// A legitClient GETs one URL again and again, on a keep-alive connection
// of its own, and times each request.
type legitClient struct {
	cancel context.CancelFunc
	done   sync.WaitGroup

	mu    sync.Mutex
	stats legitStats
}

// legitStats is what a legitimate client got.
type legitStats struct {
	took   []time.Duration // of the requests answered 200
	failed map[string]int  // by why: another status ("503"), an error, or no answer within legitTimeout ("timeout")
	cut    int             // still waiting, for legitSlow or more, when the attack ended
}

// startLegit sends a GET of url every legitInterval (the next once the
// last is answered, when it takes longer) until ctx ends or stop.
func startLegit(ctx context.Context, url string) *legitClient {
	ctx, cancel := context.WithCancel(ctx)
	l := &legitClient{cancel: cancel}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: legitTimeout}
	l.done.Add(1)
	go func() {
		defer l.done.Done()
		defer client.CloseIdleConnections()
		tick := time.NewTicker(legitInterval)
		defer tick.Stop()
		for {
			start := time.Now()
			why := legitGet(ctx, client, url)
			took := time.Since(start)
			cut := ctx.Err() != nil
			l.mu.Lock()
			switch {
			case cut && took >= legitSlow:
				l.stats.cut++ // still waiting when the attack ended
			case cut: // cut short by the end: not counted
			case why == "":
				l.stats.took = append(l.stats.took, took)
			default:
				if l.stats.failed == nil {
					l.stats.failed = map[string]int{}
				}
				l.stats.failed[why]++
			}
			l.mu.Unlock()
			if cut {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return l
}

// legitGet GETs url and reads the answer whole: "" when it is a 200, else
// why not: its status and the message of its google.rpc.Status ("503 too
// many unary calls in flight: try again"), "timeout" (no answer within legitTimeout)
// or the error.
func legitGet(ctx context.Context, client *http.Client, url string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err.Error()
	}
	res, err := client.Do(req)
	var body []byte
	if err == nil {
		body, err = io.ReadAll(io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		return "timeout"
	case err != nil:
		return "error: " + err.Error()
	case res.StatusCode != http.StatusOK:
		var st struct{ Message string }
		if json.Unmarshal(body, &st) == nil && st.Message != "" {
			return strconv.Itoa(res.StatusCode) + " " + st.Message
		}
		return strconv.Itoa(res.StatusCode)
	}
	return ""
}

// stop ends the client and returns what it got.
func (l *legitClient) stop() legitStats {
	l.cancel()
	l.done.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// String is "N of M answered 200; p50 X, p99 Y", and the failures.
func (s legitStats) String() string {
	failed := 0
	for _, n := range s.failed {
		failed += n
	}
	n := len(s.took) + failed + s.cut
	if n == 0 {
		return "no request finished"
	}
	text := fmt.Sprintf("%d of %d answered 200", len(s.took), n)
	if len(s.took) > 0 {
		took := slices.Clone(s.took)
		slices.Sort(took)
		q := func(p float64) time.Duration { return took[min(len(took)-1, int(p*float64(len(took))))] }
		text += fmt.Sprintf("; p50 %s, p99 %s", ms(q(0.50)), ms(q(0.99)))
	}
	if failed > 0 {
		text += fmt.Sprintf("; %d failed (%s)", failed, errorText(s.failed))
		// Issue 22's measure is the p99 of every request: a failure
		// counts as the slowest.
		if i := int(0.99 * float64(n)); i < len(s.took) {
			took := slices.Clone(s.took)
			slices.Sort(took)
			text += fmt.Sprintf("; p99 of all, a failure counted as the slowest: %s", ms(took[i]))
		} else {
			text += "; p99 of all, a failure counted as the slowest: failed"
		}
	}
	if s.cut > 0 {
		text += fmt.Sprintf("; %d still waiting at the end", s.cut)
	}
	return text
}

// watchRSS reads pid's RSS every 50 ms until ctx ends, and calls stop
// (once) when it passes capKiB; the flag it returns says whether it did.
func watchRSS(ctx context.Context, pid int, capKiB int64, stop func()) *atomic.Bool {
	var capped atomic.Bool
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if st, err := readProc(pid); err == nil && st.rssKiB > capKiB {
				capped.Store(true)
				stop()
				return
			}
		}
	}()
	return &capped
}

// drain reads r to its end and closes it.
func drain(r io.ReadCloser) {
	io.Copy(io.Discard, r)
	r.Close()
}

// inWaves runs f n times at once, and again as soon as they have all
// returned, for hold (once at least, and not after ctx ends); it counts
// what the runs return, and the waves.
func inWaves[K comparable](ctx context.Context, hold time.Duration, n int, f func() K) (counts map[K]int, waves int) {
	counts = map[K]int{}
	for end := time.Now().Add(hold); waves == 0 || time.Now().Before(end) && ctx.Err() == nil; waves++ {
		for k, c := range atOnce(n, f) {
			counts[k] += c
		}
	}
	return counts, waves
}

// atOnce runs f n times at once and counts what the runs return.
func atOnce[K comparable](n int, f func() K) map[K]int {
	var mu sync.Mutex
	counts := map[K]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := f()
			mu.Lock()
			counts[k]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return counts
}
