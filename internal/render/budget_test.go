package render

import (
	"context"
	"testing"
	"time"
)

// TestBudget: small responses cost nothing and a response larger than
// the budget costs all of it; a take waits for room in order of arrival,
// and fails with ErrBusy at the wait's end or the request's; a take given
// up lets the next one go.
func TestBudget(t *testing.T) {
	t.Parallel()
	var none *Budget
	b := NewBudget(100, 10, time.Second)
	for _, tt := range []struct {
		b    *Budget
		n    int
		cost int64
	}{{none, 1 << 20, 0}, {b, 10, 0}, {b, 11, 11}, {b, 1000, 100}} {
		if got := tt.b.Cost(tt.n); got != tt.cost {
			t.Errorf("Cost(%d) = %d, want %d", tt.n, got, tt.cost)
		}
	}

	ctx := context.Background()
	if err := b.Take(ctx, 80); err != nil {
		t.Fatal(err)
	}
	granted := make(chan int64, 2)
	for _, n := range []int64{50, 30} {
		go func() {
			if err := b.Take(ctx, n); err != nil {
				t.Error(err)
			}
			granted <- n
		}()
		waitUntil(t, func() bool {
			b.mu.Lock()
			defer b.mu.Unlock()
			return len(b.waiters) > 0 && b.waiters[len(b.waiters)-1].n == n
		})
	}
	if b.TryTake(10) {
		t.Error("TryTake went before the waiters")
	}
	b.Give(20) // 40 free: 30 would fit, but waits behind 50
	select {
	case n := <-granted:
		t.Errorf("%d granted out of turn", n)
	case <-time.After(50 * time.Millisecond):
	}
	b.Give(20) // 60 free: 50 goes, 30 still waits
	if n := <-granted; n != 50 {
		t.Errorf("granted %d, want 50", n)
	}
	b.Give(40) // 50 free: 30 goes
	if n := <-granted; n != 30 {
		t.Errorf("granted %d, want 30", n)
	}
	if held := b.Held(); held != 80 {
		t.Errorf("held %d, want 80", held)
	}

	short := NewBudget(100, 10, 20*time.Millisecond)
	short.TryTake(100)
	start := time.Now()
	if err := short.Take(ctx, 30); err != ErrBusy || time.Since(start) < 20*time.Millisecond {
		t.Errorf("no room: %v after %v, want ErrBusy after 20ms", err, time.Since(start))
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := b.Take(canceled, 30); err != ErrBusy {
		t.Errorf("request gone: %v, want ErrBusy", err)
	}
	// A waiter that gives up does not block a smaller one behind it.
	bigCtx, giveUp := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- b.Take(bigCtx, 90) }()
	waitUntil(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 1 })
	small := make(chan error)
	go func() { small <- b.Take(ctx, 20) }()
	waitUntil(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 2 })
	giveUp()
	if err := <-done; err != ErrBusy {
		t.Errorf("90 bytes with 20 free: %v", err)
	}
	if err := <-small; err != nil {
		t.Errorf("20 bytes with 20 free, behind a waiter that gave up: %v", err)
	}
	b.Give(50)
	b.Give(50)
	if held := b.Held(); held != 0 {
		t.Errorf("held %d after giving all back", held)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("timed out")
		}
	}
}
