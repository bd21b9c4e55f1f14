package compress

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestDecodeRequestEnds: a body without bytes decodes to nothing; one
// whose header is cut short does not decode, though klauspost's gzip
// reports io.EOF for it, as for no bytes.
func TestDecodeRequestEnds(t *testing.T) {
	for _, tt := range []struct {
		coding, body string
		code         codes.Code // of the read's error; OK for none
	}{
		{"gzip", "", codes.OK},
		{"zstd", "", codes.OK},
		{"gzip", "\x1f\x8b\x08\x10\x00\x00\x00\x00\x00\xffno end", codes.InvalidArgument}, // FCOMMENT, the comment not ended
		{"gzip", "\x1f\x8b", codes.InvalidArgument},
		{"zstd", "\x28\xb5", codes.InvalidArgument},
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
		r.ContentLength = -1 // sent chunked: DecodeRequest cannot tell it is empty
		r.Header.Set("Content-Encoding", tt.coding)
		b, err := DecodeRequest(httptest.NewRecorder(), r)
		if err != nil || b == nil {
			t.Fatalf("%s %q: %v %v", tt.coding, tt.body, b, err)
		}
		got, err := io.ReadAll(r.Body)
		b.Close()
		if status.Code(err) != tt.code || len(got) != 0 {
			t.Errorf("%s %q: %q, %v; want code %v", tt.coding, tt.body, got, err, tt.code)
		}
	}
}

// BenchmarkDecodeRequest: a request without Content-Encoding costs
// nothing (none); one with it, the decoding of a small JSON body.
func BenchmarkDecodeRequest(b *testing.B) {
	const body = `{"name":"abc","i32":5,"tags":["a","b"],"inner":{"s":"x"}}`
	for _, coding := range []string{"none", "gzip", "zstd"} {
		encoded := body
		if coding != "none" {
			encoded = encode(coding, body)
		}
		b.Run(coding, func(b *testing.B) {
			b.ReportAllocs()
			rd := strings.NewReader(encoded)
			nop, header := io.NopCloser(rd), []string{coding}
			r := httptest.NewRequest("POST", "/", rd)
			w := httptest.NewRecorder()
			buf := make([]byte, 4096)
			for b.Loop() {
				rd.Reset(encoded)
				r.Body, r.ContentLength = nop, int64(len(encoded))
				if coding != "none" {
					r.Header["Content-Encoding"] = header
				}
				d, err := DecodeRequest(w, r)
				if err != nil {
					b.Fatal(err)
				}
				if n, _ := io.ReadFull(r.Body, buf[:len(body)]); n != len(body) {
					b.Fatalf("%d bytes", n)
				}
				if d != nil {
					d.Close()
				}
			}
		})
	}
}

// encode returns s in a content coding: gzip or zstd.
func encode(coding, s string) string {
	var b strings.Builder
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "zstd":
		w, _ = zstd.NewWriter(&b)
	default:
		panic("no coding " + coding)
	}
	w.Write([]byte(s))
	w.Close()
	return b.String()
}
