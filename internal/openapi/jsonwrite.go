package openapi

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/protorest/protorest/internal/jsonstr"
)

// The JSON primitives of encode.go. Each writes what encoding/json writes
// with SetEscapeHTML(false): encode_test.go holds them to it.

// appendString appends s as a JSON string: the quote, the backslash and
// control characters escaped (\b, \f, \n, \r, \t or \u00XX), U+2028 and
// U+2029 too, and each byte of invalid UTF-8 written as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for len(s) > 0 {
		i := jsonstr.Index(s)
		b = appendRun(b, s[:i])
		s = s[i:]
		if s == "" {
			break
		}
		if c := s[0]; c < utf8.RuneSelf {
			b = appendEscaped(b, c)
			s = s[1:]
			continue
		}
		b = append(b, `\ufffd`...) // Index stops at a multi-byte rune only when it is invalid
		s = s[1:]
	}
	return append(b, '"')
}

// appendRun appends a run that a JSON string holds as it is, but for
// U+2028 and U+2029 (E2 80 A8, E2 80 A9), which encoding/json escapes for
// JavaScript's sake.
func appendRun(b []byte, run string) []byte {
	for {
		i := strings.IndexByte(run, 0xE2) // the lead byte of U+2000 to U+2FFF
		if i < 0 {
			return append(b, run...)
		}
		if c := run[i+2]; run[i+1] == 0x80 && (c == 0xA8 || c == 0xA9) { // the run is valid UTF-8: i+2 is in it
			b = append(b, run[:i]...)
			b = append(b, `\u202`...)
			b = append(b, "89"[c-0xA8])
		} else {
			b = append(b, run[:i+3]...)
		}
		run = run[i+3:]
	}
}

// appendEscaped appends the escape of c, an ASCII byte a JSON string
// cannot hold as it is.
func appendEscaped(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

// An object writes the members of one JSON object: a comma before each
// but the first. A key that is a struct field's name is written as it
// is (each is plain ASCII); a map's keys are escaped.
type object struct {
	e     *encoder
	first bool
}

// object starts an object.
func (e *encoder) object() object {
	e.b = append(e.b, '{')
	return object{e: e, first: true}
}

// end ends the object.
func (o *object) end() { o.e.b = append(o.e.b, '}') }

// key starts the member named k, a field name that needs no escaping.
func (o *object) key(k string) {
	if !o.first {
		o.e.b = append(o.e.b, ',')
	}
	o.first = false
	o.e.b = append(o.e.b, '"')
	o.e.b = append(o.e.b, k...)
	o.e.b = append(o.e.b, '"', ':')
}

// mapKey starts the member named k, a map's key.
func (o *object) mapKey(k string) {
	if !o.first {
		o.e.b = append(o.e.b, ',')
	}
	o.first = false
	o.e.b = appendString(o.e.b, k)
	o.e.b = append(o.e.b, ':')
}

// string writes the member k: v.
func (o *object) string(k, v string) {
	o.key(k)
	o.e.b = appendString(o.e.b, v)
}

// omitString writes the member k: v unless v is empty (omitempty).
func (o *object) omitString(k, v string) {
	if v != "" {
		o.string(k, v)
	}
}

// omitBool writes the member k: true when v is (omitempty).
func (o *object) omitBool(k string, v bool) {
	if v {
		o.key(k)
		o.e.b = append(o.e.b, "true"...)
	}
}

// omitInt writes the member k: *v unless v is nil (omitempty).
func (o *object) omitInt(k string, v *int64) {
	if v != nil {
		o.key(k)
		o.e.b = strconv.AppendInt(o.e.b, *v, 10)
	}
}

// appendStrings appends a list of strings; nil is null.
func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// encodeMap writes m as an object, its keys in order as encoding/json
// sorts them, each value with value; nil is null. The keys are sorted on
// e.keys, a stack that nested maps share, so that a build sorts without
// allocating once the stack is deep enough.
func encodeMap[V any](e *encoder, m map[string]V, value func(*encoder, V)) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	keys := e.keys[start:] // a nested map may move e.keys; this stays as it is
	slices.Sort(keys)
	o := e.object()
	for _, k := range keys {
		o.mapKey(k)
		value(e, m[k])
	}
	o.end()
	e.keys = e.keys[:start]
}
