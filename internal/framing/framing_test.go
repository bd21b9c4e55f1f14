package framing

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestAppendMessage(t *testing.T) {
	msg := []byte(`{"name":"a"}`)
	tests := []struct {
		kind Kind
		seq  int
		msg  []byte
		want string
	}{
		{Envelope, 1, msg, `{"result":{"name":"a"}}` + "\n"},
		{SSE, 7, msg, "id: 7\ndata: {\"name\":\"a\"}\n\n"},
		{SSE, 1, []byte("a\nb\r\nc\rd"), "id: 1\ndata: a\ndata: b\ndata: c\ndata: d\n\n"},
		{SSE, 1, []byte(""), "id: 1\ndata: \n\n"},
		{NDJSON, 1, msg, `{"name":"a"}` + "\n"},
		{Delimited, 1, []byte{1, 2, 3}, "\x03\x01\x02\x03"},
		{Delimited, 1, bytes.Repeat([]byte{'x'}, 300), "\xac\x02" + strings.Repeat("x", 300)},
		{Raw, 1, []byte("<h1>"), "<h1>"},
	}
	for _, tt := range tests {
		if got := string(AppendMessage(nil, tt.kind, tt.seq, tt.msg)); got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.kind, got, tt.want)
		}
	}
}

func TestAppendError(t *testing.T) {
	st := []byte(`{"code":13,"message":"m","details":[]}`)
	for _, tt := range []struct {
		kind Kind
		want string
		ok   bool
	}{
		{Envelope, `{"error":{"code":13,"message":"m","details":[]}}` + "\n", true},
		{SSE, "event: error\ndata: {\"code\":13,\"message\":\"m\",\"details\":[]}\n\n", true},
		{NDJSON, "", false},
		{Delimited, "", false},
		{Raw, "", false},
	} {
		got, ok := AppendError(nil, tt.kind, st)
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("%v: got %q %v, want %q %v", tt.kind, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAppendEnd(t *testing.T) {
	ok := []byte(`{"code":0,"message":"","details":[]}`)
	if got, has := AppendEnd(nil, SSE, ok); !has || string(got) != "event: end\ndata: {\"code\":0,\"message\":\"\",\"details\":[]}\n\n" {
		t.Errorf("SSE: %q %v", got, has)
	}
	for _, k := range []Kind{Envelope, NDJSON, Delimited, Raw} {
		if got, has := AppendEnd(nil, k, ok); has || len(got) != 0 {
			t.Errorf("%v: %q %v", k, got, has)
		}
	}
}

func readAll(r Reader) ([]string, error) {
	var out []string
	for {
		v, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(v))
	}
}

func TestJSONReader(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{
		{"empty", "", nil, ""},
		{"whitespace only", " \n\t\r\n", nil, ""},
		{"ndjson", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, ""},
		{"concatenated", `{"a":1}{"b":2}[3]"s"`, []string{`{"a":1}`, `{"b":2}`, `[3]`, `"s"`}, ""},
		{"escaped backslash before a quote", `"a\\"{}`, []string{`"a\\"`, `{}`}, ""},
		{"crlf and spaces", "  {\"a\" : [1]}\r\n\r\n {}", []string{`{"a" : [1]}`, `{}`}, ""},
		{"brackets in strings", `{"a":"}]{[\""}{"b":1}`, []string{`{"a":"}]{[\""}`, `{"b":1}`}, ""},
		{"scalars", "1 -2.5e3 true null\"x\"{}", []string{"1", "-2.5e3", "true", "null", `"x"`, "{}"}, ""},
		{"truncated object", `{"a":1}{"b":`, []string{`{"a":1}`}, "ends inside a JSON value"},
		{"truncated string", `"abc`, nil, "ends inside a JSON value"},
		{"truncated escape", `"abc\`, nil, "ends inside a JSON value"},
		{"too large", `{"a":"0123456789"}`, nil, "larger than 16 bytes"},
		{"too large scalar", `12345678901234567`, nil, "larger than 16 bytes"},
		{"at the limit", `{"a":"bcdefghi"}`, []string{`{"a":"bcdefghi"}`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time, to cross every buffer boundary.
			got, err := readAll(NewJSONReader(iotest.OneByteReader(strings.NewReader(tt.in)), 16))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("values %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJSONReaderPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	_, err := NewJSONReader(iotest.ErrReader(boom), 10).Next()
	if !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestDelimitedReader(t *testing.T) {
	var in []byte
	for _, m := range []string{"a", "", strings.Repeat("b", 200)} {
		in = binary.AppendUvarint(in, uint64(len(m)))
		in = append(in, m...)
	}
	got, err := readAll(NewDelimitedReader(iotest.OneByteReader(bytes.NewReader(in)), 200))
	if err != nil || len(got) != 3 || got[0] != "a" || got[1] != "" || len(got[2]) != 200 {
		t.Fatalf("got %q, %v", got, err)
	}
	for _, tt := range []struct {
		name string
		in   []byte
		err  string
	}{
		{"too large", []byte{0xc9, 0x01}, "larger than 200 bytes"},
		{"truncated length", []byte{0x80}, "inside a message length"},
		{"truncated message", []byte{0x05, 'a', 'b'}, "inside a message of 5 bytes"},
		{"overlong varint", bytes.Repeat([]byte{0xff}, 11), "invalid message length"},
	} {
		_, err := readAll(NewDelimitedReader(bytes.NewReader(tt.in), 200))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
		}
	}
}

// TestDelimitedReaderLongStream reads a stream four read buffers long,
// frames crossing each buffer's end, in the reads a body may arrive in:
// whole, halves, single bytes (which split every length too). It ends in
// a frame cut short, after the last whole one. FuzzDelimitedReader's
// inputs are shorter than a buffer.
func TestDelimitedReaderLongStream(t *testing.T) {
	const max = 300 // lengths over 127 take two bytes
	var in []byte
	var want []string
	for i := 0; len(in) < 4*4096; i++ {
		m := strings.Repeat(string(rune('a'+i%26)), i*7%(max+1))
		in = binary.AppendUvarint(in, uint64(len(m)))
		in = append(in, m...)
		want = append(want, m)
	}
	in = append(in, 0xac, 0x02, 'x') // 300 bytes announced, 1 sent
	for _, read := range []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"halves", iotest.HalfReader},
		{"bytes", iotest.OneByteReader},
	} {
		got, err := readAll(NewDelimitedReader(read.wrap(bytes.NewReader(in)), max))
		if err == nil || !strings.Contains(err.Error(), "inside a message of 300 bytes") {
			t.Errorf("%s: err = %v, want the stream ending inside a message of 300 bytes", read.name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d frames, want %d", read.name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: frame %d is %d bytes %.8q, want %d bytes %.8q", read.name, i, len(got[i]), got[i], len(want[i]), want[i])
			}
		}
	}
}

func TestChunkReader(t *testing.T) {
	got, err := readAll(NewChunkReader(strings.NewReader(strings.Repeat("x", 10)), 4))
	if err != nil || strings.Join(got, "|") != "xxxx|xxxx|xx" {
		t.Errorf("got %q, %v", got, err)
	}
	// Pieces follow the reads that arrive.
	got, err = readAll(NewChunkReader(iotest.OneByteReader(strings.NewReader("abc")), 100))
	if err != nil || strings.Join(got, "|") != "a|b|c" {
		t.Errorf("got %q, %v", got, err)
	}
}

// FuzzJSONReader checks the reader against encoding/json: when the input
// is a sequence of valid JSON objects, arrays and strings, the reader
// returns exactly them.
// Whatever the input, it never panics or returns more than its limit.
// Inputs are cut at maxFuzzInput bytes: several values at the limit.
func FuzzJSONReader(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n{\"b\":2}", `{"a":"}"}[1]"x"`, "1 2 3", `{"a":`, `"\"`, " [] {} ", `{"a":"\u00e9\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 64
		in = in[:min(len(in), maxFuzzInput)]
		got, err := readAll(NewJSONReader(bytes.NewReader(in), max))
		for _, v := range got {
			if len(v) > max {
				t.Fatalf("value of %d bytes over the limit", len(v))
			}
		}
		var want []string
		dec := json.NewDecoder(bytes.NewReader(in))
		for {
			var raw json.RawMessage
			if derr := dec.Decode(&raw); derr == io.EOF {
				break
			} else if derr != nil {
				return // not a valid sequence: only the checks above apply
			}
			want = append(want, string(raw))
		}
		for _, v := range want {
			if len(v) > max {
				return
			}
			if v[0] != '{' && v[0] != '[' && v[0] != '"' {
				// Adjacent scalars ("00", "1-2") are split by
				// encoding/json's grammar and kept whole here, for the
				// codec to reject; messages are objects.
				return
			}
		}
		if err != nil {
			t.Fatalf("valid sequence %q: %v", in, err)
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("input %q: got %q, want %q", in, got, want)
		}
	})
}
