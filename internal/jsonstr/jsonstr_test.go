package jsonstr

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestIndex checks the word-at-a-time scan against a byte at a time, with
// each kind of byte at each place in and around a word, for a string and
// for a byte slice.
func TestIndex(t *testing.T) {
	t.Parallel()
	want := func(s string) int {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= utf8.RuneSelf {
				r, n := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && n == 1 {
					return i
				}
				i += n - 1
				continue
			}
			if c < ' ' || c == '"' || c == '\\' {
				return i
			}
		}
		return len(s)
	}
	specials := []string{"\x00", "\x1f", " ", "!", "\"", "#", "[", "\\", "]", "\x7f", "é", "😀", "\xff", "\xc3", "\u2028"}
	for n := range 20 {
		base := strings.Repeat("a", n)
		check := func(s string) {
			w := want(s)
			if got := Index(s); got != w {
				t.Fatalf("Index(%q) = %d, want %d", s, got, w)
			}
			if got := IndexBytes([]byte(s)); got != w {
				t.Fatalf("IndexBytes(%q) = %d, want %d", s, got, w)
			}
		}
		check(base)
		for i := 0; i <= n; i++ {
			for _, c := range specials {
				check(base[:i] + c + base[i:])
				for _, d := range specials {
					check(base[:i] + c + base[i:] + d)
				}
			}
		}
	}
}
