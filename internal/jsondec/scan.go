package jsondec

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/protorest/protorest/internal/jsonstr"
)

// scanner reads JSON tokens from data. Its rules are protojson's lexer's
// (RFC 8259 strict: no comments, no trailing commas, strings of valid
// UTF-8 without raw control characters, escapes as JSON defines them and
// surrogates only in pairs), or stricter: what it does not take, protojson
// decides.
type scanner struct {
	data     []byte
	pos      int
	scratch  []byte // unescaped strings
	depth    int    // arrays and objects open
	maxDepth int    // how many may be open at once
}

// ws skips whitespace.
func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the byte at pos, or 0 at the end.
func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// consume takes c, and the whitespace after it.
func (s *scanner) consume(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		s.ws()
		return true
	}
	return false
}

// literal takes the literal lit (true, false, null) at pos.
func (s *scanner) literal(lit string) bool {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	s.pos += len(lit)
	return true
}

// open takes the bracket c that opens an array or object, and its closing
// bracket too if it is empty. ok is false if c is not there or opens one
// level too many.
func (s *scanner) open(c byte) (empty, ok bool) {
	if s.peek() != c || s.depth >= s.maxDepth {
		return false, false
	}
	s.pos++
	s.ws()
	if s.peek() == c+2 { // ']' follows '[' and '}' follows '{' by two
		s.pos++
		return true, true
	}
	s.depth++
	return false, true
}

// more ends an element or member: it takes the comma before another one
// (true), or the closing bracket (false). ok is false for anything else.
func (s *scanner) more(close byte) (more, ok bool) {
	s.ws()
	switch s.peek() {
	case ',':
		s.pos++
		s.ws()
		return true, true
	case close:
		s.pos++
		s.depth--
		return false, true
	}
	return false, false
}

// str reads the string at pos and returns its unescaped bytes: a slice of
// data when it has no escapes, else of scratch; either is valid until the
// next call.
func (s *scanner) str() ([]byte, bool) {
	data := s.data
	if s.pos >= len(data) || data[s.pos] != '"' {
		return nil, false
	}
	start := s.pos + 1
	i := start + jsonstr.IndexBytes(data[start:])
	switch {
	case i < len(data) && data[i] == '"':
		s.pos = i + 1
		return data[start:i], true
	case i < len(data) && data[i] == '\\':
		return s.escaped(start, i)
	}
	return nil, false // the end, a control character or invalid UTF-8
}

// escaped finishes str for a string with an escape at i.
func (s *scanner) escaped(start, i int) ([]byte, bool) {
	data := s.data
	out := append(s.scratch[:0], data[start:i]...)
	for i < len(data) {
		switch data[i] {
		case '"':
			s.pos = i + 1
			s.scratch = out
			return out, true
		case '\\':
			if i+1 >= len(data) {
				return nil, false
			}
			switch e := data[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, n := unicodeEscape(data[i:])
				if n == 0 {
					return nil, false
				}
				out = utf8.AppendRune(out, r)
				i += n
				continue
			default:
				return nil, false
			}
			i += 2
		default:
			n := jsonstr.IndexBytes(data[i:])
			if n == 0 {
				return nil, false // a control character or invalid UTF-8
			}
			out = append(out, data[i:i+n]...)
			i += n
		}
	}
	return nil, false
}

// unicodeEscape reads \uXXXX at the start of b, and the second half of a
// surrogate pair after it; n is the bytes read, 0 if they are not valid.
func unicodeEscape(b []byte) (r rune, n int) {
	v, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	r = rune(v)
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	low, ok := hex4(b[6:])
	if !ok {
		return 0, 0
	}
	if r = utf16.DecodeRune(r, rune(low)); r == utf8.RuneError {
		return 0, 0
	}
	return r, 12
}

// hex4 reads the four hex digits of \uXXXX at the start of b.
func hex4(b []byte) (uint16, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var v uint16
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint16(c)
	}
	return v, true
}

// number reads the number at pos and returns its bytes, by JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() ([]byte, bool) {
	n, ok := numberLen(s.data[s.pos:])
	if !ok {
		return nil, false
	}
	b := s.data[s.pos : s.pos+n]
	s.pos += n
	return b, true
}

// numberLen is the length of the JSON number at the start of b.
func numberLen(b []byte) (int, bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for ; i < len(b) && isDigit(b[i]); i++ {
		}
		if i == d {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for ; i < len(b) && isDigit(b[i]); i++ {
		}
		if i == d {
			return 0, false
		}
	}
	return i, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skip reads past the value at pos, checking it as it goes. depth is how
// many more arrays and objects may open inside it (protojson's recursion
// limit, besides maxDepth).
func (s *scanner) skip(depth int) bool {
	switch c := s.peek(); {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '-' || isDigit(c):
		_, ok := s.number()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case (c == '{' || c == '[') && depth > 0:
		empty, ok := s.open(c)
		for more := !empty; ok && more; {
			if c == '{' {
				_, ok = s.str()
				s.ws()
				ok = ok && s.consume(':')
			}
			if ok = ok && s.skip(depth-1); ok {
				more, ok = s.more(c + 2)
			}
		}
		return ok
	}
	return false
}
