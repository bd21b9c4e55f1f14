package bind

import "strings"

// unescape percent-decodes s; when plus is set, '+' decodes to a space
// (HTML form semantics). ok is false for a '%' not followed by two
// hexadecimal digits. When there is nothing to decode, s itself is
// returned and nothing is allocated.
func unescape(s string, plus bool) (out string, ok bool) {
	n := 0 // decoded length
	changed := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", false
			}
			i += 2
			changed = true
		case '+':
			changed = changed || plus
		}
		n++
	}
	if !changed {
		return s, true
	}
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		case c == '+' && plus:
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
