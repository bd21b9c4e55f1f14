package render

import (
	"sync"
	"time"

	"github.com/protorest/protorest/internal/budget"
)

// A closeSweep gives budget holds back once net/http has closed the
// HTTP/2 streams of the responses that hold them, with one goroutine for
// all of them rather than one waiting for each response: every so often
// it looks, without waiting, at each stream's CloseNotify channel. It
// runs while it has holds to give back, and ends when it has none.
type closeSweep struct {
	mu      sync.Mutex
	pending []closing
	running bool
}

// A closing is a hold, given back once closed receives.
type closing struct {
	closed <-chan bool
	hold   budget.Hold
}

// streamCloses is the gateway's closeSweep.
var streamCloses closeSweep

// Sweeps come at least minSweepEvery apart, and further apart the more
// holds wait (sweepEveryPerHold each), so that sweeping many streams
// that are slow to close (clients that do not read) stays cheap: at
// 10,000, a sweep each 12.5 ms (BenchmarkCloseSweep).
const (
	minSweepEvery     = time.Millisecond
	sweepEveryPerHold = 1250 * time.Nanosecond
)

// add gives hold back once closed receives, within a sweep.
func (s *closeSweep) add(closed <-chan bool, hold budget.Hold) {
	s.mu.Lock()
	s.pending = append(s.pending, closing{closed, hold})
	start := !s.running
	s.running = true
	s.mu.Unlock()
	if start {
		go s.run()
	}
}

// run sweeps until no hold is left.
func (s *closeSweep) run() {
	var spare []closing
	n := 0
	for {
		time.Sleep(max(minSweepEvery, time.Duration(n)*sweepEveryPerHold))
		if n, spare = s.sweep(spare); n == 0 {
			return
		}
	}
}

// sweep gives back the holds whose streams have closed and keeps the
// others, and returns how many it kept, and an empty slice whose array
// the next sweep can reuse (spare is this sweep's). With none kept, the
// sweeping goroutine is to end: it is no longer counted as running.
func (s *closeSweep) sweep(spare []closing) (int, []closing) {
	s.mu.Lock()
	batch := s.pending
	s.pending = spare[:0]
	s.mu.Unlock()
	open := batch[:0]
	for _, c := range batch {
		select {
		case <-c.closed:
			c.hold.Release()
		default:
			open = append(open, c)
		}
	}
	s.mu.Lock()
	s.pending = append(s.pending, open...)
	n := len(s.pending)
	if n == 0 {
		s.running = false
	}
	s.mu.Unlock()
	clear(batch[:cap(batch)]) // its channels and holds are in pending, or done
	return n, batch[:0]
}
