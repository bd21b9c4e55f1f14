// Package compress decodes compressed request bodies (RFC 7694:
// Content-Encoding gzip or zstd) for a gateway, with pooled decoders. The
// body limit then applies to what the body decodes to, so that a small
// body that inflates without bound (a zip bomb) is cut at the limit.
// Responses are compressed by klauspost/compress's gzhttp.
package compress

import (
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/grpc/codes"

	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/httperr"
)

// Encodings are the request content codings a gateway decodes.
const Encodings = "gzip, zstd"

// maxWindow bounds the memory a zstd frame may ask the decoder for.
const maxWindow = 8 << 20

var (
	gzipPool sync.Pool // *gzip.Reader
	zstdPool sync.Pool // *zstd.Decoder
)

// errCoding is the error of a content coding the gateway does not decode.
var errCoding = httperr.New(http.StatusUnsupportedMediaType, codes.Unimplemented,
	"request Content-Encoding not supported: send "+Encodings+" or none")

// A Body is a request body being decoded; Close gives its decoder back.
type Body struct {
	io.Reader
	orig io.ReadCloser
	gz   *gzip.Reader
	zs   *zstd.Decoder
}

// Close returns the decoder to its pool and closes the original body.
func (b *Body) Close() error {
	if b.gz != nil {
		gzipPool.Put(b.gz)
		b.gz = nil
	}
	if b.zs != nil {
		b.zs.Reset(nil)
		zstdPool.Put(b.zs)
		b.zs = nil
	}
	return b.orig.Close()
}

// DecodeRequest replaces the body of r, when its Content-Encoding is gzip
// or zstd, by what it decodes to (and drops the header and the length,
// which described the encoded body); the caller closes the new body (a
// *Body) when the request ends. A coding it does not decode is a 415
// error, which says the codings it does (RFC 7694); a body that does not
// decode fails when it is read.
func DecodeRequest(w http.ResponseWriter, r *http.Request) (*Body, error) {
	coding := strings.ToLower(strings.TrimSpace(headers.List(r.Header, "Content-Encoding")))
	if coding == "" || coding == "identity" {
		return nil, nil
	}
	b := &Body{orig: r.Body}
	switch coding {
	case "gzip", "x-gzip":
		gz, _ := gzipPool.Get().(*gzip.Reader)
		var err error
		if gz == nil {
			gz, err = gzip.NewReader(r.Body)
		} else {
			err = gz.Reset(r.Body)
		}
		if err != nil {
			if gz != nil {
				gzipPool.Put(gz)
			}
			return nil, httperr.New(http.StatusBadRequest, codes.InvalidArgument, "request body: not gzip: "+err.Error())
		}
		b.gz, b.Reader = gz, gz
	case "zstd":
		zs, _ := zstdPool.Get().(*zstd.Decoder)
		var err error
		if zs == nil {
			zs, err = zstd.NewReader(r.Body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxWindow))
		} else {
			err = zs.Reset(r.Body)
		}
		if err != nil {
			return nil, httperr.New(http.StatusBadRequest, codes.InvalidArgument, "request body: not zstd: "+err.Error())
		}
		b.zs, b.Reader = zs, zs
	default:
		w.Header().Set("Accept-Encoding", Encodings)
		return nil, errCoding
	}
	r.Body = b
	r.Header.Del("Content-Encoding")
	r.Header.Del("Content-Length")
	r.ContentLength = -1
	return b, nil
}
