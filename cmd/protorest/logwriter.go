package main

import (
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// The access log's buffer: what a request costs is appending its line;
// one goroutine writes the lines to the log.
const (
	// logFlushInterval is the longest a line waits before it is written.
	logFlushInterval = 100 * time.Millisecond
	// logFlushBytes of lines waiting are written at once, without
	// waiting for the interval.
	logFlushBytes = 64 << 10
	// logBufferBytes is the most bytes of lines waiting: a line that
	// does not fit is dropped and counted.
	logBufferBytes = 1 << 20
	// logDropWarnInterval is the least time between two warnings of
	// dropped lines.
	logDropWarnInterval = 5 * time.Second
)

// A logWriter is serve's log output (stderr): access log lines go into a
// buffer (Line) that one goroutine writes out every logFlushInterval, or
// as soon as logFlushBytes wait, in one write; other records (Write)
// are written at once, after the lines waiting before them, so that the
// log keeps its order. When the buffer is full (the output is slower
// than the requests), a line is dropped, never waited for: Dropped
// counts them, and a WARN record says so at most every
// logDropWarnInterval. Close writes what is left.
type logWriter struct {
	out io.Writer

	mu      sync.Mutex // guards pending and closed
	pending []byte
	closed  bool

	writing sync.Mutex // held while writing to out; guards spare
	spare   []byte

	dropped atomic.Int64
	kick    chan struct{} // logFlushBytes are waiting
	done    chan struct{} // closed by Close
	exited  chan struct{} // closed when the goroutine is done

	warnLog atomic.Pointer[slog.Logger] // where drops are warned of
}

// newLogWriter writes to out until Close.
func newLogWriter(out io.Writer) *logWriter {
	w := &logWriter{
		out:     out,
		pending: make([]byte, 0, logFlushBytes),
		spare:   make([]byte, 0, logFlushBytes),
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	go w.run()
	return w
}

// warnWith makes w log a WARN record on log when lines were dropped.
func (w *logWriter) warnWith(log *slog.Logger) { w.warnLog.Store(log) }

// Line adds a whole line to the buffer, or drops it when the buffer is
// full or closed. It never waits for the output.
func (w *logWriter) Line(line []byte) {
	w.mu.Lock()
	if w.closed || len(w.pending)+len(line) > logBufferBytes {
		w.mu.Unlock()
		w.dropped.Add(1)
		return
	}
	w.pending = append(w.pending, line...)
	full := len(w.pending) >= logFlushBytes
	w.mu.Unlock()
	if full {
		select {
		case w.kick <- struct{}{}:
		default: // already kicked
		}
	}
}

// Write writes p at once, after the lines waiting: for the records of
// serve's logger, whose handler writes each in one call.
func (w *logWriter) Write(p []byte) (int, error) {
	w.writing.Lock()
	defer w.writing.Unlock()
	if err := w.flushLocked(); err != nil {
		return 0, err
	}
	return w.out.Write(p)
}

// Dropped is how many lines were dropped so far.
func (w *logWriter) Dropped() int64 { return w.dropped.Load() }

// flush writes the lines waiting.
func (w *logWriter) flush() error {
	w.writing.Lock()
	defer w.writing.Unlock()
	return w.flushLocked()
}

// flushLocked writes the lines waiting; w.writing is held.
func (w *logWriter) flushLocked() error {
	w.mu.Lock()
	w.pending, w.spare = w.spare[:0], w.pending
	w.mu.Unlock()
	if len(w.spare) == 0 {
		return nil
	}
	_, err := w.out.Write(w.spare)
	if cap(w.spare) > 4*logFlushBytes { // a burst grew it: let it go
		w.spare = make([]byte, 0, logFlushBytes)
	}
	return err
}

func (w *logWriter) run() {
	defer close(w.exited)
	tick := time.NewTicker(logFlushInterval)
	defer tick.Stop()
	var warned int64
	lastWarn := time.Now().Add(-logDropWarnInterval)
	warn := func(force bool) {
		total := w.dropped.Load()
		log := w.warnLog.Load()
		if total == warned || log == nil || !force && time.Since(lastWarn) < logDropWarnInterval {
			return
		}
		log.Warn("access log lines dropped: the log output is slower than the requests",
			"dropped", total-warned, "dropped_total", total)
		warned, lastWarn = total, time.Now()
	}
	for {
		select {
		case <-w.done:
			w.flush()
			warn(true)
			return
		case <-tick.C:
		case <-w.kick:
		}
		w.flush()
		warn(false)
	}
}

// Close writes the lines waiting and stops the goroutine; lines added
// after it are dropped. Records written after it are written at once.
func (w *logWriter) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.done)
	<-w.exited
	return w.flush()
}
