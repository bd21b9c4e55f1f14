// Package compress decodes compressed request bodies (RFC 9110 §8.4:
// Content-Encoding gzip or zstd) for a gateway, with pooled decoders. The
// body limit then applies to what the body decodes to, so that a small
// body that inflates without bound (a zip bomb) is cut at the limit.
// Responses are compressed by klauspost/compress's gzhttp.
package compress

import (
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/text"
)

// Encodings are the request content codings a gateway decodes, as its
// 415 answers' Accept-Encoding lists them.
const Encodings = "gzip, zstd"

// maxWindow bounds the memory a zstd frame may ask the decoder for.
const maxWindow = 8 << 20

// NewZstdDecoder returns a zstd decoder for request bodies: one
// goroutine, low memory, and a frame's window at most 8 MiB (a larger
// one fails to decode).
func NewZstdDecoder() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxWindow))
}

var (
	gzipPool sync.Pool // *gzip.Reader
	zstdPool sync.Pool // *zstd.Decoder
)

// DecodeRequest replaces the body of r, when its Content-Encoding is gzip
// or zstd, by what it decodes to (a *Body, which the caller closes when
// the request ends), and drops the header and the length, which described
// the encoded body. A request without Content-Encoding, or without a
// body, is left as it is, at no cost. A coding it does not decode, or
// more than one, is a 415 error, and w gets an Accept-Encoding header
// that lists the codings it does (RFC 9110 §15.5.16). Nothing is read
// here: a body that does not decode fails when it is read.
func DecodeRequest(w http.ResponseWriter, r *http.Request) (*Body, error) {
	vs := r.Header["Content-Encoding"]
	if len(vs) == 0 || r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil, nil
	}
	c, err := parseCoding(vs)
	if err != nil {
		w.Header().Set("Accept-Encoding", Encodings)
		return nil, err
	}
	if c == identity {
		return nil, nil
	}
	b := &Body{coding: c, src: source{r: r.Body}}
	r.Body = b
	r.Header.Del("Content-Encoding")
	r.Header.Del("Content-Length")
	r.ContentLength = -1
	return b, nil
}

// A Body is a request body being decoded; Close gives its decoder back.
// Its reads fail with INVALID_ARGUMENT where the bytes do not decode; a
// failure to read the bytes themselves (a timeout, the client gone) is
// returned as it is.
type Body struct {
	coding  coding
	src     source
	started bool
	decoded io.Reader // gz or zs, once started
	gz      *gzip.Reader
	zs      *zstd.Decoder
}

// source is the encoded body; it keeps its last read's error, so that
// Body can tell the transport's failures from the decoder's, and counts
// the bytes read.
type source struct {
	r   io.ReadCloser
	err error
	n   int64
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.err = err
	s.n += int64(n)
	return n, err
}

// Read reads decoded bytes. The decoder is taken from its pool at the
// first read, which reads the coding's header: reads are timed by their
// caller, not here.
func (b *Body) Read(p []byte) (int, error) {
	if !b.started {
		b.started = true
		if err := b.start(); err != nil {
			if err == io.EOF && b.src.n > 0 {
				// A header cut short (klauspost's gzip says io.EOF when
				// its optional fields end early); with no bytes at all,
				// the body is empty.
				err = io.ErrUnexpectedEOF
			}
			return 0, b.failure(err)
		}
	}
	n, err := b.decoded.Read(p)
	if err != nil {
		err = b.failure(err)
	}
	return n, err
}

// start readies the body's decoder, which reads the coding's header.
func (b *Body) start() error {
	switch b.coding {
	case gzipCoding:
		b.gz, _ = gzipPool.Get().(*gzip.Reader)
		if b.gz == nil {
			b.gz = new(gzip.Reader)
		}
		b.decoded = b.gz
		return b.gz.Reset(&b.src)
	default:
		b.zs, _ = zstdPool.Get().(*zstd.Decoder)
		if b.zs == nil {
			var err error
			b.zs, err = NewZstdDecoder()
			if err != nil {
				return err
			}
		}
		b.decoded = b.zs
		return b.zs.Reset(&b.src)
	}
}

// failure is err as Read returns it: the end, the transport's own
// failure, or else the body's, which does not decode.
func (b *Body) failure(err error) error {
	if err == io.EOF || b.src.err != nil && b.src.err != io.EOF && errors.Is(err, b.src.err) {
		return err
	}
	return status.Error(codes.InvalidArgument, "request body is not valid "+b.coding.String()+
		" (Content-Encoding): "+text.Truncate(err.Error(), 100))
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
	b.decoded = nil
	return b.src.r.Close()
}

// gzipHolds is what a gzip reader holds while it decodes: its window
// (32 KiB) and its tables.
const gzipHolds = 64 << 10

// Holds is what decoding b may hold besides the bytes it decodes to: a
// zstd decoder's largest window (8 MiB), or a gzip reader's state; 0 for
// a nil Body.
func (b *Body) Holds() int64 {
	switch {
	case b == nil:
		return 0
	case b.coding == zstdCoding:
		return maxWindow
	}
	return gzipHolds
}
