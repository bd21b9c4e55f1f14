package route

import (
	"errors"
	"strconv"
	"strings"
)

// UnescapeMode says which percent-escapes [UnescapeMulti] decodes in the
// value of a variable that spans several segments. The escapes it does not
// decode stay as they were in the request, hex case included.
type UnescapeMode int

const (
	// UnescapeAllExceptSlash decodes every escape except %2F and %2f, so
	// that the value's "/" still separate its segments. This is the text of
	// google/api/http.proto, and the default.
	UnescapeAllExceptSlash UnescapeMode = iota
	// UnescapeAllExceptReserved leaves the RFC 6570 reserved characters
	// ! # $ & ' ( ) * + , / : ; = ? @ [ ] encoded and decodes the others,
	// as Envoy's transcoder and ESP do by default.
	UnescapeAllExceptReserved
	// UnescapeAll decodes every escape, %2F included.
	UnescapeAll
)

// String returns the constant's name without its "Unescape" prefix.
func (m UnescapeMode) String() string {
	switch m {
	case UnescapeAllExceptSlash:
		return "AllExceptSlash"
	case UnescapeAllExceptReserved:
		return "AllExceptReserved"
	case UnescapeAll:
		return "All"
	}
	return "UnescapeMode(" + strconv.Itoa(int(m)) + ")"
}

// ErrMalformedEscape is matched (with [errors.Is]) by every error the
// unescape functions return.
var ErrMalformedEscape = errors.New("malformed percent escape")

// An EscapeError reports a "%" that is not followed by two hexadecimal
// digits. It wraps [ErrMalformedEscape].
type EscapeError struct {
	// Escape is the malformed text: the "%" and up to two bytes after it.
	Escape string
	// Offset is the byte offset of the "%" in the input.
	Offset int
}

func (e *EscapeError) Error() string {
	return "malformed percent escape " + strconv.Quote(e.Escape) + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns [ErrMalformedEscape].
func (e *EscapeError) Unwrap() error { return ErrMalformedEscape }

// UnescapeSegment decodes the value of a variable that covers one segment
// (as returned by [Match.RawVar]): every %XX escape is decoded, %2F to
// "/" included; hex digits may be upper or lower case; "+" stays "+". The
// decoded bytes are returned as they are, with no UTF-8 check. A "%" not
// followed by two hex digits is an [*EscapeError]. When s has no "%",
// UnescapeSegment returns s itself and does not allocate.
func UnescapeSegment(s string) (string, error) {
	return unescape(s, &keepNone)
}

// UnescapeMulti decodes the value of a variable that spans several
// segments or contains "**" (as returned by [Match.RawVar], segments
// joined by "/"), leaving encoded the characters mode says to keep; an
// unknown mode is treated as [UnescapeAllExceptSlash]. "+" stays "+". A
// "%" not followed by two hex digits is an [*EscapeError]. When nothing
// is to be decoded, UnescapeMulti returns s itself and does not allocate.
func UnescapeMulti(s string, mode UnescapeMode) (string, error) {
	keep := &keepSlash
	switch mode {
	case UnescapeAllExceptReserved:
		keep = &keepReserved
	case UnescapeAll:
		keep = &keepNone
	}
	return unescape(s, keep)
}

// Sets of bytes whose escapes stay encoded.
var (
	keepNone  [256]bool
	keepSlash = [256]bool{'/': true}
	// The RFC 6570 reserved set: gen-delims and sub-delims of RFC 3986.
	keepReserved = [256]bool{
		'!': true, '#': true, '$': true, '&': true, '\'': true, '(': true,
		')': true, '*': true, '+': true, ',': true, '/': true, ':': true,
		';': true, '=': true, '?': true, '@': true, '[': true, ']': true,
	}
)

// unescape decodes the escapes in s except those of the bytes in keep. It
// checks every escape first, and allocates only when one is decoded.
func unescape(s string, keep *[256]bool) (string, error) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, nil
	}
	n := 0 // escapes to decode
	for ; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+2 >= len(s) || !ishex(s[i+1]) || !ishex(s[i+2]) {
			return "", &EscapeError{Escape: s[i:min(i+3, len(s))], Offset: i}
		}
		if !keep[unhex(s[i+1])<<4|unhex(s[i+2])] {
			n++
		}
		i += 2
	}
	if n == 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s) - 2*n)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if c := unhex(s[i+1])<<4 | unhex(s[i+2]); !keep[c] {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
