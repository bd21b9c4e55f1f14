package compress

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/httperr"
)

func TestParseCoding(t *testing.T) {
	for _, tt := range []struct {
		header []string
		want   coding
		err    string // part of the 415's message; "" for none
	}{
		{[]string{"gzip"}, gzipCoding, ""},
		{[]string{" GZip\t"}, gzipCoding, ""},
		{[]string{"x-gzip"}, gzipCoding, ""},
		{[]string{"zstd"}, zstdCoding, ""},
		{[]string{"identity"}, identity, ""},
		{[]string{""}, identity, ""},
		{[]string{", ,identity,"}, identity, ""},
		{[]string{"identity, zstd"}, zstdCoding, ""},
		{[]string{"", "gzip"}, gzipCoding, ""},
		{[]string{"br"}, identity, `"br" not supported`},
		{[]string{"deflate"}, identity, `"deflate" not supported`},
		{[]string{"gzip;q=1"}, identity, `"gzip;q=1" not supported`},
		{[]string{"gzip, zstd"}, identity, "more than one content coding (gzip, then zstd)"},
		{[]string{"zstd", "gzip"}, identity, "more than one content coding (zstd, then gzip)"},
		{[]string{"gzip,gzip"}, identity, "more than one content coding"},
		{[]string{"gzip, br"}, identity, `"br" not supported`},
		{[]string{strings.Repeat("x", 1000)}, identity, `"xxxxxxxx`},
	} {
		got, err := parseCoding(tt.header)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: %v, %v; want %v, %q", tt.header, got, err, tt.want, tt.err)
		}
		if err != nil && (httperr.Status(err) != http.StatusUnsupportedMediaType || len(err.Error()) > 150) {
			t.Errorf("%q: %d %q", tt.header, httperr.Status(err), err)
		}
	}
}

// referenceCoding is parseCoding as the RFC reads, with allocations:
// the list's elements, less empty ones and identity, must be one coding
// the gateway decodes.
func referenceCoding(vs []string) (coding, bool) {
	var codings []string
	for _, v := range vs {
		for _, e := range strings.Split(v, ",") {
			e = strings.ToLower(strings.Trim(e, " \t"))
			if e != "" && e != "identity" {
				codings = append(codings, e)
			}
		}
	}
	switch {
	case len(codings) == 0:
		return identity, true
	case len(codings) > 1:
		return identity, false
	case codings[0] == "gzip" || codings[0] == "x-gzip":
		return gzipCoding, true
	case codings[0] == "zstd":
		return zstdCoding, true
	}
	return identity, false
}

// FuzzDecodeRequest: whatever the Content-Encoding lines (one per line of
// header) and the body, DecodeRequest takes the coding the RFC's list
// names or answers 415 with Accept-Encoding, never reads more than it
// decodes to within the limit, and fails only with a status: a body
// that does not decode is INVALID_ARGUMENT. A gzip body it decodes, the
// standard library decodes alike. Not the reverse: klauspost's gzip
// rejects the reserved header flags RFC 1952 §2.3.1.2 has decoders
// reject, which compress/gzip ignores; and it ends the body, as whole,
// at a member header cut short after a whole member, where compress/gzip
// says unexpected EOF after the same bytes.
func FuzzDecodeRequest(f *testing.F) {
	gz, zs := encode("gzip", `{"name":"n"}`), encode("zstd", `{"name":"n"}`)
	for _, s := range []struct{ header, body string }{
		{"gzip", gz},
		{"x-gzip, identity", gz},
		{"zstd", zs},
		{" ZSTD ", zs},
		{"gzip", zs},
		{"zstd", gz},
		{"gzip", gz[:12]},
		{"zstd", zs[:9]},
		{"gzip", gz + gz},
		{"gzip", gz + "trailing"},
		{"identity", `{}`},
		{"br", `{}`},
		{"gzip, zstd", `{}`},
		{"gzip\nzstd", `{}`},
		{",,", `{}`},
		{"gzip", ""},
		{"gzip", "\x1f\x8b\x08\x10\x00\x00\x00\x00\x00\xffno end"},
		{"gzip", gz + "\x1f\x8b\x08\x10"},
	} {
		f.Add(s.header, []byte(s.body))
	}
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		vs := strings.Split(header, "\n")
		r.Header["Content-Encoding"] = vs
		w := httptest.NewRecorder()
		b, err := DecodeRequest(w, r)
		want, ok := referenceCoding(vs)
		if len(body) == 0 {
			want, ok = identity, true // no body, nothing to decode
		}
		if !ok {
			if err == nil || httperr.Status(err) != http.StatusUnsupportedMediaType || w.Header().Get("Accept-Encoding") != Encodings {
				t.Fatalf("%q: %v, Accept-Encoding %q; want 415", vs, err, w.Header().Get("Accept-Encoding"))
			}
			return
		}
		if err != nil || (b == nil) != (want == identity) {
			t.Fatalf("%q: %v %v; want %v", vs, b, err, want)
		}
		if b == nil {
			return
		}
		defer b.Close()
		if b.coding != want || r.Header.Get("Content-Encoding") != "" || r.ContentLength != -1 {
			t.Fatalf("%q: coding %v, header %q, length %d", vs, b.coding, r.Header.Get("Content-Encoding"), r.ContentLength)
		}
		got, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if len(got) > limit+1 {
			t.Fatalf("read %d bytes past the limit", len(got))
		}
		if err != nil {
			if st, ok := status.FromError(err); !ok || st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "not valid "+want.String()) {
				t.Fatalf("%q: %v, want INVALID_ARGUMENT", vs, err)
			}
		}
		if want != gzipCoding || err != nil || len(got) > limit {
			return
		}
		ref, err := stdgzip.NewReader(bytes.NewReader(body))
		var refGot []byte
		if err == nil {
			refGot, err = io.ReadAll(ref)
		}
		if err != nil && err != io.ErrUnexpectedEOF || !bytes.Equal(got, refGot) {
			t.Fatalf("decoded %q; compress/gzip: %q, %v", got, refGot, err)
		}
	})
}
