package openapi

import (
	"strconv"
	"strings"

	"github.com/protorest/protorest/internal/jsonscan"
	"github.com/protorest/protorest/internal/jsonstr"
)

// YAML returns the JSON document doc as YAML 1.2 block style, keys in
// the JSON's order. Every string is double-quoted with JSON's escapes
// (YAML's double-quoted style is a superset of JSON strings), so that no
// value can be read as another type ("on", "1.0", "null"); keys are bare
// when they are plain identifiers. doc must be valid JSON, as Build's
// is; YAML panics otherwise. It writes as it reads, token by token.
func YAML(doc []byte) []byte {
	// A lone surrogate escape reads as U+FFFD, and a document may nest as
	// deep as encoding/json lets it, which is what YAML read it with.
	y := yamlWriter{s: jsonscan.Scanner{LoneSurrogates: true}, out: make([]byte, 0, 2*len(doc))}
	y.s.Reset(doc, 10000)
	y.s.Space()
	ok := y.value(0, true)
	if y.s.Space(); !ok || !y.s.AtEnd() {
		panic("openapi: YAML of invalid JSON, at offset " + strconv.Itoa(y.s.Pos()))
	}
	return y.out
}

// A yamlWriter writes the JSON value its scanner reads as YAML.
type yamlWriter struct {
	s   jsonscan.Scanner
	out []byte
}

// value writes the value at the scanner: a collection as a block at
// indent, an empty one as {} or [], a scalar as it is. Unless it is the
// document's top value, it follows "key:" or "-" on their line: a block
// starts on the next line, the rest after a space. It reports whether the
// value was valid JSON.
func (y *yamlWriter) value(indent int, top bool) bool {
	c := y.s.Peek()
	if c != '{' && c != '[' {
		if !top {
			y.out = append(y.out, ' ')
		}
		ok := y.scalar()
		y.out = append(y.out, '\n')
		return ok
	}
	empty, ok := y.s.Open(c)
	switch {
	case !ok:
		return false
	case empty:
		if !top {
			y.out = append(y.out, ' ')
		}
		y.out = append(y.out, c, c+2, '\n') // {} or []
		return true
	}
	if !top {
		y.out = append(y.out, '\n')
	}
	if c == '{' {
		return y.members(indent)
	}
	return y.elements(indent)
}

// members writes the members of an object whose '{' is read, each
// "key:" at indent.
func (y *yamlWriter) members(indent int) bool {
	for {
		y.out = pad(y.out, indent)
		k, ok := y.s.Str()
		if !ok {
			return false
		}
		y.out = appendKey(y.out, k)
		y.out = append(y.out, ':')
		y.s.Space()
		if !y.s.Consume(':') || !y.value(indent+2, false) {
			return false
		}
		if more, ok := y.s.More('}'); !ok || !more {
			return ok
		}
	}
}

// elements writes the elements of an array whose '[' is read, each "-"
// at indent.
func (y *yamlWriter) elements(indent int) bool {
	for {
		y.out = append(pad(y.out, indent), '-')
		if !y.value(indent+2, false) {
			return false
		}
		if more, ok := y.s.More(']'); !ok || !more {
			return ok
		}
	}
}

// scalar writes the string, number, true, false or null at the scanner:
// a string quoted as appendString writes it, a number as the JSON has it.
func (y *yamlWriter) scalar() bool {
	switch y.s.Peek() {
	case '"':
		str, ok := y.s.Str()
		y.out = appendQuoted(y.out, str)
		return ok
	case 't':
		y.out = append(y.out, "true"...)
		return y.s.Literal("true")
	case 'f':
		y.out = append(y.out, "false"...)
		return y.s.Literal("false")
	case 'n':
		y.out = append(y.out, "null"...)
		return y.s.Literal("null")
	}
	n, ok := y.s.Number()
	y.out = append(y.out, n...)
	return ok
}

// appendQuoted appends s, a string's unescaped bytes, as appendString
// writes the string.
func appendQuoted(b, s []byte) []byte {
	if jsonstr.IndexBytes(s) == len(s) { // nothing to escape but, maybe, U+2028 and U+2029
		return append(appendRun(append(b, '"'), string(s)), '"')
	}
	return appendString(b, string(s))
}

// appendKey appends a key bare when YAML reads it back as that string,
// else quoted.
func appendKey(b, k []byte) []byte {
	if plainKey(k) {
		return append(b, k...)
	}
	return appendQuoted(b, k)
}

// plainKey reports whether k is a letter or '_' followed by letters,
// digits, '_', '-' and '.', and none of the words YAML reads as another
// type.
func plainKey(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	if len(k) <= len("false") {
		for _, word := range yamlWords {
			if strings.EqualFold(string(k), word) {
				return false
			}
		}
	}
	return true
}

// yamlWords are the words YAML reads as booleans or null, in any case.
var yamlWords = []string{"true", "false", "null", "yes", "no", "on", "off", "y", "n"}

func pad(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}
