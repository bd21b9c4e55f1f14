package memreturn

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestDue: a release is due once the runtime retains Threshold more than
// after the last one, and either Threshold beyond its goal or no
// collection ran since the last check; not under a steady load.
func TestDue(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		name  string
		floor uint64
		last  uint64 // cycles at the last check
		s     Sample
		want  bool
	}{
		{"steady: within the goal, collecting", 0, 10, Sample{Retained: 200 * mib, Goal: 190 * mib, Cycles: 12}, false},
		{"after a burst: the goal fell", 0, 10, Sample{Retained: 300 * mib, Goal: 20 * mib, Cycles: 11}, true},
		{"after a burst: idle, the goal stale", 0, 10, Sample{Retained: 300 * mib, Goal: 600 * mib, Cycles: 10}, true},
		{"idle, little retained", 0, 10, Sample{Retained: 20 * mib, Goal: 8 * mib, Cycles: 10}, false},
		{"idle, no more than after the last release", 150 * mib, 10, Sample{Retained: 170 * mib, Goal: 8 * mib, Cycles: 10}, false},
		{"idle, grown since the last release", 150 * mib, 10, Sample{Retained: 190 * mib, Goal: 300 * mib, Cycles: 10}, true},
	} {
		w := Watch{floor: tt.floor, cycles: tt.last}
		if got := w.Due(tt.s); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		if w.cycles != tt.s.Cycles {
			t.Errorf("%s: the watch did not note the collections", tt.name)
		}
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
