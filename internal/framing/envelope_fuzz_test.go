package framing

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzEnvelopeFollower checks the follower against a parse of the
// envelopes of its own: the bytes come through unchanged up to the first
// prefix over the limit, which is a TooLargeError; in a stream, Begin is
// told once for each message whose first byte was read, and Await only
// where a message ends; a single message is never timed by the follower.
// The consumer takes each message as soon as its last byte is read, so no
// read waits. Reading a byte at a time gives the same.
func FuzzEnvelopeFollower(f *testing.F) {
	for _, s := range [][]byte{
		{0, 0, 0, 0, 0},
		{0, 0, 0, 0, 3, 'a', 'b', 'c', 1, 0, 0, 0, 1, 'x'},
		{0, 0, 0, 0, 65},
		{0, 0, 0, 0, 64},
		{0, 0, 0},
		{0, 0, 0, 0, 9, 'a'},
		{0x80, 0xff, 0xff, 0xff, 0xff},
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in []byte, stream bool) {
		const max = 64
		in = in[:min(len(in), maxFuzzInput)]
		wantBegun, _, tooLargeEnd := walkEnvelopes(in, max)
		wantTooLarge := tooLargeEnd > 0
		for _, one := range []bool{false, true} {
			var src io.Reader = bytes.NewReader(in)
			if one {
				src = iotest.OneByteReader(src)
			}
			clock := &recordingClock{Reader: src}
			fl := NewEnvelopeFollower(clock, max, stream)
			var out []byte
			var err error
			taken := 0
			buf := make([]byte, 7)
			for {
				var n int
				n, err = fl.Read(buf)
				out = append(out, buf[:n]...)
				clock.out = out
				_, whole, _ := walkEnvelopes(out, 0)
				for ; taken < whole; taken++ {
					fl.Consumed()
				}
				if err != nil {
					break
				}
			}
			var tl *TooLargeError
			if errors.As(err, &tl) != wantTooLarge || !wantTooLarge && err != io.EOF {
				t.Fatalf("%x (one byte at a time %v): error %v, want too large %v", in, one, err, wantTooLarge)
			}
			if !bytes.HasPrefix(in, out) || !wantTooLarge && len(out) != len(in) || wantTooLarge && len(out) < tooLargeEnd {
				t.Fatalf("%x (one byte at a time %v): passed %x", in, one, out)
			}
			if !stream {
				if clock.begins+clock.awaits != 0 {
					t.Fatalf("%x: a single message timed by the follower: %d Begin, %d Await", in, clock.begins, clock.awaits)
				}
				continue
			}
			if clock.begins != wantBegun {
				t.Fatalf("%x (one byte at a time %v): %d Begin, want %d", in, one, clock.begins, wantBegun)
			}
			if clock.midAwait {
				t.Fatalf("%x: Await inside a message", in)
			}
		}
	})
}

// walkEnvelopes counts the messages of b begun and read whole, up to the
// first prefix over max (0: no limit), and returns where that prefix
// ends, or 0.
func walkEnvelopes(b []byte, max int) (begun, whole, tooLargeEnd int) {
	for at := 0; at < len(b); {
		begun++
		if len(b)-at < EnvelopePrefix {
			break
		}
		n := binary.BigEndian.Uint32(b[at+1 : at+EnvelopePrefix])
		if max > 0 && n > uint32(max) {
			return begun, whole, at + EnvelopePrefix
		}
		if uint64(len(b)-at) < EnvelopePrefix+uint64(n) {
			break
		}
		whole++
		at += EnvelopePrefix + int(n)
	}
	return begun, whole, 0
}

// recordingClock is a body that counts the Clock calls it is given, and
// notes an Await told while out (what was read) ends inside a message.
type recordingClock struct {
	io.Reader
	out            []byte
	begins, awaits int
	midAwait       bool
}

func (c *recordingClock) Await() {
	c.awaits++
	if begun, whole, _ := walkEnvelopes(c.out, 0); begun != whole {
		c.midAwait = true
	}
}

func (c *recordingClock) Begin() { c.begins++ }
