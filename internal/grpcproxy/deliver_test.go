package grpcproxy_test

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/grpcproxy"
)

// stalledStream opens a bidirectional stream through the proxy whose
// client never reads: its receive window is fixed at 64 KiB, so a reply
// of 256 KiB is not written whole. It sends one message of size bytes,
// which the upstream echoes.
func stalledStream(t *testing.T, c testgrpc.TestServiceClient, size int) (testgrpc.TestService_FullDuplexCallClient, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stream, err := c.FullDuplexCall(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: &testgrpc.Payload{Body: make([]byte, size)}}); err != nil {
		t.Fatal(err)
	}
	return stream, cancel
}

// stalledClient is a client of the proxy at addr whose streams' receive
// windows stay at 64 KiB (grpc-go's window auto-sizing off).
func stalledClient(t *testing.T, addr string) testgrpc.TestServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStaticStreamWindowSize(64<<10), grpc.WithStaticConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return testgrpc.NewTestServiceClient(conn)
}

// echo sends one message of size bytes on a new stream and reads its
// echo.
func echo(c testgrpc.TestServiceClient, size int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := c.FullDuplexCall(ctx)
	if err != nil {
		return err
	}
	if err := stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: &testgrpc.Payload{Body: make([]byte, size)}}); err != nil {
		return err
	}
	_, err = stream.Recv()
	return err
}

// TestProxyResponseBudget: a message to a client that does not read it
// holds twice its size and 16 KiB of the response budget until it is
// written; a message that finds no room within the budget's wait ends
// its call with UNAVAILABLE; the room comes back when the stalled client
// leaves.
func TestProxyResponseBudget(t *testing.T) {
	t.Parallel()
	const size = 256 << 10 // holds 528 KiB
	b := budget.New(1<<20, 0, 50*time.Millisecond)
	_, addr := startProxyAt(t, grpcproxy.Settings{Budget: b})
	c := stalledClient(t, addr)
	_, leave := stalledStream(t, c, size)
	reply := proto.Size(&testgrpc.StreamingOutputCallResponse{Payload: &testgrpc.Payload{Body: make([]byte, size)}})
	want := int64(2*reply + 16<<10)
	if !waitUntil(5*time.Second, func() bool { return b.Held() == want }) {
		t.Fatalf("the stalled message holds %d bytes of the budget, want %d", b.Held(), want)
	}
	start := time.Now()
	err := echo(c, size)
	if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != "too many responses in flight: try again" {
		t.Errorf("no room: %v", err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("UNAVAILABLE after %v, before the wait of 50ms", waited)
	}
	if err := echo(c, 1000); err != nil {
		t.Errorf("a small message, which fits in what is left: %v", err)
	}
	leave()
	if !waitUntil(5*time.Second, func() bool { return b.Held() == 0 }) {
		t.Fatalf("%d bytes still held after the stalled client left", b.Held())
	}
	if err := echo(c, size); err != nil {
		t.Errorf("after the stalled client left: %v", err)
	}
}

// TestProxyWriteTimeout: a message a client does not read within the
// write timeout resets its stream, and gives its bytes back, the client
// still there; a client that reads is served meanwhile.
func TestProxyWriteTimeout(t *testing.T) {
	t.Parallel()
	b := budget.New(64<<20, 0, time.Second)
	_, addr := startProxyAt(t, grpcproxy.Settings{Budget: b, WriteTimeout: 200 * time.Millisecond})
	c := stalledClient(t, addr)
	start := time.Now()
	stream, _ := stalledStream(t, c, 256<<10)
	if err := echo(c, 256<<10); err != nil {
		t.Errorf("a client that reads: %v", err)
	}
	// The stalled message may reach the proxy after the echo has ended:
	// its bytes are given back only once they were taken.
	if !waitUntil(5*time.Second, func() bool { return b.Held() > 0 }) {
		t.Fatal("the stalled message took nothing from the budget")
	}
	if !waitUntil(5*time.Second, func() bool { return b.Held() == 0 }) {
		t.Fatalf("%d bytes still held, past the write timeout", b.Held())
	}
	if held := time.Since(start); held < 200*time.Millisecond {
		t.Errorf("given back after %v, before the write timeout of 200ms", held)
	}
	if _, err := stream.Recv(); err != nil {
		// the 64 KiB the client had taken in came first: a whole message
		// cannot, the stream was reset
		t.Logf("the stalled stream: %v", err)
	} else {
		t.Error("the stalled stream got its whole message")
	}
}

// startProxyAt is startProxy for an upstream of its own, returning the
// upstream and the proxy's address.
func startProxyAt(t *testing.T, s grpcproxy.Settings) (*upstream, string) {
	t.Helper()
	up := &upstream{canceled: make(chan struct{})}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(srv, up)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	addr, _ := serveProxy(t, lis.Addr().String(), s)
	return up, addr
}

// waitUntil polls cond every 5 ms for at most d.
func waitUntil(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}
