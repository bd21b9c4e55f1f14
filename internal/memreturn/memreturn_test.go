package memreturn

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestDue: while collections run, a release is due once the runtime
// retains Threshold more than it needs; when none ran since the last
// check, once it retains Threshold more than at rest, the checks after a
// release that gave back little passed over.
func TestDue(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		name string
		w    Watch
		s    Sample
		want bool
	}{
		{"steady: within its need, collecting", Watch{cycles: 10}, Sample{Retained: 200 * mib, Need: 190 * mib, Cycles: 12}, false},
		{"after a burst: collected", Watch{cycles: 10}, Sample{Retained: 300 * mib, Need: 20 * mib, Cycles: 11}, true},
		{"after a burst: idle, the goal stale", Watch{rest: 25 * mib, cycles: 10}, Sample{Retained: 300 * mib, Need: 600 * mib, Cycles: 10}, true},
		{"idle, at rest", Watch{rest: 25 * mib, cycles: 10}, Sample{Retained: 40 * mib, Need: 600 * mib, Cycles: 10}, false},
		{"idle, nothing released yet", Watch{cycles: 10}, Sample{Retained: 20 * mib, Need: 8 * mib, Cycles: 10}, false},
		{"idle, backing off", Watch{rest: 25 * mib, cycles: 10, skip: 2, backoff: 2}, Sample{Retained: 300 * mib, Cycles: 10}, false},
	} {
		w := tt.w
		if got := w.Due(tt.s); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		if w.cycles != tt.s.Cycles {
			t.Errorf("%s: the watch did not note the collections", tt.name)
		}
	}
}

// TestFreeBacksOff: an idle release that gives back little notes the
// process at rest, and makes the idle checks after it pass over, twice
// as many each time, at most maxBackoff. A release during a burst does
// neither.
func TestFreeBacksOff(t *testing.T) {
	w := Watch{rest: 1}
	w.Free()
	if w.skip != 0 || w.rest != 1 {
		t.Errorf("a release during a burst: skip %d, rest %d", w.skip, w.rest)
	}
	w = Watch{idle: true}
	for _, want := range []int{1, 2, 4, 8, 12, 12} {
		w.Free() // nothing to give back
		if w.skip != want {
			t.Fatalf("skip %d, want %d", w.skip, want)
		}
	}
	if w.rest == 0 {
		t.Error("the process at rest was not noted")
	}
}

var sink [][]byte

// TestRunGivesBack: after 256 MiB was allocated and dropped, Run gives
// the memory back within two checks, and tells of it.
func TestRunGivesBack(t *testing.T) {
	for range 256 {
		sink = append(sink, make([]byte, 1<<20))
	}
	for _, b := range sink {
		b[0] = 1 // touched: resident
	}
	sink = nil
	runtime.GC() // the goal falls, the pages stay
	before := Read().Retained
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan Release, 1)
	go Run(ctx, 20*time.Millisecond, func(r Release) {
		select {
		case got <- r:
		default:
		}
	})
	select {
	case r := <-got:
		t.Logf("retained %d MiB before, %d MiB after, in %v (%d MiB before the run)", r.Before>>20, r.After>>20, r.Took, before>>20)
		if r.After+200<<20 > r.Before {
			t.Errorf("released %d MiB of 256", (r.Before-r.After)>>20)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no release; %d MiB retained", Read().Retained>>20)
	}
}
