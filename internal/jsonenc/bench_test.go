package jsonenc_test

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/jsonenc"
)

func books(n int) *libraryv1.ListBooksResponse {
	resp := &libraryv1.ListBooksResponse{NextPageToken: "next"}
	for i := range n {
		resp.Books = append(resp.Books, &libraryv1.Book{
			Name: fmt.Sprintf("shelves/fiction/books/b%d", i), Title: "The Left Hand of Darkness", Author: "Ursula K. Le Guin",
			PageCount: int32(300 + i), Read: i%2 == 0, Genre: libraryv1.Book_SCIENCE_FICTION,
			Labels:     map[string]string{"edition": "1969", "signed": "no"},
			CreateTime: &timestamppb.Timestamp{Seconds: 1700000000 + int64(i), Nanos: 500000000},
			UpdateTime: &timestamppb.Timestamp{Seconds: 1700000000 + int64(i)},
		})
	}
	return resp
}

// BenchmarkMarshal compares the compiled encoder with protojson on a
// list of n books, with grpc-gateway's options (unpopulated fields
// emitted).
func BenchmarkMarshal(b *testing.B) {
	opts := protojson.MarshalOptions{EmitUnpopulated: true}
	enc := jsonenc.New(jsonenc.Options{EmitUnpopulated: true})
	for _, n := range []int{1, 50, 500} {
		m := books(n)
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
