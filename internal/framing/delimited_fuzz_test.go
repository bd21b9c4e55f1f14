package framing

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"

	"google.golang.org/protobuf/encoding/protowire"
)

// FuzzDelimitedReader checks the length-delimited reader against
// protowire's varint: the input is read as the frames it spells, up to
// the first malformed length, truncated frame or frame over the limit,
// which is an error (TooLargeError for the last); a clean end is io.EOF.
// Reading a byte at a time gives the same. Inputs are cut at
// maxFuzzInput bytes: several frames at the limit, over a hundred empty
// ones; streams longer than a read buffer are
// TestDelimitedReaderLongStream's.
func FuzzDelimitedReader(f *testing.F) {
	for _, s := range [][]byte{{0}, {3, 'a', 'b', 'c', 1, 'x'}, {0x80}, {5, 'a'}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, {65}, {64}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 64
		in = in[:min(len(in), maxFuzzInput)]
		var want []string
		var wantErr, wantTooLarge bool
		for rest := in; len(rest) > 0; {
			n, k := protowire.ConsumeVarint(rest)
			if k < 0 {
				wantErr = true
				break
			}
			if n > max {
				wantErr, wantTooLarge = true, true
				break
			}
			rest = rest[k:]
			if uint64(len(rest)) < n {
				wantErr = true
				break
			}
			want = append(want, string(rest[:n]))
			rest = rest[n:]
		}
		for _, r := range []Reader{NewDelimitedReader(bytes.NewReader(in), max), NewDelimitedReader(iotest.OneByteReader(bytes.NewReader(in)), max)} {
			got, err := readAll(r)
			var tl *TooLargeError
			if (err != nil) != wantErr || errors.As(err, &tl) != wantTooLarge {
				t.Fatalf("%x: error %v, want an error %v (too large %v)", in, err, wantErr, wantTooLarge)
			}
			if len(got) != len(want) {
				t.Fatalf("%x: %d frames, want %d", in, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%x: frame %d = %x, want %x", in, i, got[i], want[i])
				}
			}
		}
	})
}
