package openapi

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/protorest/protorest/internal/jsonscan"
)

// YAML returns the JSON document doc as YAML 1.2 block style, keys in
// the JSON's order. Every string is double-quoted with JSON's escapes
// (YAML's double-quoted style is a superset of JSON strings), so that no
// value can be read as another type ("on", "1.0", "null"); keys are bare
// when they are plain identifiers. doc must be valid JSON, as Build's
// is; YAML panics otherwise.
func YAML(doc []byte) []byte {
	// A lone surrogate escape reads as U+FFFD, and a document may nest as
	// deep as encoding/json lets it, which is what YAML read it with.
	s := jsonscan.Scanner{LoneSurrogates: true}
	s.Reset(doc, 10000)
	v, ok := readValue(&s)
	if !ok {
		panic("openapi: YAML of invalid JSON, at offset " + strconv.Itoa(s.Pos()))
	}
	var out bytes.Buffer
	writeYAML(&out, v, 0, false)
	return out.Bytes()
}

// A yamlObject keeps the keys of a JSON object in order.
type yamlObject struct {
	keys []string
	vals []any
}

// A yamlNumber is a JSON number, as the document has it.
type yamlNumber string

// readValue reads one JSON value: a *yamlObject, []any, string,
// yamlNumber, bool or nil.
func readValue(s *jsonscan.Scanner) (any, bool) {
	s.Space()
	switch c := s.Peek(); c {
	case '{':
		obj := &yamlObject{}
		empty, ok := s.Open('{')
		for more := !empty; ok && more; {
			var k []byte
			if k, ok = s.Str(); !ok {
				break
			}
			key := string(k)
			s.Space()
			if !s.Consume(':') {
				return nil, false
			}
			var v any
			if v, ok = readValue(s); ok {
				obj.keys = append(obj.keys, key)
				obj.vals = append(obj.vals, v)
				more, ok = s.More('}')
			}
		}
		return obj, ok
	case '[':
		list := []any{}
		empty, ok := s.Open('[')
		for more := !empty; ok && more; {
			var v any
			if v, ok = readValue(s); ok {
				list = append(list, v)
				more, ok = s.More(']')
			}
		}
		return list, ok
	case '"':
		str, ok := s.Str()
		return string(str), ok
	case 't':
		return true, s.Literal("true")
	case 'f':
		return false, s.Literal("false")
	case 'n':
		return nil, s.Literal("null")
	}
	n, ok := s.Number()
	return yamlNumber(n), ok
}

// writeYAML writes v at indent. inline says the value follows a key or a
// "- " on the same line.
func writeYAML(out *bytes.Buffer, v any, indent int, inline bool) {
	switch x := v.(type) {
	case *yamlObject:
		if len(x.keys) == 0 {
			out.WriteString("{}\n")
			return
		}
		if inline {
			out.WriteByte('\n')
		}
		for i, k := range x.keys {
			pad(out, indent)
			writeKey(out, k)
			out.WriteByte(':')
			writeChild(out, x.vals[i], indent)
		}
	case []any:
		if len(x) == 0 {
			out.WriteString("[]\n")
			return
		}
		if inline {
			out.WriteByte('\n')
		}
		for _, item := range x {
			pad(out, indent)
			out.WriteByte('-')
			writeChild(out, item, indent)
		}
	default:
		writeScalar(out, x)
		out.WriteByte('\n')
	}
}

// writeChild writes the value after "key:" or "-": a scalar or an empty
// collection on the same line, else a block two spaces deeper.
func writeChild(out *bytes.Buffer, v any, indent int) {
	switch x := v.(type) {
	case *yamlObject:
		if len(x.keys) > 0 {
			writeYAML(out, x, indent+2, true)
			return
		}
	case []any:
		if len(x) > 0 {
			writeYAML(out, x, indent+2, true)
			return
		}
	}
	out.WriteByte(' ')
	writeYAML(out, v, indent+2, false)
}

func writeScalar(out *bytes.Buffer, v any) {
	switch x := v.(type) {
	case string:
		writeQuoted(out, x)
	case yamlNumber:
		out.WriteString(string(x))
	case bool:
		out.WriteString(strconv.FormatBool(x))
	case nil:
		out.WriteString("null")
	}
}

// writeKey writes a key bare when YAML reads it back as that string,
// else quoted.
func writeKey(out *bytes.Buffer, k string) {
	if plainKey(k) {
		out.WriteString(k)
		return
	}
	writeQuoted(out, k)
}

// plainKey reports whether k is a letter or '_' followed by letters,
// digits, '_', '-' and '.', and none of the words YAML reads as another
// type.
func plainKey(k string) bool {
	if k == "" {
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
	switch strings.ToLower(k) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// writeQuoted writes s as a JSON string, as the JSON document has it.
func writeQuoted(out *bytes.Buffer, s string) {
	out.Write(appendString(out.AvailableBuffer(), s))
}

func pad(out *bytes.Buffer, n int) {
	for range n {
		out.WriteByte(' ')
	}
}
