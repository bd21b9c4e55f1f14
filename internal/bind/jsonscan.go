package bind

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// maxJSONDepth bounds the nesting DeriveFieldMask follows, as
// encoding/json does.
const maxJSONDepth = 10000

// scanner is a minimal JSON reader over a body: it finds object keys and
// skips values, checking the RFC 8259 grammar as it goes.
type scanner struct {
	b []byte
	i int
}

func (sc *scanner) fail(what string) error {
	return errors.New("invalid JSON at offset " + strconv.Itoa(sc.i) + ": " + what)
}

// peek returns the current byte, or 0 at the end.
func (sc *scanner) peek() byte {
	if sc.i < len(sc.b) {
		return sc.b[sc.i]
	}
	return 0
}

// space skips JSON whitespace.
func (sc *scanner) space() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// emptyObject reports whether the object at sc is {} (whitespace
// allowed), without consuming it.
func (sc *scanner) emptyObject() bool {
	j := sc.i + 1
	for j < len(sc.b) && (sc.b[j] == ' ' || sc.b[j] == '\t' || sc.b[j] == '\n' || sc.b[j] == '\r') {
		j++
	}
	return j < len(sc.b) && sc.b[j] == '}'
}

// key reads a string and returns its value: a slice of the body when it
// has no escapes, so that looking it up copies nothing.
func (sc *scanner) key() ([]byte, error) {
	start := sc.i
	escaped, err := sc.str()
	if err != nil {
		return nil, err
	}
	raw := sc.b[start:sc.i]
	if !escaped {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, sc.fail("bad string escape")
	}
	return []byte(s), nil
}

// str skips the string at sc, reporting whether it has escapes.
func (sc *scanner) str() (escaped bool, err error) {
	sc.i++ // '"'
	for sc.i < len(sc.b) {
		c := sc.b[sc.i]
		switch {
		case c == '"':
			sc.i++
			return escaped, nil
		case c < 0x20:
			return false, sc.fail("control character in string")
		case c == '\\':
			escaped = true
			if sc.i+1 >= len(sc.b) {
				return false, sc.fail("unterminated string")
			}
			switch sc.b[sc.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.i += 2
			case 'u':
				if sc.i+6 > len(sc.b) || !isHex(sc.b[sc.i+2]) || !isHex(sc.b[sc.i+3]) || !isHex(sc.b[sc.i+4]) || !isHex(sc.b[sc.i+5]) {
					return false, sc.fail("bad \\u escape")
				}
				sc.i += 6
			default:
				return false, sc.fail("bad string escape")
			}
		default:
			sc.i++
		}
	}
	return false, sc.fail("unterminated string")
}

// skip skips the value at sc.
func (sc *scanner) skip(depth int) error {
	if depth > maxJSONDepth {
		return sc.fail("nested too deeply")
	}
	switch c := sc.peek(); c {
	case '"':
		_, err := sc.str()
		return err
	case '{', '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		sc.i++
		if sc.space(); sc.peek() == end {
			sc.i++
			return nil
		}
		for {
			sc.space()
			if c == '{' {
				if sc.peek() != '"' {
					return sc.fail("expected an object key")
				}
				if _, err := sc.str(); err != nil {
					return err
				}
				if sc.space(); sc.peek() != ':' {
					return sc.fail("expected ':'")
				}
				sc.i++
				sc.space()
			}
			if err := sc.skip(depth + 1); err != nil {
				return err
			}
			sc.space()
			switch sc.peek() {
			case ',':
				sc.i++
			case end:
				sc.i++
				return nil
			default:
				return sc.fail("expected ',' or '" + string(end) + "'")
			}
		}
	case 't':
		return sc.literal("true")
	case 'f':
		return sc.literal("false")
	case 'n':
		return sc.literal("null")
	}
	start := sc.i
	for sc.i < len(sc.b) && strings.IndexByte("+-0123456789.eE", sc.b[sc.i]) >= 0 {
		sc.i++
	}
	if !isJSONNumber(string(sc.b[start:sc.i])) {
		sc.i = start
		return sc.fail("expected a value")
	}
	return nil
}

func (sc *scanner) literal(word string) error {
	if !bytes.HasPrefix(sc.b[sc.i:], []byte(word)) {
		return sc.fail("expected a value")
	}
	sc.i += len(word)
	return nil
}
