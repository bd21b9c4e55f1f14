// Package warm runs HTTP handlers on reused goroutines whose stacks have
// already grown.
//
// net/http serves each HTTP/2 request on a goroutine of its own, which
// starts with a small stack (2 KiB, or the runtime's running average); a
// gateway's request (routing, binding, the interceptors, the call,
// rendering) needs several times that, and the runtime grows the stack by
// copying it, doubling each time (its cost: docs/benchmarks.md). A Pool hands
// such a request to one of its idle workers, whose stack is already large
// enough, and waits for it: what grpc-go's NumStreamWorkers does for its
// streams. HTTP/1.x needs none of this: net/http serves a connection's
// requests in turn on one goroutine, whose stack grows once.
package warm

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// A Pool runs handlers on its workers. The zero Pool is not usable; use
// New.
type Pool struct {
	jobs    chan *job
	idle    time.Duration
	max     int32
	workers atomic.Int32
}

// New returns a Pool of at most max workers, each started when a request
// finds none idle and ended after idle without one.
func New(max int, idle time.Duration) *Pool {
	return &Pool{jobs: make(chan *job), idle: idle, max: int32(max)}
}

type job struct {
	h     http.Handler
	w     http.ResponseWriter
	r     *http.Request
	done  chan struct{}
	panic any // what h panicked with, or nil
}

var jobs = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}

// ServeHTTP serves r with h on an idle worker, or on a new one while
// fewer than the Pool's maximum run, and returns when h has; otherwise it
// calls h itself. A panic in h is raised again here, with its value (so
// http.ErrAbortHandler still aborts the response), on the goroutine
// net/http called.
func (p *Pool) ServeHTTP(h http.Handler, w http.ResponseWriter, r *http.Request) {
	j := jobs.Get().(*job)
	j.h, j.w, j.r = h, w, r
	select {
	case p.jobs <- j:
	default:
		if !p.start(j) {
			j.h, j.w, j.r = nil, nil, nil
			jobs.Put(j)
			h.ServeHTTP(w, r)
			return
		}
	}
	<-j.done
	v := j.panic
	j.h, j.w, j.r, j.panic = nil, nil, nil, nil
	jobs.Put(j)
	if v != nil {
		panic(v)
	}
}

// Wrap returns next with its HTTP/2 requests served through p: the edge
// layer of a gateway, outermost.
func (p *Pool) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			p.ServeHTTP(next, w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// start starts a worker with j as its first job; false when the Pool
// already runs its maximum.
func (p *Pool) start(j *job) bool {
	for {
		n := p.workers.Load()
		if n >= p.max {
			return false
		}
		if p.workers.CompareAndSwap(n, n+1) {
			go p.work(j)
			return true
		}
	}
}

// work runs j, then the jobs it receives, until none comes for p.idle, or
// until a handler calls runtime.Goexit, which ends its goroutine.
func (p *Pool) work(j *job) {
	defer p.workers.Add(-1)
	idle := time.NewTimer(p.idle)
	defer idle.Stop()
	for {
		j.run()
		idle.Reset(p.idle)
		select {
		case j = <-p.jobs:
		case <-idle.C:
			return
		}
	}
}

// run serves j and tells its caller, with what the handler panicked
// with, if it did.
func (j *job) run() {
	defer func() {
		j.panic = recover()
		j.done <- struct{}{}
	}()
	j.h.ServeHTTP(j.w, j.r)
}
