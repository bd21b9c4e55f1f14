package ws

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"testing/iotest"

	"github.com/coder/websocket"
)

// frame builds a client frame: opcode op, a payload of n bytes (written
// as 'x'), masked or not. The payload's bytes are not masked: the guard
// reads headers only.
func frame(op byte, n int, masked bool) []byte {
	b := []byte{0x80 | op}
	var mask byte
	if masked {
		mask = 0x80
	}
	switch {
	case n < 126:
		b = append(b, mask|byte(n))
	case n <= 0xffff:
		b = append(b, mask|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, mask|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	if masked {
		b = append(b, 1, 2, 3, 4)
	}
	return append(b, bytes.Repeat([]byte{'x'}, n)...)
}

// maskedClose builds a client's close frame with code and reason, masked.
func maskedClose(code uint16, reason string) []byte {
	payload := binary.BigEndian.AppendUint16(nil, code)
	payload = append(payload, reason...)
	b := []byte{0x88, 0x80 | byte(len(payload)), 1, 2, 3, 4}
	for i, c := range payload {
		b = append(b, c^byte(i%4+1))
	}
	return b
}

func TestFrameGuard(t *testing.T) {
	t.Parallel()
	const limit = 70000
	cat := func(fs ...[]byte) []byte { return bytes.Join(fs, nil) }
	good := cat(frame(1, 5, true), frame(2, 200, true), frame(0, 70000, true), frame(9, 125, true), frame(8, 2, true))
	tests := []struct {
		name   string
		in     []byte
		passed int // the bytes before the frame the guard stops at
		hdr    int // that frame's header length
		fail   *closeFrame
	}{
		{"masked frames of every length form pass whole", good, len(good), 0, nil},
		{"an unmasked frame stops at its header", cat(frame(1, 5, true), frame(1, 3, false), frame(1, 1, true)), len(frame(1, 5, true)), 2,
			&closeFrame{websocket.StatusProtocolError, "unmasked frame from the client"}},
		{"a data frame over the limit stops at its header", cat(frame(1, 10, true), frame(2, limit+1, true)), len(frame(1, 10, true)), 14,
			&closeFrame{websocket.StatusMessageTooBig, "message larger than the limit of 70000 bytes"}},
		{"a continuation over the limit too", cat(frame(0, limit+1, true)), 0, 14,
			&closeFrame{websocket.StatusMessageTooBig, "message larger than the limit of 70000 bytes"}},
		{"a close reason in UTF-8 passes", cat(frame(1, 5, true), maskedClose(1000, "bye, été")), len(cat(frame(1, 5, true), maskedClose(1000, "bye, été"))), 0, nil},
		{"a close reason not UTF-8 stops before its last byte", cat(frame(1, 5, true), maskedClose(1000, "bad \xff\xfe")), len(frame(1, 5, true)), len(maskedClose(1000, "bad \xff\xfe")),
			&closeFrame{websocket.StatusInvalidFramePayloadData, "a close reason that is not UTF-8"}},
		{"a 64-bit length stops before any payload", cat(frame(2, 3, true), []byte{0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4}), len(frame(2, 3, true)), 14,
			&closeFrame{websocket.StatusMessageTooBig, "message larger than the limit of 70000 bytes"}},
	}
	for _, tt := range tests {
		for _, split := range []struct {
			name string
			r    func(io.Reader) io.Reader
		}{
			{"whole", func(r io.Reader) io.Reader { return r }},
			{"a byte at a time", iotest.OneByteReader},
			{"half reads", iotest.HalfReader},
		} {
			t.Run(tt.name+"/"+split.name, func(t *testing.T) {
				t.Parallel()
				g := &frameGuard{src: split.r(bytes.NewReader(tt.in)), limit: limit}
				got, err := io.ReadAll(g)
				if tt.fail == nil {
					if err != nil {
						t.Fatalf("error %v", err)
					}
					if !bytes.Equal(got, tt.in) {
						t.Fatalf("passed %d bytes, changed or short of %d", len(got), len(tt.in))
					}
					return
				}
				if err != errProtocol {
					t.Fatalf("error %v, want %v", err, errProtocol)
				}
				// The frames before pass whole; of the bad frame, only the
				// part that came in earlier reads, never its whole header
				// (for a close frame, its whole payload).
				if len(got) < tt.passed || len(got) >= tt.passed+tt.hdr || !bytes.Equal(got, tt.in[:len(got)]) {
					t.Fatalf("passed %d bytes, want the first %d to %d", len(got), tt.passed, tt.passed+tt.hdr-1)
				}
				if g.fail == nil || *g.fail != *tt.fail {
					t.Fatalf("close %+v, want %+v", g.fail, tt.fail)
				}
				if n, err := g.Read(make([]byte, 10)); n != 0 || err != errProtocol {
					t.Fatalf("a read after the failure: %d, %v", n, err)
				}
			})
		}
	}
}

func TestHeaderLen(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		b1        byte
		hdr       int
		hdrBytes  []byte
		payload   uint64
		lengthFor string
	}{
		{0x85, 6, []byte{0x81, 0x85}, 5, "7-bit, masked"},
		{0x05, 2, []byte{0x81, 0x05}, 5, "7-bit"},
		{0xfe, 8, []byte{0x81, 0xfe, 0x01, 0x00}, 256, "16-bit, masked"},
		{0xff, 14, []byte{0x81, 0xff, 0, 0, 0, 1, 0, 0, 0, 0}, 1 << 32, "64-bit, masked"},
		{0x7f, 10, []byte{0x81, 0x7f, 0, 0, 0, 0, 0, 0, 0, 9}, 9, "64-bit"},
	} {
		if got := headerLen(tt.b1); got != tt.hdr {
			t.Errorf("%s: headerLen = %d, want %d", tt.lengthFor, got, tt.hdr)
		}
		if got := payloadLen(tt.hdrBytes); got != tt.payload {
			t.Errorf("%s: payloadLen = %d, want %d", tt.lengthFor, got, tt.payload)
		}
	}
}

// FuzzFrameGuard: whatever a client sends, the guard passes a prefix of
// it unchanged, the same one and the same failure whether the bytes come
// whole or one at a time, and a failure passes no close frame whole.
func FuzzFrameGuard(f *testing.F) {
	f.Add(frame(1, 5, true))
	f.Add(append(frame(2, 3, true), maskedClose(1000, "bye")...))
	f.Add(maskedClose(1001, "\xff"))
	f.Add(frame(1, 3, false))
	f.Fuzz(func(t *testing.T, in []byte) {
		var got [2][]byte
		var fail [2]*closeFrame
		for i, r := range []io.Reader{bytes.NewReader(in), iotest.OneByteReader(bytes.NewReader(in))} {
			g := &frameGuard{src: r, limit: 100}
			got[i], _ = io.ReadAll(g)
			fail[i] = g.fail
			if !bytes.HasPrefix(in, got[i]) {
				t.Fatalf("passed %q, not a prefix of %q", got[i], in)
			}
		}
		if (fail[0] == nil) != (fail[1] == nil) || fail[0] != nil && *fail[0] != *fail[1] {
			t.Fatalf("whole: %+v, a byte at a time: %+v", fail[0], fail[1])
		}
		if fail[0] == nil && (!bytes.Equal(got[0], in) || !bytes.Equal(got[1], in)) {
			t.Fatalf("no failure, but passed %d and %d of %d bytes", len(got[0]), len(got[1]), len(in))
		}
	})
}
