// Package memreturn gives the memory a burst left behind back to the
// operating system. The Go runtime keeps the heap it grew to: its
// scavenger releases what exceeds the heap goal slowly, and the goal
// shrinks only at the next collection, which an idle process may not run
// for two minutes; so after a burst the process's RSS stays near its peak
// for minutes. Run checks the runtime's memory at an interval and, after
// a burst, collects garbage twice (the first empties the sync.Pools into
// their victim caches, the second drops them) and releases every free
// page at once (debug.FreeOSMemory).
package memreturn

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Threshold is how much memory the runtime must keep beyond its need
// before Run gives it back: 32 MiB.
const Threshold = 32 << 20

// A Release is what one debug.FreeOSMemory did: the runtime's memory not
// released to the OS before and after, and how long it took.
type Release struct {
	Before, After uint64
	Took          time.Duration
}

// Run checks the runtime's memory every interval until ctx ends, and
// gives it back after a burst (see Watch.Due); released, if not nil, is
// told of each release.
func Run(ctx context.Context, every time.Duration, released func(Release)) {
	t := time.NewTicker(every)
	defer t.Stop()
	var w Watch
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if w.Due(Read()) {
			r := w.Free()
			if released != nil {
				released(r)
			}
		}
	}
}

// A Sample is what Watch reads of the runtime's memory.
type Sample struct {
	Retained uint64 // mapped and not released to the OS: what RSS counts
	Need     uint64 // the heap goal of the last collection, and the goroutines' stacks
	Cycles   uint64 // collections so far
}

var names = []string{"/memory/classes/total:bytes", "/memory/classes/heap/released:bytes",
	"/gc/heap/goal:bytes", "/memory/classes/heap/stacks:bytes", "/gc/cycles/total:gc-cycles"}

// Read samples the runtime's memory.
func Read() Sample {
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	metrics.Read(s)
	return Sample{
		Retained: s[0].Value.Uint64() - s[1].Value.Uint64(),
		Need:     s[2].Value.Uint64() + s[3].Value.Uint64(),
		Cycles:   s[4].Value.Uint64(),
	}
}

// maxBackoff is the most checks an idle process passes over after a
// release that gave back less than Threshold.
const maxBackoff = 12

// A Watch decides when memory is to be given back. The zero Watch is
// ready.
type Watch struct {
	rest    uint64 // retained after an idle release that gave back little: the process at rest
	cycles  uint64 // at the last check
	idle    bool   // no collection ran before the last check
	skip    int    // idle checks still to pass over
	backoff int    // the last skip
}

// Due reports whether s, the runtime's memory at a check, calls for a
// release. While collections run, when the runtime retains Threshold
// more than it needs (its heap goal and the stacks), as after a burst
// whose memory was collected: under a steady load it retains what it
// needs, no more. When none ran since the last check (the process is
// idle, and the goal stale), when it retains Threshold more than at rest
// (what the last idle release that gave back less than Threshold left;
// a release that gave back more was the end of a burst, and says nothing
// of rest). After such a release the idle checks that follow are passed
// over, twice as many each time (at most 12), so that a process at rest
// with a large heap is not collected at every check.
func (w *Watch) Due(s Sample) bool {
	idle := s.Cycles == w.cycles
	w.cycles, w.idle = s.Cycles, idle
	if !idle {
		return s.Retained > s.Need+Threshold
	}
	if w.skip > 0 {
		w.skip--
		return false
	}
	return s.Retained > w.rest+Threshold
}

// Free gives the free memory back (two collections, then
// debug.FreeOSMemory) and returns what it did.
func (w *Watch) Free() Release {
	before := Read().Retained
	start := time.Now()
	runtime.GC() // the sync.Pools into their victim caches, which FreeOSMemory's collection drops
	debug.FreeOSMemory()
	r := Release{Before: before, Took: time.Since(start)}
	after := Read()
	r.After, w.cycles = after.Retained, after.Cycles
	switch {
	case !w.idle:
	case r.Before >= r.After+Threshold: // the end of a burst: there may be more to come
		w.backoff = 0
	default: // the process at rest
		w.rest = r.After
		w.backoff = min(max(2*w.backoff, 1), maxBackoff)
		w.skip = w.backoff
	}
	return r
}
