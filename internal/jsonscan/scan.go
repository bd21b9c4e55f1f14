// Package jsonscan reads JSON tokens by the rules of protojson's lexer
// (RFC 8259, strictly): the compiled decoder (internal/jsondec) reads its
// input with it, and the update-mask deriver (internal/bind) a body's keys.
//
// Its methods report failure with a bool and leave the position near it:
// the decoder's one answer to any failure is to let protojson decide and
// write the error, and the deriver words its own.
//
// Two passes that do not validate live here too (passes.go): Compact,
// which takes the whitespace out of protojson's output, and NestingDepth,
// the JSON codec's depth check before protojson reads an input.
package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/protorest/protorest/internal/jsonstr"
)

// Scanner reads JSON tokens from its data. Its rules are protojson's
// lexer's (RFC 8259 strict: no comments, no trailing commas, strings of
// valid UTF-8 without raw control characters, escapes as JSON defines them
// and surrogates only in pairs), or stricter: what it does not take,
// protojson decides. The zero value reads nothing; Reset sets what it
// reads.
type Scanner struct {
	data     []byte
	pos      int
	scratch  []byte // unescaped strings
	depth    int    // arrays and objects open
	maxDepth int    // how many may be open at once

	// LoneSurrogates takes a \u escape of half a surrogate pair that is
	// not followed by the other half, as U+FFFD, as encoding/json does;
	// protojson refuses it, and so does the Scanner without this.
	LoneSurrogates bool
}

// Reset sets s to read data from its start, with at most maxDepth arrays
// and objects open at once. It keeps s's scratch buffer (for unescaped
// strings) and LoneSurrogates.
func (s *Scanner) Reset(data []byte, maxDepth int) {
	s.data, s.pos, s.scratch, s.depth, s.maxDepth = data, 0, s.scratch[:0], 0, maxDepth
}

// Pos is the offset in data of the next byte to read.
func (s *Scanner) Pos() int { return s.pos }

// AtEnd reports whether all of data has been read.
func (s *Scanner) AtEnd() bool { return s.pos == len(s.data) }

// Depth is the number of arrays and objects open.
func (s *Scanner) Depth() int { return s.depth }

// ScratchCap is the capacity of the scratch buffer, which grows to the
// longest escaped string read since it was made.
func (s *Scanner) ScratchCap() int { return cap(s.scratch) }

// Space skips whitespace.
func (s *Scanner) Space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Peek returns the byte at pos, or 0 at the end.
func (s *Scanner) Peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// Consume takes c, and the whitespace after it.
func (s *Scanner) Consume(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		s.Space()
		return true
	}
	return false
}

// Literal takes the literal lit (true, false, null) at pos.
func (s *Scanner) Literal(lit string) bool {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	s.pos += len(lit)
	return true
}

// Open takes the bracket c that opens an array or object, and its closing
// bracket too if it is empty. ok is false if c is not there or opens one
// level too many.
func (s *Scanner) Open(c byte) (empty, ok bool) {
	if s.Peek() != c || s.depth >= s.maxDepth {
		return false, false
	}
	s.pos++
	s.Space()
	if s.Peek() == c+2 { // ']' follows '[' and '}' follows '{' by two
		s.pos++
		return true, true
	}
	s.depth++
	return false, true
}

// More ends an element or member: it takes the comma before another one
// (true), or the closing bracket (false). ok is false for anything else.
func (s *Scanner) More(close byte) (more, ok bool) {
	s.Space()
	switch s.Peek() {
	case ',':
		s.pos++
		s.Space()
		return true, true
	case close:
		s.pos++
		s.depth--
		return false, true
	}
	return false, false
}

// Str reads the string at pos and returns its unescaped bytes: a slice of
// data when it has no escapes, else of scratch; either is valid until the
// next call.
func (s *Scanner) Str() ([]byte, bool) {
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
func (s *Scanner) escaped(start, i int) ([]byte, bool) {
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
				r, n := unicodeEscape(data[i:], s.LoneSurrogates)
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
// With lone, half a pair alone is U+FFFD.
func unicodeEscape(b []byte, lone bool) (r rune, n int) {
	v, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	r = rune(v)
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if low, ok := hex4(b[6:]); ok {
		if r = utf16.DecodeRune(r, rune(low)); r != utf8.RuneError {
			return r, 12
		}
	}
	if lone {
		return utf8.RuneError, 6
	}
	return 0, 0
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

// Number reads the number at pos and returns its bytes, by JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) Number() ([]byte, bool) {
	n, ok := NumberLen(s.data[s.pos:])
	if !ok {
		return nil, false
	}
	b := s.data[s.pos : s.pos+n]
	s.pos += n
	return b, true
}

// NumberLen is the length of the JSON number at the start of b, by
// JSON's grammar; ok is false if b does not start with one.
func NumberLen[T ~string | ~[]byte](b T) (int, bool) {
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

// Skip reads past the value at pos, checking it as it goes. depth is how
// many more arrays and objects may open inside it (protojson's recursion
// limit, besides maxDepth).
func (s *Scanner) Skip(depth int) bool {
	switch c := s.Peek(); {
	case c == '"':
		_, ok := s.Str()
		return ok
	case c == '-' || isDigit(c):
		_, ok := s.Number()
		return ok
	case c == 't':
		return s.Literal("true")
	case c == 'f':
		return s.Literal("false")
	case c == 'n':
		return s.Literal("null")
	case (c == '{' || c == '[') && depth > 0:
		empty, ok := s.Open(c)
		for more := !empty; ok && more; {
			if c == '{' {
				_, ok = s.Str()
				s.Space()
				ok = ok && s.Consume(':')
			}
			if ok = ok && s.Skip(depth-1); ok {
				more, ok = s.More(c + 2)
			}
		}
		return ok
	}
	return false
}
