package protorest_test

import (
	"context"
	"net/http"
	"runtime/debug"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// The CI-sized versions of issue 22's attacks on memory: 200 HTTP/2
// streams that never open their window (unary answers, server streams,
// and server streams through the gRPC pass-through), and 5 upstream
// replies of 60 MiB. Each asserts a bound on the heap's growth, as the
// other heap tests do (.ci/run runs them without -race).

const zeroWindowStreams = 200 // 2 connections of 100

// heapTest skips a test that measures the heap where it cannot, and sets
// a low GC target: the garbage of the work must not hide what is live.
func heapTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if raceEnabled {
		t.Skip("measures the heap, which the race detector bloats")
	}
	old := debug.SetGCPercent(10)
	t.Cleanup(func() { debug.SetGCPercent(old) })
}

// stallStreams opens zeroWindowStreams GETs of path on connections to
// addr that never open their window, and waits until each has its
// response's headers or was reset.
func stallStreams(t *testing.T, addr, path string) []*stalledClient {
	t.Helper()
	var clients []*stalledClient
	var ids [][]uint32
	for range zeroWindowStreams / 100 {
		c := dialStalled(t, addr)
		var cids []uint32
		for range 100 {
			cids = append(cids, c.Get(t, path))
		}
		clients, ids = append(clients, c), append(ids, cids)
	}
	if !waitFor(30*time.Second, func() bool {
		for i, c := range clients {
			for _, id := range ids[i] {
				if _, reset := c.Reset(id); c.Status(id) == 0 && !reset {
					return false
				}
			}
		}
		return true
	}) {
		t.Fatal("not every stream was answered or reset")
	}
	return clients
}

// TestZeroWindowUnaryMemoryBounded: 200 zero-window streams on a 58 KB
// unary answer, with the defaults. Each connection's answers hold at
// most its share of the response budget (512 KiB); the others wait for
// it or are refused (503, reset 250 ms later): the heap grows by the
// shares and what each stream costs besides (16 KiB counted), not by
// every answer.
func TestZeroWindowUnaryMemoryBounded(t *testing.T) {
	heapTest(t)
	gw := newFixture(t, "A", largeReplies(43000))
	srv := newServerTest(t, gw)
	fetchAll(t, srv, "/v1/probes/blob")
	srv.Client().CloseIdleConnections()
	before := liveHeap()
	peak := sampleHeap()
	clients := stallStreams(t, srv.Listener.Addr().String(), "/v1/probes/blob")
	time.Sleep(time.Second) // the refused are reset, the waiting refused
	held := liveHeap()
	grown := int64(peak()) - int64(before)
	statuses := map[int]int{}
	for _, c := range clients {
		for code, n := range c.Statuses() {
			statuses[code] += n
		}
	}
	t.Logf("%d zero-window streams of a 58 KB answer: statuses %v; heap +%.1f MB at its peak, +%.1f MB held after 1 s",
		zeroWindowStreams, statuses, float64(grown)/1e6, (float64(held)-float64(before))/1e6)
	if bound := int64(2*512<<10 + zeroWindowStreams*32<<10 + 8<<20); grown > bound {
		t.Errorf("the heap grew by %d bytes at its peak, more than %d", grown, bound)
	}
}

// TestZeroWindowStreamsMemoryBounded: 200 zero-window server streams of
// 30 KB messages sent as fast as taken, from a remote backend dialed with
// BackendDialOptions, over REST and through the gRPC pass-through (a
// grpc-go client whose 64 KiB windows it never reads). A stream holds one
// message toward its client and at most its 64 KiB window of the
// backend's (which, in this process, holds about as much it cannot
// send): the heap grows by less than 256 KiB a stream, not by the
// megabytes grpc-go's window auto-sizing let each pile up. (30 KB, not
// 64 KiB: grpc-go takes a message over 32 KiB from its pool's 1 MiB
// buffers, and the backend's, in this process, would be what is
// measured.)
func TestZeroWindowStreamsMemoryBounded(t *testing.T) {
	heapTest(t)
	be := &hostileBackend{}
	be.streams.Store(newStreamer())
	up := grpc.NewServer()
	confv1.RegisterProbesServer(up, be)
	reflection.Register(up)
	conn, err := grpc.NewClient(serveGRPC(t, up), append(protorest.BackendDialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	gw := protorest.NewGateway()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := gw.RegisterRemote(ctx, conn, protorest.WithReflection("conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}
	srv := newServerTest(t, gw.GRPCPassThrough(conn))
	const path = "/v1/watch/flood?i32=100000&id=30000"
	const bound = zeroWindowStreams*256<<10 + 16<<20

	t.Run("REST", func(t *testing.T) {
		before := liveHeap()
		peak := sampleHeap()
		clients := stallStreams(t, srv.Listener.Addr().String(), path)
		time.Sleep(2 * time.Second) // every stream as full as it gets
		grown := int64(peak()) - int64(before)
		t.Logf("%d zero-window REST server streams: heap +%.1f MB at its peak", zeroWindowStreams, float64(grown)/1e6)
		if grown > bound {
			t.Errorf("the heap grew by %d bytes at its peak, more than %d", grown, bound)
		}
		for _, c := range clients {
			c.Close()
		}
	})
	t.Run("pass-through", func(t *testing.T) {
		client, err := grpc.NewClient(srv.Listener.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithStaticStreamWindowSize(64<<10), grpc.WithStaticConnWindowSize(64<<10))
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		probes := confv1.NewProbesClient(client)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		before := liveHeap()
		peak := sampleHeap()
		for range zeroWindowStreams {
			if _, err := probes.Watch(ctx, &confv1.Probe{Name: "flood", I32: 100000, Id: 30000}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(2 * time.Second) // every stream as full as it gets
		grown := int64(peak()) - int64(before)
		t.Logf("%d zero-window pass-through server streams: heap +%.1f MB at its peak", zeroWindowStreams, float64(grown)/1e6)
		if grown > bound {
			t.Errorf("the heap grew by %d bytes at its peak, more than %d", grown, bound)
		}
	})
}

// TestLargeUpstreamRepliesMemoryBounded: 5 upstream replies of 60 MiB at
// once to a gateway with the defaults. A reply over the backend message
// limit (the response limit, 4 MiB) is refused from its length prefix:
// 500, and the heap does not grow by the replies (before, at serve's old
// default of 64 MiB: each read whole, +262 MiB for one).
func TestLargeUpstreamRepliesMemoryBounded(t *testing.T) {
	heapTest(t)
	const replies, size = 5, 60 << 20
	reply := make([]byte, size+10) // a Probe whose blob is 60 MiB, as the wire has it
	reply[0] = 0x42                // field 8 (blob), length-delimited
	n := copyVarint(reply[1:], size)
	reply = reply[:1+n+size]
	up := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
		var req []byte
		if err := ss.RecvMsg(&req); err != nil {
			return err
		}
		return ss.SendMsg(reply) // the same bytes each time: the backend allocates nothing
	}))
	conn := dial(t, serveGRPC(t, up))
	gw := protorest.NewGateway()
	if err := gw.RegisterRemote(context.Background(), conn, protorest.WithRemoteFiles(protoregistry.GlobalFiles, "conf.v1.Probes")); err != nil {
		t.Fatal(err)
	}
	srv := h2cServer(t, gw)
	before := liveHeap()
	peak := sampleHeap()
	codes := make([]int, replies)
	done := make(chan struct{})
	for i := range replies {
		go func() {
			defer func() { done <- struct{}{} }()
			resp, err := srv.Client().Get(srv.URL + "/v1/probes/big")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	for range replies {
		<-done
	}
	grown := int64(peak()) - int64(before)
	t.Logf("%d upstream replies of 60 MiB: statuses %v, heap +%.1f MB at its peak", replies, codes, float64(grown)/1e6)
	for i, c := range codes {
		if c != http.StatusInternalServerError {
			t.Errorf("reply %d: %d, want 500", i, c)
		}
	}
	if grown > 16<<20 {
		t.Errorf("the heap grew by %d bytes at its peak, more than 16 MiB", grown)
	}
}

// copyVarint writes v as a varint at the start of b, and returns its
// length.
func copyVarint(b []byte, v uint64) int {
	i := 0
	for v >= 0x80 {
		b[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	b[i] = byte(v)
	return i + 1
}

// rawCodec passes messages as the bytes they are: a []byte is sent as
// it is, and a *[]byte receives one.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.([]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*v.(*[]byte) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }
