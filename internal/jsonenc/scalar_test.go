package jsonenc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{"q\"b\\\n\r\t\b\f\x01", `"q\"b\\\n\r\t\b\f\u0001"`},
		{"é😀\u2028<>&", `"é😀` + "\u2028" + `<>&"`},
		{"bad \xff utf-8", "\"bad \uFFFD utf-8\""},
	} {
		if got := string(AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestIndexNeedEscape checks the word-at-a-time scan against a byte at a
// time, with each kind of byte at each place in and around a word.
func TestIndexNeedEscape(t *testing.T) {
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
			if got, w := indexNeedEscape(s), want(s); got != w {
				t.Fatalf("indexNeedEscape(%q) = %d, want %d", s, got, w)
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
