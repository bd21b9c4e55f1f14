package budget

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTake: a take larger than the budget takes all of it; a take waits
// for room in order of arrival, and fails with ErrNoRoom at the wait's
// end or the request's; a waiter that gives up lets the next one go.
func TestTake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var none *Budget
	if h, err := none.Take(ctx, 1<<40); err != nil || h.N() != 0 {
		t.Errorf("a nil budget: %d, %v", h.N(), err)
	}
	b := New(100, 0, time.Second)
	if h, err := b.Take(ctx, 1000); err != nil || h.N() != 100 {
		t.Errorf("more than the budget: holds %d, %v; want all of it", h.N(), err)
	} else {
		h.Release()
	}

	first, err := b.Take(ctx, 80)
	if err != nil {
		t.Fatal(err)
	}
	granted := make(chan Hold, 2)
	for _, n := range []int64{50, 30} {
		go func() {
			h, err := b.Take(ctx, n)
			if err != nil {
				t.Error(err)
			}
			granted <- h
		}()
		waitUntil(t, func() bool { return b.lastWaiter() == n })
	}
	if _, ok := b.TryTake(ctx, 10); ok {
		t.Error("TryTake went before the waiters")
	}
	first.Shrink(60) // 40 free: 30 would fit, but waits behind 50
	select {
	case h := <-granted:
		t.Errorf("%d granted out of turn", h.N())
	case <-time.After(50 * time.Millisecond):
	}
	first.Shrink(40) // 60 free: 50 goes, 30 still waits
	h50 := <-granted
	if h50.N() != 50 {
		t.Errorf("granted %d, want 50", h50.N())
	}
	first.Release() // 50 free: 30 goes
	h30 := <-granted
	if h30.N() != 30 {
		t.Errorf("granted %d, want 30", h30.N())
	}
	if held := b.Held(); held != 80 {
		t.Errorf("held %d, want 80", held)
	}

	short := New(100, 0, 20*time.Millisecond)
	full, _ := short.TryTake(ctx, 100)
	start := time.Now()
	if _, err := short.Take(ctx, 30); err != ErrNoRoom || time.Since(start) < 20*time.Millisecond {
		t.Errorf("no room: %v after %v, want ErrNoRoom after 20ms", err, time.Since(start))
	}
	full.Release()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.Take(canceled, 30); err != ErrNoRoom {
		t.Errorf("request gone: %v, want ErrNoRoom", err)
	}

	// A waiter that gives up does not hold back a smaller one behind it.
	bigCtx, giveUp := context.WithCancel(ctx)
	done := make(chan error)
	go func() { _, err := b.Take(bigCtx, 70); done <- err }()
	waitUntil(t, func() bool { return b.queueLen() == 1 })
	small := make(chan error)
	var h20 Hold
	go func() { var err error; h20, err = b.Take(ctx, 20); small <- err }()
	waitUntil(t, func() bool { return b.queueLen() == 2 })
	giveUp()
	if err := <-done; err != ErrNoRoom {
		t.Errorf("70 bytes with 20 free: %v", err)
	}
	if err := <-small; err != nil {
		t.Errorf("20 bytes with 20 free, behind a waiter that gave up: %v", err)
	}
	h50.Release()
	h30.Release()
	h20.Release()
	if held := b.Held(); held != 0 {
		t.Errorf("held %d after giving all back", held)
	}
}

// TestTakeNoWait: with no wait, a take without room fails at once; so
// does one whose connection already has as many takes waiting as its
// share has room for Overhead (4 in 64 KiB), however small they are,
// while another connection's waits.
func TestTakeNoWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := New(100, 0, 0)
	h, _ := b.TryTake(ctx, 100)
	start := time.Now()
	if _, err := b.Take(ctx, 1); err != ErrNoRoom || time.Since(start) > 100*time.Millisecond {
		t.Errorf("no wait: %v after %v", err, time.Since(start))
	}
	h.Release()

	b = New(1<<20, 64<<10, time.Minute)
	c1, c2 := WithConn(ctx), WithConn(ctx)
	full, _ := b.TryTake(WithConn(ctx), 1<<20)
	for i := range 4 {
		go b.Take(c1, 100)
		waitUntil(t, func() bool { return b.queueLen() == i+1 })
	}
	start = time.Now()
	if _, err := b.Take(c1, 100); err != ErrNoRoom || time.Since(start) > 100*time.Millisecond {
		t.Errorf("a fifth take waiting on a connection whose share is 64 KiB: %v after %v, want ErrNoRoom at once", err, time.Since(start))
	}
	go b.Take(c2, 100)
	waitUntil(t, func() bool { return b.queueLen() == 5 })
	full.Release()
	waitUntil(t, func() bool { return b.queueLen() == 0 && b.Held() == 500 })
	if n := connFrom(c1).waiting.Load() + connFrom(c2).waiting.Load(); n != 0 {
		t.Errorf("%d still counted as waiting", n)
	}
}

// TestMaxWaiting: at most MaxWaiting takes wait at once on a budget, on
// connections of their own or none; the next that finds no room fails at
// once. A take that finds room still goes, past takes that wait for
// their connections' shares; once some wait no more, others may.
func TestMaxWaiting(t *testing.T) {
	t.Parallel()
	b := New(1000, 0, time.Minute)
	full, _ := b.TryTake(context.Background(), 1000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range MaxWaiting {
		c := ctx
		if i%2 == 0 {
			c = WithConn(ctx)
		}
		go b.Take(c, 100)
	}
	waitUntil(t, func() bool { return b.queueLen() == MaxWaiting })
	start := time.Now()
	if _, err := b.Take(WithConn(context.Background()), 100); err != ErrNoRoom || time.Since(start) > 100*time.Millisecond {
		t.Errorf("a take past %d waiting: %v after %v, want ErrNoRoom at once", MaxWaiting, err, time.Since(start))
	}
	cancel()
	waitUntil(t, func() bool { return b.queueLen() == 0 })
	go b.Take(context.Background(), 100)
	waitUntil(t, func() bool { return b.queueLen() == 1 })
	full.Release()
	waitUntil(t, func() bool { return b.queueLen() == 0 && b.Held() == 100 })

	// Takes that wait for their own connections' shares (clients that
	// read nothing) do not keep another connection's take from room.
	b = New(1<<30, 1000, time.Minute)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	fill := func(c context.Context) { // the connection's share, taken
		if _, err := b.Take(c, 1000); err != nil {
			t.Fatal(err)
		}
	}
	for range MaxWaiting {
		c := WithConn(ctx)
		fill(c)
		go b.Take(c, 1000)
	}
	waitUntil(t, func() bool { return b.queueLen() == MaxWaiting })
	if h, err := b.Take(WithConn(context.Background()), 1000); err != nil {
		t.Errorf("a take with room, %d waiting on their shares: %v", MaxWaiting, err)
	} else {
		h.Release()
	}
	c := WithConn(context.Background())
	fill(c)
	start = time.Now()
	if _, err := b.Take(c, 1000); err != ErrNoRoom || time.Since(start) > 100*time.Millisecond {
		t.Errorf("a take past %d waiting on its share: %v after %v, want ErrNoRoom at once", MaxWaiting, err, time.Since(start))
	}
}

// TestConnShare: a connection takes at most its share, unless it holds
// nothing; past it, its requests wait for its own to give back, and
// do not hold back another connection's.
func TestConnShare(t *testing.T) {
	t.Parallel()
	b := New(1000, 100, time.Minute)
	c1, c2 := WithConn(context.Background()), WithConn(context.Background())
	big, err := b.Take(c1, 300) // holds nothing: may take more than its share
	if err != nil || big.N() != 300 {
		t.Fatalf("alone: %d, %v", big.N(), err)
	}
	if _, ok := b.TryTake(c1, 1); ok {
		t.Error("past the share: taken")
	}
	got := make(chan Hold)
	go func() { h, _ := b.Take(c1, 60); got <- h }()
	waitUntil(t, func() bool { return b.queueLen() == 1 })
	other, err := b.Take(c2, 100) // behind c1's waiter, but not held back by it
	if err != nil {
		t.Fatalf("another connection: %v", err)
	}
	if c := connFrom(c2); c.Held() != 100 {
		t.Errorf("c2 holds %d, want 100", c.Held())
	}
	big.Release()
	h := <-got
	if c := connFrom(c1); c.Held() != 60 {
		t.Errorf("c1 holds %d, want 60", c.Held())
	}
	if !h.TryGrow(100) || h.TryGrow(101) {
		t.Error("growing within the share, or past it")
	}
	h.Shrink(10)
	if c := connFrom(c1); c.Held() != 10 {
		t.Errorf("c1 holds %d after Shrink(10)", c.Held())
	}
	h.Release()
	other.Release()
	if b.Held() != 0 || connFrom(c1).Held() != 0 || connFrom(c2).Held() != 0 {
		t.Errorf("held %d, %d, %d after all given back", b.Held(), connFrom(c1).Held(), connFrom(c2).Held())
	}
	// Without shares, the connection is not counted.
	plain := New(1000, 0, 0)
	h, _ = plain.TryTake(c1, 500)
	if connFrom(c1).Held() != 0 {
		t.Error("a budget without shares counted the connection")
	}
	h.Release()
}

// TestConcurrent: many requests on a few connections take, grow, shrink
// and give back at once; the budget is never overdrawn, every take ends
// granted or ErrNoRoom, and all comes back.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	const size = 1 << 20
	b := New(size, size/8, 20*time.Millisecond)
	conns := make([]context.Context, 8)
	for i := range conns {
		conns[i] = WithConn(context.Background())
	}
	var over atomic.Bool
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 2000 {
				ctx := conns[r.IntN(len(conns))]
				h, err := b.Take(ctx, int64(r.IntN(size/4)))
				if err != nil {
					continue
				}
				if b.Held() > size {
					over.Store(true)
				}
				if r.IntN(2) == 0 {
					h.TryGrow(int64(r.IntN(size / 4)))
				} else {
					h.Shrink(int64(r.IntN(size / 8)))
				}
				h.Release()
			}
		})
	}
	wg.Wait()
	if over.Load() {
		t.Error("the budget was overdrawn")
	}
	if b.Held() != 0 || b.queueLen() != 0 {
		t.Errorf("held %d, %d waiting, after all given back", b.Held(), b.queueLen())
	}
	for i, ctx := range conns {
		if n := connFrom(ctx).Held(); n != 0 {
			t.Errorf("connection %d holds %d", i, n)
		}
	}
}

// BenchmarkTake is the cost of a request that finds room: a take and a
// release, on one connection each, from every P at once.
func BenchmarkTake(b *testing.B) {
	for _, perConn := range []int64{0, 1 << 20} {
		name := "budget"
		if perConn > 0 {
			name = "budget+share"
		}
		b.Run(name, func(b *testing.B) {
			bud := New(1<<30, perConn, time.Second)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				ctx := WithConn(context.Background())
				for pb.Next() {
					h, err := bud.Take(ctx, 20<<10)
					if err != nil {
						b.Fatal(err)
					}
					h.Release()
				}
			})
		})
	}
}

func (b *Budget) queueLen() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiters)
}

func (b *Budget) lastWaiter() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiters) == 0 {
		return -1
	}
	return b.waiters[len(b.waiters)-1].hold.n
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("timed out")
		}
	}
}

// TestGrow: a hold grows to at most the budget, waiting for what it
// lacks; with no room within the wait it fails, unchanged.
func TestGrow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	short := New(100, 0, 20*time.Millisecond)
	h, _ := short.TryTake(ctx, 10)
	if err := h.Grow(ctx, 1000); err != nil || h.N() != 100 || short.Held() != 100 {
		t.Fatalf("grown past the budget: holds %d, %v; want all 100", h.N(), err)
	}
	h.Shrink(40)
	other, _ := short.TryTake(ctx, 50)
	if err := h.Grow(ctx, 60); err != ErrNoRoom || h.N() != 40 {
		t.Errorf("no room: holds %d, %v; want 40 and ErrNoRoom", h.N(), err)
	}
	h.Release()
	other.Release()

	b := New(100, 0, time.Minute)
	h, _ = b.TryTake(ctx, 40)
	other, _ = b.TryTake(ctx, 50)
	go func() { time.Sleep(5 * time.Millisecond); other.Release() }()
	if err := h.Grow(ctx, 60); err != nil || h.N() != 60 {
		t.Errorf("room given back while it waits: holds %d, %v", h.N(), err)
	}
	h.Release()
	if b.Held() != 0 {
		t.Errorf("held %d after all given back", b.Held())
	}
}

// TestGrowWaitsAlone: two holds that each wait to grow, each holding
// bytes the other needs, would wait for each other until their waits ran
// out; the second Grow fails at once instead, and once it gives back
// what it holds, the first is granted.
func TestGrowWaitsAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := New(100, 0, time.Minute)
	h1, _ := b.Take(ctx, 30)
	h2, _ := b.Take(ctx, 30)
	grown := make(chan error, 1)
	go func() { grown <- h1.Grow(ctx, 100) }()
	waitUntil(t, func() bool { return b.queueLen() == 1 })
	start := time.Now()
	if err := h2.Grow(ctx, 100); err != ErrNoRoom || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("a second Grow while one waits: %v after %v, want ErrNoRoom at once", err, time.Since(start))
	}
	if h2.N() != 30 {
		t.Errorf("the refused Grow changed its hold: %d", h2.N())
	}
	h2.Release()
	if err := <-grown; err != nil || h1.N() != 100 {
		t.Fatalf("the first Grow: %v, holds %d", err, h1.N())
	}
	h1.Release()
	// The one growing gone, the next Grow may wait again.
	h3, _ := b.Take(ctx, 50)
	h4, _ := b.Take(ctx, 50)
	go func() { grown <- h3.Grow(ctx, 80) }()
	waitUntil(t, func() bool { return b.queueLen() == 1 })
	h4.Release()
	if err := <-grown; err != nil || h3.N() != 80 {
		t.Errorf("a Grow after the first: %v, holds %d", err, h3.N())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.growing {
		t.Error("still marked growing")
	}
}
