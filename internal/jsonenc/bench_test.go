package jsonenc_test

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/fixture"
	"github.com/protorest/protorest/internal/jsonenc"
)

// BenchmarkMarshal compares the compiled encoder with protojson on a
// list of n books, with grpc-gateway's options (unpopulated fields
// emitted).
func BenchmarkMarshal(b *testing.B) {
	opts := protojson.MarshalOptions{EmitUnpopulated: true}
	enc := jsonenc.New(jsonenc.Options{EmitUnpopulated: true})
	for _, n := range []int{1, 50, 500} {
		m := fixture.Books(n)
		size := len(codec.Compact(must(opts.Marshal(m)))) // the bytes either writes
		b.Run(fmt.Sprintf("protojson/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := opts.Marshal(m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("jsonenc/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			buf := make([]byte, 0, size)
			for b.Loop() {
				var err error
				if buf, err = enc.Append(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
