package protorest_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
	"google.golang.org/grpc/codes"
)

// TestHostilePassThroughGzipBombMemory is issue 22's gzip bomb, CI-sized:
// 20 gRPC calls at once through the pass-through, each one gzipped
// message of 64 KiB that inflates to 64 MiB. Each gets RESOURCE_EXHAUSTED
// once 4 MiB (the body limit) has inflated, the backend is never called,
// and the heap in use grows by no more than 20 of those and a margin
// (before: 64 MiB each, and serve's RSS at 3.3 GB).
func TestHostilePassThroughGzipBombMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is no measure")
	}
	const calls = 20
	e := newPassEnv(t)
	bomb := rawGRPC("/conf.v1.Probes/CreateProbe", whole(frame(1, gzipped(append([]byte{0x42, 0x80, 0x80, 0x80, 0x20}, make([]byte, 64<<20)...)))), "Grpc-Encoding", "gzip")
	if r := bomb(t, e); r.code != codes.ResourceExhausted { // warm up: the connections
		t.Fatalf("warm-up: %v %q", r.code, r.msg)
	}
	before := liveHeap()
	peak := sampleHeap()
	allocs := heapAllocs()
	var wg sync.WaitGroup
	results := make([]passResult, calls)
	for i := range calls {
		wg.Go(func() { results[i] = bomb(t, e) })
	}
	wg.Wait()
	allocated := heapAllocs() - allocs
	grown := int64(peak()) - int64(before)
	t.Logf("%d gzip bombs of 64 MiB: the heap in use peaked %.1f MB above the live heap, %.1f MB allocated", calls, float64(grown)/1e6, float64(allocated)/1e6)
	for i, r := range results {
		if r.code != codes.ResourceExhausted {
			t.Errorf("call %d: %v %q, want RESOURCE_EXHAUSTED", i, r.code, r.msg)
		}
	}
	if n := e.backend.calls.Load(); n != 0 {
		t.Errorf("%d calls reached the backend", n)
	}
	if grown > calls*(4<<20)+32<<20 {
		t.Errorf("the heap in use grew by %d bytes, more than %d calls of 4 MiB and a 32 MiB margin", grown, calls)
	}
}

// TestHostilePassThroughStalledUpstreamMemory: a client that streams
// 1 MiB messages to a method that has stopped reading (Chat, told
// "hold") is held back by the gateway, which stops reading once a
// message waits for the upstream: the heap grows by a few messages, not
// by what the client sends (before: grpc-go's handler transport read
// the body into a buffer without bound, 256 MiB here).
func TestHostilePassThroughStalledUpstreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is no measure")
	}
	const messages, size = 256, 1 << 20
	e := newPassEnv(t, protorest.WithStreamIdleTimeout(0))
	streams := e.backend.streams.Load()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := e.probes.Chat(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&confv1.Probe{Name: "hold"}); err != nil {
		t.Fatal(err)
	}
	<-streams.started
	before := liveHeap()
	var sent atomic.Int64
	go func() {
		blob := make([]byte, size)
		for range messages {
			if stream.Send(&confv1.Probe{Blob: blob}) != nil {
				return
			}
			sent.Add(1)
		}
	}()
	var last int64 = -1
	for last != sent.Load() { // until the sends stop
		last = sent.Load()
		time.Sleep(500 * time.Millisecond)
	}
	grown := int64(liveHeap()) - int64(before)
	t.Logf("a stream of %d messages of 1 MiB to a method that stopped reading: %d sent, the live heap +%.1f MB", messages, last, float64(grown)/1e6)
	if last == messages {
		t.Errorf("all %d messages were taken", messages)
	}
	if grown > 32<<20 {
		t.Errorf("the live heap grew by %d bytes, more than 32 MiB", grown)
	}
	cancel()
	select {
	case <-streams.canceled:
	case <-time.After(5 * time.Second):
		t.Fatal("the method's call was not canceled when the client left")
	}
}
