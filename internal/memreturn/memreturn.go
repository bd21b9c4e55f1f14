// Package memreturn gives the memory a burst left behind back to the
// operating system. The Go runtime keeps the heap it grew to: its
// scavenger releases what exceeds the heap goal slowly, and the goal
// shrinks only at the next collection, which an idle process may not run
// for two minutes; so after a burst the process's RSS stays near its peak
// for minutes. Run checks the runtime's memory at an interval and, after
// a burst, calls debug.FreeOSMemory (a collection, then every free page
// released at once).
package memreturn

import (
	"context"
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
	Goal     uint64 // the heap goal of the last collection
	Cycles   uint64 // collections so far
}

var names = []string{"/memory/classes/total:bytes", "/memory/classes/heap/released:bytes", "/gc/heap/goal:bytes", "/gc/cycles/total:gc-cycles"}

// Read samples the runtime's memory.
func Read() Sample {
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	metrics.Read(s)
	return Sample{
		Retained: s[0].Value.Uint64() - s[1].Value.Uint64(),
		Goal:     s[2].Value.Uint64(),
		Cycles:   s[3].Value.Uint64(),
	}
}

// A Watch decides when memory is to be given back. The zero Watch is
// ready.
type Watch struct {
	floor  uint64 // what was retained after the last release
	cycles uint64 // at the last check
}

// Due reports whether s, the runtime's memory at a check, calls for a
// release: the runtime retains Threshold more than after the last
// release, and either Threshold more than its heap goal, or no
// collection ran since the last check (the goal is stale: the process is
// idle). Under a steady load the heap stays within its goal, and the
// collections run: no release.
func (w *Watch) Due(s Sample) bool {
	idle := s.Cycles == w.cycles
	w.cycles = s.Cycles
	if s.Retained < w.floor+Threshold {
		return false
	}
	return idle || s.Retained > s.Goal+Threshold
}

// Free gives the free memory back (debug.FreeOSMemory) and returns what
// it did.
func (w *Watch) Free() Release {
	before := Read().Retained
	start := time.Now()
	debug.FreeOSMemory()
	r := Release{Before: before, Took: time.Since(start)}
	after := Read()
	r.After, w.floor, w.cycles = after.Retained, after.Retained, after.Cycles
	return r
}
