package openapi

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
)

// encodingJSON is what the hand-written encoder is held to: encoding/json
// as Build used it before, HTML left as it is.
func encodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeDocument(d *Document) []byte {
	var e encoder
	return e.document(nil, d)
}

// checkSameJSON fails unless the encoder writes d as encoding/json does,
// byte for byte.
func checkSameJSON(t *testing.T, d *Document) {
	t.Helper()
	got, want := encodeDocument(d), encodingJSON(t, d)
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the encoder and encoding/json differ at byte %d:\n got …%s\nwant …%s", i, excerpt(got, i), excerpt(want, i))
	}
}

func excerpt(b []byte, i int) string {
	return string(b[max(0, i-80):min(len(b), i+80)])
}

// The documents the builder makes, under each JSON option that changes
// them.
func TestEncodeBuiltDocuments(t *testing.T) {
	t.Parallel()
	routes := shopRoutes(t, map[string]int{"CreateItem": 201, "DeleteItem": 204})
	routes = append(routes, Route{Method: "GET", Template: mustParse(t, "/files/{id}"), Summary: "A <file> & \"more\".", Description: "As it is.\n\n\u2028"},
		Route{Method: "GET", Template: mustParse(t, "/healthz")})
	for _, opts := range []Options{
		{},
		{Title: "Shop", Version: "1.2.3", Description: "<b>Shops</b> & items", Servers: []string{"/api", "https://x/"}},
		{JSON: protojson.MarshalOptions{EmitUnpopulated: true}},
		{JSON: protojson.MarshalOptions{UseProtoNames: true, UseEnumNumbers: true}},
	} {
		checkSameJSON(t, New(routes, opts))
		if got, want := Build(routes, opts), encodingJSON(t, New(routes, opts)); !bytes.Equal(got, want) {
			t.Errorf("Build(%+v) is not encoding/json's document", opts)
		}
	}
}

// Random documents: every field of every model type, set or not, with
// strings that need escaping. The model is filled by reflection, so a
// field added to it and forgotten in encode.go fails here.
func TestEncodeRandomDocuments(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		checkSameJSON(t, randomDocument(seed))
	}
}

func FuzzEncodeDocument(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkSameJSON(t, randomDocument(seed))
	})
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringPieces {
		f.Add(s)
	}
	f.Add("plain text, long enough to be scanned eight bytes at a time")
	f.Add("\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa\xe2\x82\xac\xe2\x80")
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString([]byte("x"), s)
		want := encodingJSON(t, s)
		want = append([]byte("x"), want[:len(want)-1]...)
		if !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// stringPieces are what random strings are made of: each kind of byte
// encoding/json escapes, or writes as it is, or replaces.
var stringPieces = []string{
	"", "a", "name", " ", "<", ">", "&", `"`, `\`, "/", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
	"é", "😀", "\u2028", "\u2029", "\u2027", "\ufffd", "\xff", "\xe2\x80", "\xed\xa0\x80", "#/components/schemas/a.B",
}

func randomString(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return ""
	}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(stringPieces[r.IntN(len(stringPieces))])
	}
	return b.String()
}

func randomDocument(seed uint64) *Document {
	r := rand.New(rand.NewPCG(seed, seed>>32|1))
	d := new(Document)
	fillRandom(r, reflect.ValueOf(d).Elem(), 0)
	return d
}

// fillRandom sets v, and what it holds, to random values; pointers,
// slices and maps are nil or empty now and then, more often deeper down.
func fillRandom(r *rand.Rand, v reflect.Value, depth int) {
	absent := func() bool { return r.IntN(8) < min(depth, 7) || r.IntN(5) == 0 }
	switch v.Kind() {
	case reflect.String:
		if v.Type() == reflect.TypeFor[json.Number]() { // a number's JSON, or "" (omitted)
			v.SetString([]string{"", "0", "-3", "1.5", "4294967295", "1e-3"}[r.IntN(6)])
			return
		}
		v.SetString(randomString(r))
	case reflect.Uint64:
		v.SetUint([]uint64{0, 1, 3, 1<<64 - 1}[r.IntN(4)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int64:
		v.SetInt([]int64{0, 1, -1, 4294967295, -1 << 63, 1<<63 - 1}[r.IntN(6)])
	case reflect.Pointer:
		if absent() {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fillRandom(r, v.Elem(), depth+1)
	case reflect.Struct:
		if p, ok := v.Addr().Interface().(*Properties); ok {
			for range r.IntN(4) {
				s := new(Schema)
				fillRandom(r, reflect.ValueOf(s).Elem(), depth+1)
				p.Add(randomString(r), []*Schema{s, nil}[r.IntN(4)/3])
			}
			return
		}
		if m, ok := v.Addr().Interface().(*MediaTypes); ok {
			for range r.IntN(4) {
				t := new(MediaType)
				fillRandom(r, reflect.ValueOf(t).Elem(), depth+1)
				m.Add(randomString(r), []*MediaType{t, nil}[r.IntN(4)/3])
			}
			return
		}
		for i := range v.NumField() {
			fillRandom(r, v.Field(i), depth)
		}
	case reflect.Slice:
		if absent() {
			return
		}
		n := r.IntN(4)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fillRandom(r, v.Index(i), depth+1)
		}
	case reflect.Map:
		if absent() {
			return
		}
		v.Set(reflect.MakeMap(v.Type()))
		for range r.IntN(4) {
			val := reflect.New(v.Type().Elem()).Elem()
			fillRandom(r, val, depth+1)
			v.SetMapIndex(reflect.ValueOf(randomString(r)), val)
		}
	case reflect.Interface: // an enum's value
		values := []any{randomString(r), int32(r.Int32()) - 1<<30, nil, true, 1.5, int64(-7), uint64(1 << 63), json.Number("12")}
		if x := values[r.IntN(len(values))]; x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		panic("fillRandom: no random " + v.Type().String())
	}
}

// Maps in maps share the key stack; objects empty and not.
func TestAppendMap(t *testing.T) {
	t.Parallel()
	e := encoder{keys: make([]string, 0, 1)} // nested maps move the key stack
	got := appendMap(&e, []byte("x"), map[string]map[string]*Schema{
		"b": {"z": nil, "y": {Type: "string"}, "\u2028": {}},
		"a": nil,
		"c": {},
	}, func(e *encoder, b []byte, m map[string]*Schema) []byte { return appendMap(e, b, m, (*encoder).schema) })
	want := `x{"a":null,"b":{"y":{"type":"string"},"z":null,"\u2028":{}},"c":{}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if len(e.keys) != 0 {
		t.Errorf("%d keys left on the stack", len(e.keys))
	}
}
