package openapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/protorest/protorest/internal/jsonscan"
)

// checkYAML fails unless YAML writes doc as yamlByTree does, and panics
// exactly when doc is not JSON.
func checkYAML(t *testing.T, doc []byte) {
	t.Helper()
	want, ok := yamlByTree(doc)
	var got []byte
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		got = YAML(doc)
		return false
	}()
	switch {
	case panicked != !ok:
		t.Fatalf("YAML(%q): panicked %v, but valid JSON %v", doc, panicked, ok)
	case ok && !bytes.Equal(got, want):
		t.Fatalf("YAML(%q):\n%s\nwant\n%s", doc, got, want)
	}
}

// The documents of random models, as Build writes them.
func TestYAMLRandomDocuments(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		checkYAML(t, encodeDocument(randomDocument(seed)))
	}
}

// The shop's document under each JSON option.
func TestYAMLBuiltDocuments(t *testing.T) {
	t.Parallel()
	routes := shopRoutes(t, nil)
	checkYAML(t, Build(routes, Options{}))
	checkYAML(t, Build(routes, Options{Title: "on", Version: "1.0"}))
}

var yamlSeeds = []string{
	`{}`, `[]`, `"x"`, `1`, `-1.5e3`, `true`, `false`, `null`, ` { } `,
	`{"a":{},"b":[],"c":[{}],"d":[[]],"e":[1,[2,[3]]]}`,
	`{"on":1,"yes":"no","a.b-c_d":null,"1a":"1","":"","k\u0041":"\u0041\n\u2028\ud800"}`,
	`{"x":"<&>","y":"\"\\\/\b\f\n\r\t","z":"é😀"}`,
	`[ 1 , 2 ]`, `{"a":1,}`, `{"a"}`, `[1 2]`, `{"a":1} x`, `"\ud83d\ude00"`, `nul`, `{"a":[}`,
}

func TestYAMLSeeds(t *testing.T) {
	for _, s := range yamlSeeds {
		checkYAML(t, []byte(s))
	}
}

func FuzzYAML(f *testing.F) {
	for _, s := range yamlSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > 4096 {
			return
		}
		checkYAML(t, doc)
	})
}

// BenchmarkYAML writes the YAML of BenchmarkBuildDistinct's document:
// YAML, and yamlByTree (what it replaced) beside it.
func BenchmarkYAML(b *testing.B) {
	doc := Build(distinctRoutes(b, 500)[:5000], Options{})
	if !json.Valid(doc) {
		b.Fatal("invalid document")
	}
	for _, impl := range []struct {
		name string
		yaml func([]byte) []byte
	}{
		{"stream", YAML},
		{"tree", func(doc []byte) []byte { y, _ := yamlByTree(doc); return y }},
	} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				size = len(impl.yaml(doc))
			}
			b.ReportMetric(float64(size), "yaml-bytes")
		})
	}
}

// yamlByTree is YAML as it was first written: the JSON read into a tree of
// values, then the tree written. YAML, which writes as it reads, must
// write the same bytes. It returns false for invalid JSON.
//
// YAML returns the JSON document doc as YAML 1.2 block style, keys in
// the JSON's order. Every string is double-quoted with JSON's escapes
// (YAML's double-quoted style is a superset of JSON strings), so that no
// value can be read as another type ("on", "1.0", "null"); keys are bare
// when they are plain identifiers. doc must be valid JSON, as Build's
// is; YAML panics otherwise.
func yamlByTree(doc []byte) ([]byte, bool) {
	// A lone surrogate escape reads as U+FFFD, and a document may nest as
	// deep as encoding/json lets it, which is what YAML read it with.
	s := jsonscan.Scanner{LoneSurrogates: true}
	s.Reset(doc, 10000)
	s.Space()
	v, ok := treeRead(&s)
	if s.Space(); !ok || !s.AtEnd() {
		return nil, false
	}
	var out bytes.Buffer
	treeWrite(&out, v, 0, false)
	return out.Bytes(), true
}

// A treeObject keeps the keys of a JSON object in order.
type treeObject struct {
	keys []string
	vals []any
}

// A treeNumber is a JSON number, as the document has it.
type treeNumber string

// treeRead reads one JSON value: a *treeObject, []any, string,
// treeNumber, bool or nil.
func treeRead(s *jsonscan.Scanner) (any, bool) {
	s.Space()
	switch c := s.Peek(); c {
	case '{':
		obj := &treeObject{}
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
			if v, ok = treeRead(s); ok {
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
			if v, ok = treeRead(s); ok {
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
	return treeNumber(n), ok
}

// treeWrite writes v at indent. inline says the value follows a key or a
// "- " on the same line.
func treeWrite(out *bytes.Buffer, v any, indent int, inline bool) {
	switch x := v.(type) {
	case *treeObject:
		if len(x.keys) == 0 {
			out.WriteString("{}\n")
			return
		}
		if inline {
			out.WriteByte('\n')
		}
		for i, k := range x.keys {
			treePad(out, indent)
			treeKey(out, k)
			out.WriteByte(':')
			treeChild(out, x.vals[i], indent)
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
			treePad(out, indent)
			out.WriteByte('-')
			treeChild(out, item, indent)
		}
	default:
		treeScalar(out, x)
		out.WriteByte('\n')
	}
}

// treeChild writes the value after "key:" or "-": a scalar or an empty
// collection on the same line, else a block two spaces deeper.
func treeChild(out *bytes.Buffer, v any, indent int) {
	switch x := v.(type) {
	case *treeObject:
		if len(x.keys) > 0 {
			treeWrite(out, x, indent+2, true)
			return
		}
	case []any:
		if len(x) > 0 {
			treeWrite(out, x, indent+2, true)
			return
		}
	}
	out.WriteByte(' ')
	treeWrite(out, v, indent+2, false)
}

func treeScalar(out *bytes.Buffer, v any) {
	switch x := v.(type) {
	case string:
		treeQuoted(out, x)
	case treeNumber:
		out.WriteString(string(x))
	case bool:
		out.WriteString(strconv.FormatBool(x))
	case nil:
		out.WriteString("null")
	}
}

// treeKey writes a key bare when YAML reads it back as that string,
// else quoted.
func treeKey(out *bytes.Buffer, k string) {
	if plainKey([]byte(k)) {
		out.WriteString(k)
		return
	}
	treeQuoted(out, k)
}

// treeQuoted writes s as a JSON string, as the JSON document has it.
func treeQuoted(out *bytes.Buffer, s string) {
	out.Write(appendString(out.AvailableBuffer(), s))
}

func treePad(out *bytes.Buffer, n int) {
	for range n {
		out.WriteByte(' ')
	}
}
