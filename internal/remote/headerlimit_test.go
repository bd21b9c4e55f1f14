package remote

import (
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"
)

func TestCheckHeader(t *testing.T) {
	l := NewRecvLimit(0).WithMaxHeader(100)
	md := metadata.Pairs("k", strings.Repeat("v", 67)) // 1 + 67 + 32 = 100
	if err := l.CheckHeader(md, nil); err != nil {
		t.Errorf("100 bytes: %v", err)
	}
	if err := l.CheckHeader(md, metadata.Pairs("a", "")); err == nil {
		t.Error("133 bytes, header and trailer: no error")
	}
	if err := NewRecvLimit(0).CheckHeader(metadata.Pairs("k", strings.Repeat("v", 1<<20))); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

// BenchmarkCheckHeader is the check of each remote call's metadata: a
// header and trailer of a few pairs.
func BenchmarkCheckHeader(b *testing.B) {
	l := NewRecvLimit(4 << 20).WithMaxHeader(DefaultMaxHeaderBytes)
	header := metadata.Pairs("x-request-id", "7f1c0e8a", "x-served-by", "backend-3")
	trailer := metadata.Pairs("x-elapsed", "12ms")
	b.ReportAllocs()
	for b.Loop() {
		if err := l.CheckHeader(header, trailer); err != nil {
			b.Fatal(err)
		}
	}
}
