// Package budget bounds the bytes that requests hold at once: a Budget
// of a size, shared by all requests, and within it a share for each
// client connection (Conn). A request takes what it is about to hold
// (Take), keeps it while it holds it, and gives it back (Hold.Release).
//
// Taking costs a compare-and-swap or two while nobody waits: no lock, no
// allocation. Past the budget, or past a connection's share, a request
// waits, in order of arrival, at most the budget's wait, then fails with
// ErrNoRoom; so does, at once, a request whose connection already has as
// many requests waiting as its share has room for Overhead (32 in
// 512 KiB), and one past MaxWaiting waiting on the whole budget, since
// waiting holds memory too: its response's message.
package budget

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// A Budget is size bytes that requests take and give back. The zero
// value is not usable; a nil *Budget gives every request all it asks.
type Budget struct {
	size    int64
	perConn int64 // a connection's share; 0: none
	wait    time.Duration

	avail  atomic.Int64
	queued atomic.Int64 // waiters in waiters: the fast path is for when it is 0

	mu      sync.Mutex
	waiters []*waiter // in order of arrival
	growing bool      // one of them is a Grow
}

// A waiter is a take that found no room, until it is granted (ready is
// closed) or gives up.
type waiter struct {
	hold    Hold
	ready   chan struct{}
	counted bool // in its connection's takes waiting
	grow    bool // the Grow waiting (Budget.growing)
}

// Overhead is what a response holds while it is written besides its
// body: its request, its stream's or connection's state, the goroutine
// that writes it and its buffers (about 13 KB for a trivial handler's
// response that an HTTP/2 client does not read). Every response takes it
// with its body, so that the budget bounds the responses of clients that
// read nothing, however small.
const Overhead = 16 << 10

// MaxWaiting is how many takes may wait at once on a budget, whatever
// their connections: past it a take that finds no room fails at once.
// A waiting take holds what the budget does not count yet (a response's
// message, a request's body): with clients that read nothing on many
// connections, each with as many takes waiting as its share allows, that
// would be thousands of messages.
const MaxWaiting = 128

// ErrNoRoom is Take's error when the budget, or the connection's share,
// had no room within the wait.
var ErrNoRoom = errors.New("budget: no room")

// New returns a budget of size bytes, with a share of perConn bytes for
// each connection that has a Conn (perConn <= 0: no shares), in which a
// take waits at most wait for room.
func New(size, perConn int64, wait time.Duration) *Budget {
	b := &Budget{size: size, perConn: max(perConn, 0), wait: max(wait, 0)}
	b.avail.Store(size)
	return b
}

// Size is the budget's size in bytes.
func (b *Budget) Size() int64 { return b.size }

// Held is how many bytes are taken.
func (b *Budget) Held() int64 { return b.size - b.avail.Load() }

// Take takes n bytes for a request whose context is ctx: from the budget
// (at most all of it, so that a request larger than the budget can still
// go alone) and from its connection's share (when ctx has a Conn; a
// connection that holds nothing may take more than its share). With no
// room it waits until there is, at most the budget's wait, or until ctx
// ends: then it fails with ErrNoRoom; at once if the connection already
// has as many takes waiting as its share has room for Overhead (one take
// may always wait). A nil budget gives a Hold of nothing.
func (b *Budget) Take(ctx context.Context, n int64) (Hold, error) {
	return b.take(ctx, n, false)
}

// take is Take, for a Grow when grow is set.
func (b *Budget) take(ctx context.Context, n int64, grow bool) (Hold, error) {
	if b == nil {
		return Hold{}, nil
	}
	h := b.newHold(ctx, n)
	if b.queued.Load() == 0 && h.takeNow() {
		return h, nil
	}
	return b.await(ctx, h, grow)
}

// TryTake is Take without waiting: it takes n bytes if they are free at
// once and nobody waits before.
func (b *Budget) TryTake(ctx context.Context, n int64) (Hold, bool) {
	if b == nil {
		return Hold{}, true
	}
	h := b.newHold(ctx, n)
	if b.queued.Load() == 0 && h.takeNow() {
		return h, true
	}
	return Hold{}, false
}

// newHold is the hold of n bytes for a request whose context is ctx, not
// yet taken.
func (b *Budget) newHold(ctx context.Context, n int64) Hold {
	h := Hold{b: b, n: min(max(n, 0), b.size)}
	if b.perConn > 0 {
		if c := connFrom(ctx); c != nil {
			h.conn, h.connN = c, max(n, 0)
		}
	}
	return h
}

// await queues h until the budget grants it, the wait ends or ctx does.
// A take that finds room at once goes, unless the queue holds one the
// budget has no room for, which goes first.
// A Grow waits only while no other Grow does: each holds bytes while it
// waits, and two could each wait for what the other holds, until their
// waits ran out. The second fails at once, and gives back what it holds
// sooner, so that the first can go.
func (b *Budget) await(ctx context.Context, h Hold, grow bool) (Hold, error) {
	w := &waiter{hold: h, ready: make(chan struct{})}
	b.mu.Lock()
	b.waiters = append(b.waiters, w)
	b.queued.Add(1) // before the try: a Release that misses it left its bytes
	b.grant()
	select {
	case <-w.ready:
		b.mu.Unlock()
		return h, nil
	default:
	}
	if b.wait <= 0 || grow && b.growing || b.queued.Load() > MaxWaiting || !h.conn.wait(Overhead, b.perConn) {
		b.dequeue(w)
		b.mu.Unlock()
		return Hold{}, ErrNoRoom
	}
	w.counted = true
	if grow {
		w.grow, b.growing = true, true
	}
	b.mu.Unlock()

	t := time.NewTimer(b.wait)
	defer t.Stop()
	select {
	case <-w.ready:
		return h, nil
	case <-t.C:
	case <-ctx.Done():
	}
	b.mu.Lock()
	select {
	case <-w.ready: // granted as the wait ended: give it back
		b.mu.Unlock()
		h.Release()
		return Hold{}, ErrNoRoom
	default:
	}
	b.dequeue(w)
	b.grant() // w may have been first, holding others back
	b.mu.Unlock()
	return Hold{}, ErrNoRoom
}

// dequeue takes w out of the queue. The caller holds mu.
func (b *Budget) dequeue(w *waiter) {
	for i, x := range b.waiters {
		if x == w {
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			break
		}
	}
	if w.counted {
		w.hold.conn.waited(Overhead)
	}
	if w.grow {
		b.growing = false
	}
	b.queued.Add(-1)
}

// grant wakes the waiters that now fit, in order of arrival: one whose
// connection's share is full is passed over (its own connection holds it
// back, not the others), and the first that the budget has no room for
// stops the rest. The caller holds mu.
func (b *Budget) grant() {
	for i := 0; i < len(b.waiters); {
		w := b.waiters[i]
		if w.hold.conn != nil && !w.hold.conn.take(w.hold.connN, b.perConn) {
			i++
			continue
		}
		if !b.takeAvail(w.hold.n) {
			w.hold.conn.give(w.hold.connN)
			return
		}
		b.dequeue(w)
		close(w.ready)
	}
}

// takeAvail takes n bytes from the budget if it has them.
func (b *Budget) takeAvail(n int64) bool {
	for {
		a := b.avail.Load()
		if a < n {
			return false
		}
		if b.avail.CompareAndSwap(a, a-n) {
			return true
		}
	}
}

// give gives n bytes back, and wakes the waiters that now fit.
func (b *Budget) give(n int64) {
	b.avail.Add(n)
	b.wake()
}

// wake grants the waiters that fit, if there are any.
func (b *Budget) wake() {
	if b.queued.Load() > 0 {
		b.mu.Lock()
		b.grant()
		b.mu.Unlock()
	}
}
