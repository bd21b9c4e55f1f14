package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
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
	failed int             // another status, an error, or no answer within legitTimeout
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
			code := get(ctx, client, url)
			took := time.Since(start)
			cut := ctx.Err() != nil
			l.mu.Lock()
			switch {
			case cut && took >= legitSlow:
				l.stats.cut++ // still waiting when the attack ended
			case cut: // cut short by the end: not counted
			case code == http.StatusOK:
				l.stats.took = append(l.stats.took, took)
			default:
				l.stats.failed++
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
	n := len(s.took) + s.failed + s.cut
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
	if s.failed > 0 {
		text += fmt.Sprintf("; %d failed or timed out (%s)", s.failed, legitTimeout)
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
