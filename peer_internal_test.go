package protorest

import (
	"net"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// TestPeerOf checks the one-allocation peer against net's own TCPAddr.
func TestPeerOf(t *testing.T) {
	for _, addr := range []string{"10.1.2.3:80", "[::1]:1234", "[fe80::1%eth0]:9", "[::ffff:10.0.0.1]:7", "@", "pipe"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = addr
		p := peerOf(r)
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
