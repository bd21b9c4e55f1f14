package protorest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// TestLargeResponsesMemoryBounded is the amplification case of a large
// response read by many clients at once (RELIABILITY.md's "Response
// amplification"): 16 concurrent GETs of a probe with 100,000 labels
// (1.7 MB of protobuf, 1.7 MB of JSON), in-process and through a remote
// backend, under a budget of 8 MiB. Rendering a response holds several
// times its size (the message's bytes, the JSON, the sorted map's
// entries), so each takes that from the budget before it is rendered:
// they render about one at a time, the others waiting (all are
// answered), and the heap grows by no more than the budget, the bytes
// the remote responses hold while they wait (each its backend's bytes,
// received before it can wait: three times them, with grpc's receive
// buffer and the backend's send buffer in this process), and a margin.
// When the budget counted only the rendered bodies, every response
// rendered at once, holding what the budget did not see: in-process
// +101 MB, remote +452 MB (with the encoder's larger bookkeeping of the
// time); the remote case is about 80 MB here, the in-process one 10 MB.
func TestLargeResponsesMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if raceEnabled {
		t.Skip("measures the heap, which the race detector bloats")
	}
	const (
		labels  = 100_000
		clients = 16
		budget  = 8 << 20
		margin  = 16 << 20
	)
	probe := &confv1.Probe{Name: "big", Labels: make(map[string]string, labels)}
	for i := range labels {
		probe.Labels[fmt.Sprintf("lbl-%06d", i)] = "x"
	}
	wire := proto.Size(probe)
	rec := &recorder{reply: func(string, proto.Message) (proto.Message, error) { return probe, nil }}
	opts := []protorest.Option{
		protorest.WithMaxBufferedResponseBytes(budget),
		protorest.WithBufferedResponseWait(time.Minute), // every response waits its turn
	}

	inProcess := newFixture(t, "A", rec, opts...)
	srv := grpc.NewServer(grpc.MaxSendMsgSize(64 << 20))
	srv.RegisterService(serviceDesc(t, "conf.v1.Probes", rec), nil)
	conn, err := grpc.NewClient(serveGRPC(t, srv), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	remote := protorest.NewGateway(opts...)
	if err := remote.RegisterRemote(context.Background(), conn, protorest.WithRemoteFiles(protoregistry.GlobalFiles, "conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}

	// A low GC target keeps the garbage of earlier renders from hiding
	// what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	for _, tt := range []struct {
		name  string
		gw    http.Handler
		bound int // what the heap may grow by
	}{
		{"in-process", inProcess, budget + margin},
		{"remote", remote, budget + clients*3*wire + margin},
	} {
		srv := h2cServer(t, tt.gw)
		want := fetchAll200(t, srv.Client(), srv.URL+"/v1/probes/big") // the JSON's size; plans and pools warmed
		before := liveHeap()
		stop := sampleHeap()
		var wg sync.WaitGroup
		got := make([]int, clients)
		for i := range clients {
			wg.Go(func() { got[i] = fetchAll200(t, srv.Client(), srv.URL+"/v1/probes/big") })
		}
		wg.Wait()
		grown := int(stop()) - int(before)
		t.Logf("%s: %d clients of a %.1f MB response (%.1f MB of protobuf), budget %d MiB: heap +%.1f MB at its peak, bound %.1f MB",
			tt.name, clients, float64(want)/1e6, float64(wire)/1e6, budget>>20, float64(grown)/1e6, float64(tt.bound)/1e6)
		for i, n := range got {
			if n != want {
				t.Errorf("%s: client %d got %d bytes, want %d", tt.name, i, n, want)
			}
		}
		if grown > tt.bound {
			t.Errorf("%s: the heap grew by %d bytes at its peak, more than %d", tt.name, grown, tt.bound)
		}
	}
}

// fetchAll200 GETs url and returns the length of its body, failing
// unless the status is 200.
func fetchAll200(t *testing.T, client *http.Client, url string) int {
	resp, err := client.Get(url)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || err != nil {
		t.Errorf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return int(n)
}

// sampleHeap samples the bytes of heap objects (live, and garbage not
// yet swept) every millisecond until stop, which returns the highest.
func sampleHeap() (stop func() uint64) {
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var high uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			high = max(high, s[0].Value.Uint64())
			select {
			case <-done:
				peak <- high
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-peak }
}
