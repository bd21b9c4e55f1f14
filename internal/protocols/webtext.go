package protocols

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"connectrpc.com/connect"
)

// gRPC-Web's text mode (application/grpc-web-text) is gRPC-Web's binary
// framing in base64, both ways; connect-go does not speak it. Its calls
// are served as binary gRPC-Web calls: the request body decoded as it is
// read (textReader), the response encoded as it is written (textWriter).

const webTextPrefix = "application/grpc-web-text"

// asBinaryWeb makes r, a gRPC-Web text call, a binary one, and returns
// the response writer that encodes what is written to w.
func asBinaryWeb(w http.ResponseWriter, r *http.Request) *textWriter {
	ct := r.Header.Get("Content-Type")
	codec := ""
	if i := strings.IndexByte(ct, '+'); i >= 0 {
		codec = ct[i:]
		if j := strings.IndexByte(codec, ';'); j >= 0 {
			codec = codec[:j]
		}
	}
	r.Header.Set("Content-Type", "application/grpc-web"+strings.TrimSpace(codec))
	r.Header.Del("Content-Length")
	r.ContentLength = -1
	tw := &textWriter{ResponseWriter: w}
	if r.Body != nil && r.Body != http.NoBody {
		tw.reader = textReaders.Get().(*textReader)
		*tw.reader = textReader{src: r.Body}
		r.Body = tw.reader
	}
	return tw
}

// textReaders keeps the readers of calls that have ended: a reader holds
// 7 KiB of buffers.
var textReaders = sync.Pool{New: func() any { return new(textReader) }}

// errBadText is the error of a request body that is not base64.
var errBadText = connect.NewError(connect.CodeInvalidArgument, errors.New("invalid gRPC-Web text: not base64"))

// errTruncatedText is the error of one that ends within a quantum.
var errTruncatedText = connect.NewError(connect.CodeInvalidArgument, errors.New("invalid gRPC-Web text: truncated base64"))

// textReader decodes a base64 request body as it arrives, four
// characters at a time, so that padding may come mid-stream (each chunk
// encoded on its own, as clients send them). A character that is not
// base64, or a body that ends within four, is INVALID_ARGUMENT.
type textReader struct {
	src  io.ReadCloser
	in   [4096]byte
	quad [4]byte // the characters of the quantum being read
	nq   int
	out  [3072]byte // decoded, not yet read
	r, w int        // what of out is unread
	err  error
}

func (t *textReader) Read(p []byte) (int, error) {
	for t.r == t.w {
		if t.err != nil {
			return 0, t.err
		}
		t.fill()
	}
	n := copy(p, t.out[t.r:t.w])
	t.r += n
	return n, nil
}

// fill reads what src has and decodes its whole quanta into out, which
// is empty.
func (t *textReader) fill() {
	t.r, t.w = 0, 0
	n, err := t.src.Read(t.in[:])
	for _, c := range t.in[:n] {
		t.quad[t.nq] = c
		t.nq++
		if t.nq < 4 {
			continue
		}
		t.nq = 0
		m, derr := base64.StdEncoding.Decode(t.out[t.w:], t.quad[:])
		if derr != nil {
			t.err = errBadText
			return
		}
		t.w += m
	}
	switch {
	case err == io.EOF && t.nq != 0:
		t.err = errTruncatedText
	case err != nil:
		t.err = err
	}
}

func (t *textReader) Close() error { return t.src.Close() }

// textWriter encodes a binary gRPC-Web response in base64 as it is
// written: whole groups of three bytes at once, and what is left with
// padding at a flush or at the end (Finish).
type textWriter struct {
	http.ResponseWriter
	reader      *textReader // the call's request body, pooled; nil for none
	carry       [3]byte     // at most two bytes wait for a third
	nc          int
	buf         []byte
	wroteHeader bool
}

func (t *textWriter) WriteHeader(code int) {
	if !t.wroteHeader {
		t.wroteHeader = true
		h := t.Header()
		if ct := h.Get("Content-Type"); strings.HasPrefix(ct, "application/grpc-web") {
			h.Set("Content-Type", webTextPrefix+strings.TrimPrefix(ct, "application/grpc-web"))
		}
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *textWriter) Write(p []byte) (int, error) {
	if !t.wroteHeader {
		t.WriteHeader(http.StatusOK)
	}
	n := len(p)
	t.buf = t.buf[:0]
	if t.nc > 0 {
		k := copy(t.carry[t.nc:], p)
		t.nc += k
		p = p[k:]
		if t.nc < 3 {
			return n, nil
		}
		t.buf = base64.StdEncoding.AppendEncode(t.buf, t.carry[:])
		t.nc = 0
	}
	whole := len(p) / 3 * 3
	t.buf = base64.StdEncoding.AppendEncode(t.buf, p[:whole])
	t.nc = copy(t.carry[:], p[whole:])
	if len(t.buf) == 0 {
		return n, nil
	}
	if _, err := t.ResponseWriter.Write(t.buf); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes what is left, padded, and flushes.
func (t *textWriter) Flush() {
	t.Finish()
	http.NewResponseController(t.ResponseWriter).Flush()
}

// Release gives the call's request body reader back to its pool, once
// the call has ended: nothing reads it any more.
func (t *textWriter) Release() {
	if t.reader != nil {
		*t.reader = textReader{}
		textReaders.Put(t.reader)
		t.reader = nil
	}
}

// Finish writes what is left, padded; or the header of a response with
// no body (gRPC-Web's trailers-only), in the text mode's Content-Type.
func (t *textWriter) Finish() {
	if !t.wroteHeader {
		t.WriteHeader(http.StatusOK)
	}
	if t.nc == 0 {
		return
	}
	t.buf = base64.StdEncoding.AppendEncode(t.buf[:0], t.carry[:t.nc])
	t.nc = 0
	t.ResponseWriter.Write(t.buf)
}

func (t *textWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
