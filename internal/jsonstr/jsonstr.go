// Package jsonstr finds the runs of text a JSON string holds as they are:
// what the encoder (internal/jsonenc) copies without escaping, and the
// decoder (internal/jsondec) takes without unescaping.
package jsonstr

import (
	"math/bits"
	"unicode/utf8"
)

// plain says which bytes a JSON string holds as they are: ASCII other
// than the quote, the backslash and control characters.
var plain = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Index returns the index of the first byte of s that a JSON string
// cannot hold as it is: the quote, the backslash, a control character or
// the first byte of invalid UTF-8; len(s) if there is none. Valid
// multi-byte runes pass.
func Index(s string) int {
	i := 0
	for {
		i = plainRun(s, i)
		if i == len(s) || s[i] < utf8.RuneSelf {
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
}

// IndexBytes is Index for a byte slice.
func IndexBytes(s []byte) int {
	i := 0
	for {
		i = plainRun(s, i)
		if i == len(s) || s[i] < utf8.RuneSelf {
			return i
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
}

// plainRun returns the index of the first byte of s from i on that is not
// plain, or len(s). It looks at eight bytes at a time while they are
// plain (see notPlain), a byte at a time otherwise.
func plainRun[T string | []byte](s T, i int) int {
	for ; len(s)-i >= 8; i += 8 {
		if m := notPlain(load64(s, i)); m != 0 {
			i += bits.TrailingZeros64(m) / 8
			break
		}
	}
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// load64 reads s[i:i+8] as a little-endian word (the compiler makes it
// one load).
func load64[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// notPlain returns a word whose lowest set bit is the top bit of the
// first byte of x that is not plain (see plain): a control character,
// the quote, the backslash or a byte of a multi-byte rune; 0 if there is
// none. (Bits above it may be set spuriously, by borrows.)
func notPlain(x uint64) uint64 {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	lowBytes := x - ones*' '              // a byte below ' ' borrows, and its top bit is set
	quotes := (x ^ ones*'"') - ones       // likewise a byte equal to '"'
	backslashes := (x ^ ones*'\\') - ones // and '\\'
	return (lowBytes | quotes | backslashes | x) & tops
}
