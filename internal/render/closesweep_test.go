package render

import (
	"context"
	"testing"
	"time"

	"github.com/protorest/protorest/internal/budget"
)

// sweepRunning reports whether s has a goroutine sweeping.
func sweepRunning(s *closeSweep) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// TestCloseSweepGivesBackWhenClosed: a hold comes back once its stream's
// channel receives, not before, whatever the order; the sweeping
// goroutine ends when no hold is left, and starts again for the next.
func TestCloseSweepGivesBackWhenClosed(t *testing.T) {
	var s closeSweep
	b := budget.New(1000, 0, 0)
	var closed []chan bool
	for range 5 {
		hold, err := b.Take(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		ch := make(chan bool, 1)
		closed = append(closed, ch)
		s.add(ch, hold)
	}
	closed[3] <- true
	closed[0] <- true
	if !eventually(func() bool { return b.Held() == 300 }) {
		t.Fatalf("held %d after two of five streams closed, want 300", b.Held())
	}
	time.Sleep(20 * time.Millisecond) // many sweeps
	if b.Held() != 300 {
		t.Fatalf("held %d while three streams are open, want 300", b.Held())
	}
	for _, i := range []int{4, 1, 2} {
		closed[i] <- true
	}
	if !eventually(func() bool { return b.Held() == 0 && !sweepRunning(&s) }) {
		t.Fatalf("held %d (sweeping: %v) after every stream closed", b.Held(), sweepRunning(&s))
	}

	hold, _ := b.Take(context.Background(), 10)
	ch := make(chan bool, 1)
	s.add(ch, hold)
	ch <- true
	if !eventually(func() bool { return b.Held() == 0 && !sweepRunning(&s) }) {
		t.Fatalf("a later hold: held %d, sweeping %v", b.Held(), sweepRunning(&s))
	}
}

// TestCloseSweepManyOpen: with 10,000 streams that stay open (clients
// that do not read), one that closes still gets its hold back within
// the longer sweeps.
func TestCloseSweepManyOpen(t *testing.T) {
	var s closeSweep
	b := budget.New(1<<20, 0, 0)
	open := make(chan bool) // never receives
	for range 10000 {
		hold, _ := b.Take(context.Background(), 1)
		s.add(open, hold)
	}
	hold, _ := b.Take(context.Background(), 1000)
	ch := make(chan bool, 1)
	s.add(ch, hold)
	ch <- true
	if !eventually(func() bool { return b.Held() == 10000 }) {
		t.Fatalf("held %d, want the 10,000 open streams' 10,000 bytes", b.Held())
	}
	s.mu.Lock()
	n := len(s.pending)
	s.mu.Unlock()
	if n != 10000 {
		t.Errorf("%d holds pending, want 10,000", n)
	}
	close(open)
	if !eventually(func() bool { return b.Held() == 0 && !sweepRunning(&s) }) {
		t.Fatalf("held %d (sweeping: %v) after the 10,000 closed", b.Held(), sweepRunning(&s))
	}
}

// BenchmarkCloseSweep is one sweep of 10,000 holds whose streams stay
// open: what each sweep costs while that many clients do not read (one
// sweep each 12.5 ms then).
func BenchmarkCloseSweep(b *testing.B) {
	var s closeSweep
	open := make(chan bool)
	for range 10000 {
		s.pending = append(s.pending, closing{closed: open})
	}
	var spare []closing
	b.ReportAllocs()
	for b.Loop() {
		_, spare = s.sweep(spare)
	}
}
