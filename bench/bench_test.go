package bench

import (
	"net/http"
	"testing"
)

// BenchmarkPeers measures one request of every operation (Ops) through
// every peer: BenchmarkPeers/<op>/<peer>. An iteration sends the request
// and reads the whole response. Allocations cover the whole process: for
// the remote peers the HTTP client and server, the gateway and the gRPC
// backend, which all run here.
func BenchmarkPeers(b *testing.B) {
	lib := NewLibrary()
	peers, err := NewHTTPPeers(b.Context(), lib)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ClosePeers(peers) })
	direct, err := NewGRPCDirect(lib)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { direct.Close() })

	for _, op := range Ops {
		b.Run(op.Name, func(b *testing.B) {
			for _, p := range peers {
				b.Run(p.Name(), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						res, err := p.Do(b.Context(), op.HTTP)
						if err != nil {
							b.Fatal(err)
						}
						if res.Status != http.StatusOK {
							b.Fatalf("status %d: %s", res.Status, res.Body)
						}
					}
				})
			}
			b.Run(direct.Name(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := op.GRPC(b.Context(), direct.Client); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
