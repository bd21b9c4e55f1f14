package invoke

import (
	"context"
	"net"
	"net/http/httptest"
	"net/netip"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/protorest/protorest/internal/exchange"
)

// TestPeerOf checks the peer a method sees against net's own TCPAddr.
func TestPeerOf(t *testing.T) {
	for _, addr := range []string{"10.1.2.3:80", "[::1]:1234", "[fe80::1%eth0]:9", "[::ffff:10.0.0.1]:7", "@", "pipe"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = addr
		var c methodContext
		c.setPeer(r)
		p := &c.peer
		want := addr
		if ap, err := netip.ParseAddrPort(addr); err == nil {
			want = net.TCPAddrFromAddrPort(ap).String()
			if _, ok := p.Addr.(*net.TCPAddr); !ok {
				t.Errorf("%s: %T, want *net.TCPAddr", addr, p.Addr)
			}
		}
		if got := p.Addr.String(); got != want {
			t.Errorf("%s: peer %q, want %q", addr, got, want)
		}
	}
}

type ctxKey string

// TestMethodContext checks that grpc's own accessors find the transport
// stream, the peer and the metadata in the context a method sees, that
// the request context's values and cancellation pass through, and that
// contexts derived from it keep all of them.
func TestMethodContext(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), ctxKey("k"), "v"))
	r := httptest.NewRequest("GET", "/", nil).WithContext(parent)
	r.RemoteAddr = "10.1.2.3:80"
	r.Header.Set("Grpc-Metadata-Team", "blue")
	x := &exchange.Exchange{Env: &exchange.Env{}, R: r, Binding: &exchange.Binding{FullMethod: "/pkg.Svc/Method"}}
	ctx, cancel, stream, err := callContext(x)
	if err != nil {
		t.Fatal(err)
	}
	if cancel != nil {
		defer cancel()
	}
	derived, cancelDerived := context.WithCancel(context.WithValue(ctx, ctxKey("other"), 1))
	defer cancelDerived()
	for _, c := range []context.Context{ctx, derived} {
		if m, ok := grpc.Method(c); !ok || m != "/pkg.Svc/Method" {
			t.Errorf("grpc.Method = %q, %v", m, ok)
		}
		if grpc.ServerTransportStreamFromContext(c) != grpc.ServerTransportStream(stream) {
			t.Error("ServerTransportStreamFromContext is not the call's stream")
		}
		if p, ok := peer.FromContext(c); !ok || p.Addr.String() != "10.1.2.3:80" {
			t.Errorf("peer.FromContext = %v, %v", p, ok)
		}
		if md, ok := metadata.FromIncomingContext(c); !ok || len(md.Get("team")) != 1 || md.Get("team")[0] != "blue" {
			t.Errorf("incoming metadata = %v, %v", md, ok)
		}
		if c.Value(ctxKey("k")) != "v" {
			t.Error("the request context's value is lost")
		}
		if c.Value(ctxKey("missing")) != nil {
			t.Error("an absent key has a value")
		}
	}
	if err := grpc.SendHeader(ctx, metadata.Pairs("h", "1")); err != nil {
		t.Fatal(err)
	}
	if got := stream.Header().Get("h"); len(got) != 1 {
		t.Errorf("SendHeader through the context: header %v", stream.Header())
	}
	cancelParent()
	<-derived.Done()
	if ctx.Err() == nil {
		t.Error("cancelling the request does not cancel the method's context")
	}
}
