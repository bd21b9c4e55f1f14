package connpool

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protorest/protorest/internal/httperr"
)

// upstream is a grpc-go server on loopback that allows maxStreams
// streams a connection. Its methods, of no service it registers:
// /t.T/Peer answers the caller's address (one per connection); /t.T/Hold
// is a server stream that sends nothing until cancelled.
type upstream struct {
	addr string
	mu   sync.Mutex
	held int // Hold calls in progress
}

func startUpstream(t testing.TB, maxStreams uint32) *upstream {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{addr: lis.Addr().String()}
	srv := grpc.NewServer(grpc.MaxConcurrentStreams(maxStreams), grpc.UnknownServiceHandler(u.handle))
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return u
}

func (u *upstream) handle(_ any, ss grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(ss)
	if err := ss.RecvMsg(new(emptypb.Empty)); err != nil {
		return err
	}
	switch method {
	case "/t.T/Peer":
		p, _ := peer.FromContext(ss.Context())
		return ss.SendMsg(wrapperspb.String(p.Addr.String()))
	case "/t.T/Hold":
		u.mu.Lock()
		u.held++
		u.mu.Unlock()
		<-ss.Context().Done()
		u.mu.Lock()
		u.held--
		u.mu.Unlock()
		return status.FromContextError(ss.Context().Err()).Err()
	}
	return status.Error(codes.Unimplemented, method)
}

func (u *upstream) holding() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.held
}

// newPool dials n connections to target.
func newPool(t testing.TB, target string, n, maxStreams int) *Pool {
	t.Helper()
	conns := make([]*grpc.ClientConn, n)
	for i := range conns {
		cc, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = cc
	}
	p := New(conns, maxStreams)
	t.Cleanup(func() { p.Close() })
	return p
}

var holdDesc = &grpc.StreamDesc{ServerStreams: true}

// hold opens a Hold stream on p, held until ctx ends.
func hold(ctx context.Context, p *Pool) (grpc.ClientStream, error) {
	s, err := p.NewStream(ctx, holdDesc, "/t.T/Hold")
	if err != nil {
		return nil, err
	}
	if err := s.SendMsg(&emptypb.Empty{}); err != nil {
		return nil, err
	}
	return s, s.CloseSend()
}

func peerOf(ctx context.Context, p *Pool) (string, error) {
	out := new(wrapperspb.StringValue)
	err := p.Invoke(ctx, "/t.T/Peer", &emptypb.Empty{}, out)
	return out.GetValue(), err
}

func (p *Pool) counts() []int64 {
	n := make([]int64, len(p.members))
	for i := range p.members {
		n[i] = p.members[i].inflight.Load()
	}
	return n
}

// waitHeld waits until u holds n streams.
func waitHeld(t *testing.T, u *upstream, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); u.holding() != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("upstream holds %d streams, want %d", u.holding(), n)
		}
	}
}

// TestPoolSpreadsAndRefuses: against an upstream allowing 2 streams a
// connection, 3 connections carry 6 held streams, 2 each, the first
// filled first; the 7th stream
// and a unary call are refused at once with a Busy error; a stream that
// ends gives its place back.
func TestPoolSpreadsAndRefuses(t *testing.T) {
	t.Parallel()
	u := startUpstream(t, 2)
	p := newPool(t, u.addr, 3, 2)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	first, err := peerOf(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := peerOf(ctx, p); again != first {
		t.Errorf("a call with none in flight went to %s, then %s: want the first connection each time", first, again)
	}

	var cancels []context.CancelFunc
	for i := range 6 {
		sctx, scancel := context.WithCancel(ctx)
		cancels = append(cancels, scancel)
		if _, err := hold(sctx, p); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		if got := p.counts(); i == 1 && (got[0] != 2 || got[1] != 0 || got[2] != 0) {
			t.Errorf("in flight per connection after two streams: %v, want [2 0 0]", got)
		}
	}
	defer func() {
		for _, c := range cancels {
			c()
		}
	}()
	waitHeld(t, u, 6)
	if got := p.counts(); got[0] != 2 || got[1] != 2 || got[2] != 2 {
		t.Errorf("in flight per connection: %v, want [2 2 2]", got)
	}

	start := time.Now()
	_, err = hold(ctx, p)
	if !errors.Is(err, ErrBusy) || !httperr.IsBusy(err) || status.Code(err) != codes.Unavailable {
		t.Errorf("7th stream: %v, want ErrBusy", err)
	}
	if _, err := peerOf(ctx, p); !errors.Is(err, ErrBusy) {
		t.Errorf("unary call with every connection full: %v, want ErrBusy", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("refusals took %v: want them at once", took)
	}

	cancels[5]() // a stream of the third connection: each is filled in turn
	waitHeld(t, u, 5)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got := p.counts(); got[2] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("in flight after a stream was cancelled: %v", p.counts())
		}
	}
	if _, err := peerOf(ctx, p); err != nil {
		t.Errorf("unary call once a stream ended: %v", err)
	}
}

// TestPoolCountsEveryEnd: a stream's place comes back when RecvMsg
// fails, when its context ends, and when a method that answers one
// message has answered it; a unary call's when it returns; a stream that
// could not open takes none.
func TestPoolCountsEveryEnd(t *testing.T) {
	t.Parallel()
	u := startUpstream(t, 100)
	p := newPool(t, u.addr, 2, 0)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	zero := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			got := p.counts()
			if got[0] == 0 && got[1] == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: in flight %v, want none", what, got)
			}
		}
	}

	// RecvMsg's error: the upstream ends the call (its deadline passes).
	dctx, dcancel := context.WithTimeout(ctx, 50*time.Millisecond)
	s, err := hold(dctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RecvMsg(new(emptypb.Empty)); status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("RecvMsg: %v", err)
	}
	dcancel()
	zero("after RecvMsg's error")

	// The context, with no RecvMsg.
	cctx, ccancel := context.WithCancel(ctx)
	if _, err := hold(cctx, p); err != nil {
		t.Fatal(err)
	}
	if got := p.counts(); got[0] != 1 {
		t.Errorf("a held stream: in flight %v", got)
	}
	ccancel()
	zero("after the context ended")

	// One reply: a stream whose method answers one message (Peer, as a
	// client stream).
	one, err := p.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true}, "/t.T/Peer")
	if err != nil {
		t.Fatal(err)
	}
	if err := one.SendMsg(&emptypb.Empty{}); err != nil {
		t.Fatal(err)
	}
	one.CloseSend()
	if err := one.RecvMsg(new(wrapperspb.StringValue)); err != nil {
		t.Fatal(err)
	}
	zero("after the one reply")

	// Unary, and a stream that cannot open (its context is done).
	if _, err := peerOf(ctx, p); err != nil {
		t.Fatal(err)
	}
	done, cancelDone := context.WithCancel(ctx)
	cancelDone()
	if _, err := p.NewStream(done, holdDesc, "/t.T/Hold"); status.Code(err) != codes.Canceled {
		t.Errorf("NewStream on a done context: %v", err)
	}
	zero("after a unary call and a stream that did not open")
}

// TestPoolSkipsFailing: a connection in TRANSIENT_FAILURE (its upstream
// refuses connections) is passed over while another works.
func TestPoolSkipsFailing(t *testing.T) {
	t.Parallel()
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()
	u := startUpstream(t, 100)
	var conns []*grpc.ClientConn
	for _, target := range []string{deadAddr, u.addr} {
		cc, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, cc)
	}
	p := New(conns, 0)
	defer p.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// The first call goes to the first connection, which fails.
	if _, err := peerOf(ctx, p); status.Code(err) != codes.Unavailable {
		t.Fatalf("first call: %v, want UNAVAILABLE from the dead address", err)
	}
	for deadline := time.Now().Add(5 * time.Second); !p.members[0].failing.Load(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the dead connection is not seen failing")
		}
	}
	for i := range 20 {
		if _, err := peerOf(ctx, p); err != nil {
			t.Fatalf("call %d with the first connection failing: %v", i, err)
		}
	}
}

// TestBusyAnswer: the pool's refusal is a 503 with Retry-After.
func TestBusyAnswer(t *testing.T) {
	h := http.Header{}
	httperr.SetRetryAfter(h, ErrBusy)
	if httperr.Status(ErrBusy) != http.StatusServiceUnavailable || h.Get("Retry-After") != "1" {
		t.Errorf("ErrBusy: %d, Retry-After %q", httperr.Status(ErrBusy), h.Get("Retry-After"))
	}
}

// BenchmarkPoolInvoke is a unary call through a pool of 4 connections,
// next to one on a connection alone: the pick's cost.
func BenchmarkPoolInvoke(b *testing.B) {
	u := startUpstream(b, 1000)
	p := newPool(b, u.addr, 4, 1000)
	ctx := b.Context()
	for _, bc := range []struct {
		name string
		conn grpc.ClientConnInterface
	}{{"conn", p.members[0].cc}, {"pool", p}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				out := new(wrapperspb.StringValue)
				for pb.Next() {
					if err := bc.conn.Invoke(ctx, "/t.T/Peer", &emptypb.Empty{}, out); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkPick is the pool's choice of a connection alone.
func BenchmarkPick(b *testing.B) {
	p := New(make([]*grpc.ClientConn, 0), 0)
	p.members = make([]member, 8)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m := p.pick()
			m.inflight.Add(-1)
		}
	})
}
