package warm

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// goroutineID is the calling goroutine's number, from its stack's first
// line ("goroutine 7 [running]:").
func goroutineID() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	id, _ := strconv.Atoi(string(buf[:bytes.IndexByte(buf, ' ')]))
	return id
}

// recordGoroutine is a handler that records the goroutine it ran on.
type recordGoroutine struct{ ids []int }

func (h *recordGoroutine) ServeHTTP(http.ResponseWriter, *http.Request) {
	h.ids = append(h.ids, goroutineID())
}

func serve(p *Pool, h http.Handler) {
	p.ServeHTTP(h, httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func TestRequestsReuseOneWorker(t *testing.T) {
	p := New(4, time.Minute)
	h := &recordGoroutine{}
	for range 5 {
		serve(p, h)
		// The worker is idle again once it waits in its select; the
		// caller may return first.
		waitFor(t, func() bool { return idleWorker(p) })
	}
	caller := goroutineID()
	for i, id := range h.ids {
		if id == caller {
			t.Fatalf("request %d ran on the caller's goroutine", i)
		}
		if id != h.ids[0] {
			t.Fatalf("requests ran on goroutines %v, want one worker for all", h.ids)
		}
	}
	if n := p.workers.Load(); n != 1 {
		t.Errorf("%d workers, want 1", n)
	}
}

// idleWorker says whether a worker takes a job now: it sends one that
// records nothing, without waiting.
func idleWorker(p *Pool) bool {
	j := &job{h: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), done: make(chan struct{}, 1)}
	select {
	case p.jobs <- j:
		<-j.done
		return true
	default:
		return false
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWrapPoolsOnlyHTTP2: Wrap hands HTTP/2 requests to the pool and
// serves the others where they are.
func TestWrapPoolsOnlyHTTP2(t *testing.T) {
	h := &recordGoroutine{}
	wrapped := New(1, time.Minute).Wrap(h)
	for _, major := range []int{1, 2} {
		r := httptest.NewRequest("GET", "/", nil)
		r.ProtoMajor = major
		wrapped.ServeHTTP(httptest.NewRecorder(), r)
	}
	if caller := goroutineID(); h.ids[0] != caller || h.ids[1] == caller {
		t.Errorf("HTTP/1.1 then HTTP/2 ran on goroutines %v; the caller is %d: want the caller's, then a worker's", h.ids, caller)
	}
}

func TestBusyPoolServesOnTheCallersGoroutine(t *testing.T) {
	p := New(1, time.Minute)
	release, started := make(chan struct{}), make(chan struct{})
	go serve(p, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		close(started)
		<-release
	}))
	<-started
	h := &recordGoroutine{}
	serve(p, h)
	close(release)
	if h.ids[0] != goroutineID() {
		t.Errorf("with the only worker busy, the request ran on goroutine %d, not the caller's %d", h.ids[0], goroutineID())
	}
}

func TestPanicReachesTheCaller(t *testing.T) {
	p := New(1, time.Minute)
	for _, v := range []any{http.ErrAbortHandler, "boom", errors.New("an error")} {
		got := func() (got any) {
			defer func() { got = recover() }()
			serve(p, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(v) }))
			return nil
		}()
		if got != v {
			t.Errorf("the caller recovered %v, want %v", got, v)
		}
	}
	// The worker recovered each panic and serves on.
	h := &recordGoroutine{}
	serve(p, h)
	if h.ids[0] == goroutineID() {
		t.Error("after the panics the request ran on the caller's goroutine")
	}
	if n := p.workers.Load(); n != 1 {
		t.Errorf("%d workers after the panics, want 1", n)
	}
}

func TestGoexitEndsOnlyItsWorker(t *testing.T) {
	p := New(1, time.Minute)
	serve(p, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { runtime.Goexit() }))
	waitFor(t, func() bool { return p.workers.Load() == 0 })
	h := &recordGoroutine{}
	serve(p, h)
	if h.ids[0] == goroutineID() {
		t.Error("after a Goexit the request ran on the caller's goroutine: no worker was started")
	}
}

func TestIdleWorkersEnd(t *testing.T) {
	before := runtime.NumGoroutine()
	p := New(8, 20*time.Millisecond)
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			serve(p, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
		})
	}
	waitFor(t, func() bool { return p.workers.Load() == 8 })
	close(release)
	wg.Wait()
	waitFor(t, func() bool { return p.workers.Load() == 0 && runtime.NumGoroutine() <= before })
}

// deep is a handler that needs about 16 KiB of stack, as a gateway's
// request does: on a new goroutine each time, the runtime grows its
// stack, copying it, several times.
type deep struct{}

//go:noinline
func recurse(n int) byte {
	var frame [512]byte
	frame[n%512] = byte(n)
	if n == 0 {
		return frame[0]
	}
	return recurse(n-1) + frame[n%512]
}

func (deep) ServeHTTP(http.ResponseWriter, *http.Request) { recurse(32) }

// BenchmarkServeHTTP serves a deep handler as net/http serves an HTTP/2
// request, on a goroutine started for it: the handler called there
// (direct) or handed to a Pool's worker (pool).
func BenchmarkServeHTTP(b *testing.B) {
	w, r := httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)
	run := func(b *testing.B, serve func()) {
		b.ReportAllocs()
		done := make(chan struct{})
		for b.Loop() {
			go func() {
				serve()
				done <- struct{}{}
			}()
			<-done
		}
	}
	b.Run("direct", func(b *testing.B) { run(b, func() { deep{}.ServeHTTP(w, r) }) })
	p := New(1, time.Minute)
	b.Run("pool", func(b *testing.B) { run(b, func() { p.ServeHTTP(deep{}, w, r) }) })
}
