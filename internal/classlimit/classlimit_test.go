package classlimit

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/protorest/protorest/internal/httperr"
)

func TestOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		client, server, ws bool
		want               Class
	}{
		{false, false, false, Unary},
		{false, true, false, ServerStream},
		{true, false, false, ClientStream},
		{true, true, false, BidiStream},
		{false, true, true, WebSocket},
		{true, false, true, WebSocket},
		{true, true, true, WebSocket},
	} {
		if got := Of(tt.client, tt.server, tt.ws); got != tt.want {
			t.Errorf("Of(%v, %v, %v) = %d, want %d", tt.client, tt.server, tt.ws, got, tt.want)
		}
	}
}

// TestLimiter: a class at its cap refuses with its own 503; another class
// and an uncapped one are not touched; Release makes room; no caps, no
// limiter.
func TestLimiter(t *testing.T) {
	t.Parallel()
	if New(Caps{}) != nil || New(Caps{Unary: -1, WebSocket: 0}) == nil {
		t.Error("New: want nil for no caps only")
	}
	var none *Limiter
	if none.Acquire(Unary) != nil || none.Open(Unary) != 0 {
		t.Error("a nil limiter refused")
	}
	none.Release(Unary)

	l := New(Caps{ServerStream: 2, WebSocket: 1})
	for range 2 {
		if err := l.Acquire(ServerStream); err != nil {
			t.Fatal(err)
		}
	}
	err := l.Acquire(ServerStream)
	h := http.Header{}
	httperr.SetRetryAfter(h, err)
	if err == nil || err.Error() != "too many server streams in flight: try again" || httperr.Status(err) != http.StatusServiceUnavailable || h.Get("Retry-After") != "1" {
		t.Errorf("third server stream: %v (%d, Retry-After %q)", err, httperr.Status(err), h.Get("Retry-After"))
	}
	if err := l.Acquire(WebSocket); err != nil {
		t.Errorf("a WebSocket beside the streams: %v", err)
	}
	if err := l.Acquire(WebSocket); err == nil || err.Error() != "too many WebSockets in flight: try again" {
		t.Errorf("second WebSocket: %v", err)
	}
	for range 1000 {
		if err := l.Acquire(Unary); err != nil {
			t.Fatalf("unary, uncapped: %v", err)
		}
	}
	if l.Open(ServerStream) != 2 || l.Open(Unary) != 0 {
		t.Errorf("open: %d server streams, %d unary (not counted)", l.Open(ServerStream), l.Open(Unary))
	}
	l.Release(ServerStream)
	if err := l.Acquire(ServerStream); err != nil {
		t.Errorf("after a release: %v", err)
	}
}

// TestLimiterConcurrent: calls racing for a cap of 3 never have more
// than 3 in flight, and all are given back.
func TestLimiterConcurrent(t *testing.T) {
	t.Parallel()
	l := New(Caps{BidiStream: 3})
	var inside, most atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				if l.Acquire(BidiStream) != nil {
					continue
				}
				n := inside.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				inside.Add(-1)
				l.Release(BidiStream)
			}
		}()
	}
	wg.Wait()
	if most.Load() > 3 || most.Load() < 1 || l.Open(BidiStream) != 0 {
		t.Errorf("most in flight %d (cap 3), open at the end %d", most.Load(), l.Open(BidiStream))
	}
}

// BenchmarkAcquireRelease is what a capped call pays, from every core.
func BenchmarkAcquireRelease(b *testing.B) {
	l := New(Caps{Unary: 1 << 30})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if l.Acquire(Unary) == nil {
				l.Release(Unary)
			}
		}
	})
}

// TestSlot: a Slot gives its place back once, however often it is
// released; the zero Slot and a nil limiter's hold none.
func TestSlot(t *testing.T) {
	t.Parallel()
	l := New(Caps{Unary: 1})
	s, err := l.Take(Unary)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Take(Unary); err == nil {
		t.Fatal("a second unary call beside a held slot was let in")
	}
	s.Release()
	s.Release()
	if l.Open(Unary) != 0 {
		t.Fatalf("open after releasing one slot twice: %d, want 0", l.Open(Unary))
	}
	s2, err := l.Take(Unary)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	var zero Slot
	zero.Release()
	if l.Open(Unary) != 1 {
		t.Errorf("the zero Slot's release changed the count: %d", l.Open(Unary))
	}
	s2.Release()
	var none *Limiter
	s3, err := none.Take(Unary)
	if err != nil {
		t.Fatal(err)
	}
	s3.Release()
}
