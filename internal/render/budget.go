package render

import (
	"context"
	"sync"
	"time"

	"github.com/protorest/protorest/internal/httperr"
)

// A Budget bounds the bytes that all requests hold at once to render
// large responses and write them: a response (or one message of a
// stream or a WebSocket) is held while it is rendered, which takes
// several times its size (its message, its encoding, the encoder's
// bookkeeping), and then until it is written to the client, which a
// slow reader makes last.
// Responses of up to Free bytes are not counted, so that the common small
// response never touches the budget's lock; they stay bounded all the
// same, by the number of requests in flight (connections times streams
// per connection) times Free. A larger one takes an estimate of what its
// rendering holds before it is rendered, keeps its body's size once it
// is, and gives that back once it is written (Config.Render); when the
// budget has no room it waits, in order of arrival, at most Wait, then
// fails with ErrBusy: 503 UNAVAILABLE and a Retry-After header, or for a
// message of a WebSocket, its close with 4014 (4000 + UNAVAILABLE).
//
// A response waits before it is rendered, holding only its source (the
// method's message, or the backend's wire bytes, which arrive before
// their size is known): those are bounded by the requests in flight, not
// by the budget. A body larger than its estimate that must wait for the
// rest drops its rendered bytes while it waits, and is rendered again
// once it has room.
type Budget struct {
	Free int           // the largest response not counted
	Wait time.Duration // the longest wait for room

	size    int64
	mu      sync.Mutex
	avail   int64
	waiters []*budgetWaiter // in order of arrival
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed when n is granted
}

// NewBudget returns a budget of size bytes.
func NewBudget(size int64, free int, wait time.Duration) *Budget {
	return &Budget{Free: free, Wait: wait, size: size, avail: size}
}

// Cost is what a response of n bytes takes from b: nothing when b is nil
// or n is at most Free, and never more than the whole budget, so that a
// response larger than it can still go alone.
func (b *Budget) Cost(n int) int64 {
	if b == nil || n <= b.Free {
		return 0
	}
	return min(int64(n), b.size)
}

// TryTake takes n bytes if they are free at once and no one waits before.
func (b *Budget) TryTake(n int64) bool {
	if n == 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.takeNow(n)
}

// takeNow is TryTake; the caller holds mu.
func (b *Budget) takeNow(n int64) bool {
	if len(b.waiters) == 0 && b.avail >= n {
		b.avail -= n
		return true
	}
	return false
}

// Take takes n bytes, waiting for them at most b.Wait, or until ctx ends:
// then it fails with ErrBusy.
func (b *Budget) Take(ctx context.Context, n int64) error {
	if n == 0 {
		return nil
	}
	b.mu.Lock()
	if b.takeNow(n) {
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()

	t := time.NewTimer(b.Wait)
	defer t.Stop()
	select {
	case <-w.ready:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted as the wait ended: give it back
		b.avail += n
		b.grant()
		return ErrBusy
	default:
	}
	for i, x := range b.waiters {
		if x == w {
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			break
		}
	}
	b.grant() // the first waiter may have been this one, blocking others
	return ErrBusy
}

// Give gives back n bytes taken.
func (b *Budget) Give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.avail += n
	b.grant()
	b.mu.Unlock()
}

// grant wakes the waiters that fit, in order. The caller holds mu.
func (b *Budget) grant() {
	for len(b.waiters) > 0 && b.avail >= b.waiters[0].n {
		w := b.waiters[0]
		b.avail -= w.n
		close(w.ready)
		b.waiters[0] = nil
		b.waiters = b.waiters[1:]
	}
}

// Held is how many bytes are taken.
func (b *Budget) Held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size - b.avail
}

// ErrBusy is the error of a response that found no room in the budget:
// 503, with a Retry-After header (set by the sink).
var ErrBusy = httperr.Busy("too many large responses in flight: try again")
