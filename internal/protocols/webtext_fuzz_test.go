package protocols

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http/httptest"
	"testing"
	"testing/iotest"
)

// decodeQuanta is the reference decoding of a gRPC-Web text body: each
// four characters on their own.
func decodeQuanta(text []byte) ([]byte, bool) {
	if len(text)%4 != 0 {
		return nil, false
	}
	var out []byte
	for i := 0; i < len(text); i += 4 {
		b, err := base64.StdEncoding.DecodeString(string(text[i : i+4]))
		if err != nil {
			return nil, false
		}
		out = append(out, b...)
	}
	return out, true
}

// FuzzTextReader: textReader decodes what the reference decodes, read in
// any pieces, and fails on the rest, never panicking.
func FuzzTextReader(f *testing.F) {
	for _, seed := range []string{
		"", "AAAA", "AAA=", "AA==AAAA", "QQ==Qg==Qw==", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "A", "AA=", "====",
		"AA==\r\n", "!!!!", base64.StdEncoding.EncodeToString([]byte("\x00\x00\x00\x00\x05hello")) + base64.StdEncoding.EncodeToString([]byte{0x80}),
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, text []byte, oneByte bool) {
		var src io.Reader = bytes.NewReader(text)
		if oneByte {
			src = iotest.OneByteReader(src)
		}
		got, err := io.ReadAll(&textReader{src: io.NopCloser(src)})
		want, ok := decodeQuanta(text)
		if ok != (err == nil) {
			t.Fatalf("%q: error %v, reference ok %v", text, err, ok)
		}
		if ok && !bytes.Equal(got, want) {
			t.Fatalf("%q: decoded %q, want %q", text, got, want)
		}
	})
}

// TestTextWriter: what textWriter writes, in any pieces and with flushes
// between, decodes quantum by quantum to what it was given.
func TestTextWriter(t *testing.T) {
	data := []byte("\x00\x00\x00\x00\x07message\x80\x00\x00\x00\x0fgrpc-status: 0\r\n")
	for _, pieces := range [][]int{{len(data)}, {1, 1, 1, 1, 1}, {2, 5, 7}, {4, 4, 4, 4, 4, 4, 4, 4, 4}} {
		rec := httptest.NewRecorder()
		tw := &textWriter{ResponseWriter: rec}
		rest := data
		for i, n := range pieces {
			n = min(n, len(rest))
			tw.Write(rest[:n])
			rest = rest[n:]
			if i%2 == 1 {
				tw.Flush()
			}
		}
		tw.Write(rest)
		tw.Finish()
		got, ok := decodeQuanta(rec.Body.Bytes())
		if !ok || !bytes.Equal(got, data) {
			t.Errorf("pieces %v: wrote %q", pieces, rec.Body.String())
		}
	}
}
