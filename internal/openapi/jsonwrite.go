package openapi

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/protorest/protorest/internal/jsonstr"
)

// The JSON primitives of encode.go. Each writes what encoding/json writes
// with SetEscapeHTML(false): encode_test.go holds them to it.
//
// An object's members are appended each after a comma, its key written
// with it (`,"name":`, a constant for a struct field); endObject then
// turns the first comma into the object's '{'. So a member that
// omitempty leaves out costs only its test.

// endObject ends the object whose members were appended to b from start
// on.
func endObject(b []byte, start int) []byte {
	if len(b) == start {
		return append(b, "{}"...)
	}
	b[start] = '{'
	return append(b, '}')
}

// appendMapKey appends a member's comma and key k, escaped.
func appendMapKey(b []byte, k string) []byte {
	b = append(b, ',')
	b = appendString(b, k)
	return append(b, ':')
}

// omitString appends the member key: v unless v is empty (omitempty); key
// is `,"name":`.
func omitString(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendString(append(b, key...), v)
}

// omitTrue appends the member key: true when v is (omitempty).
func omitTrue(b []byte, key string, v bool) []byte {
	if !v {
		return b
	}
	b = append(b, key...)
	return append(b, "true"...)
}

// omitUint appends the member key: *v unless v is nil (omitempty).
func omitUint(b []byte, key string, v *uint64) []byte {
	if v == nil {
		return b
	}
	return strconv.AppendUint(append(b, key...), *v, 10)
}

// omitNumber appends the member key: the number v unless it is ""
// (omitempty); v is a JSON number, as encoding/json requires.
func omitNumber(b []byte, key string, v json.Number) []byte {
	if v == "" {
		return b
	}
	return append(append(b, key...), v...)
}

// appendString appends s as a JSON string: the quote, the backslash and
// control characters escaped (\b, \f, \n, \r, \t or \u00XX), U+2028 and
// U+2029 too, and each byte of invalid UTF-8 written as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for {
		i := jsonstr.Index(s)
		b = appendRun(b, s[:i])
		if i == len(s) {
			return append(b, '"')
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = appendEscaped(b, c)
		} else {
			b = append(b, `\ufffd`...) // Index stops at a multi-byte rune only when it is invalid
		}
		s = s[i+1:]
	}
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

// omitObject appends the member key: v, with value, unless v is nil
// (omitempty); key is `,"name":`.
func omitObject[T any](e *encoder, b []byte, key string, v *T, value func(*encoder, []byte, *T) []byte) []byte {
	if v == nil {
		return b
	}
	return value(e, append(b, key...), v)
}

// omitList appends the member key: list, each item with item, unless it
// is empty (omitempty); key is `,"name":`.
func omitList[T any](e *encoder, b []byte, key string, list []T, item func(*encoder, []byte, T) []byte) []byte {
	if len(list) == 0 {
		return b
	}
	return appendList(e, append(b, key...), list, item)
}

// appendList appends list as an array, each item with item; nil is null.
func appendList[T any](e *encoder, b []byte, list []T, item func(*encoder, []byte, T) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(e, b, v)
	}
	return append(b, ']')
}

// string appends s as a JSON string: appendString, as an item of
// appendList.
func (*encoder) string(b []byte, s string) []byte { return appendString(b, s) }

// omitMap appends the member key: m, each value with value, unless it is
// empty (omitempty); key is `,"name":`.
func omitMap[V any](e *encoder, b []byte, key string, m map[string]V, value func(*encoder, []byte, V) []byte) []byte {
	if len(m) == 0 {
		return b
	}
	return appendMap(e, append(b, key...), m, value)
}

// appendMap appends m as an object, its keys in order as encoding/json
// sorts them, each value with value; nil is null. The keys are sorted on
// e.keys, a stack that nested maps share, so that a build sorts without
// allocating once the stack is deep enough.
func appendMap[V any](e *encoder, b []byte, m map[string]V, value func(*encoder, []byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	base := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	keys := e.keys[base:] // a nested map may move e.keys; this stays as it is
	slices.Sort(keys)
	start := len(b)
	for _, k := range keys {
		b = appendMapKey(b, k)
		b = value(e, b, m[k])
	}
	e.keys = e.keys[:base]
	return endObject(b, start)
}
