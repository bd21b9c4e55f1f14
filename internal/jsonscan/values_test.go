package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want int
	}{
		{``, 1},
		{`1`, 1},
		{`[0,0,0]`, 4},                    // the list and its three elements
		{`{"a":1,"b":[1,2]}`, 5},          // the object, 1, the list, 1, 2
		{`{"a":"x,[{\"y,"}`, 2},           // commas and brackets in strings do not count
		{`{"val":[0,0,0,0,0,0,0,0]}`, 10}, // the decoding bomb's shape
	} {
		if got := Values([]byte(tt.in)); got != tt.want {
			t.Errorf("Values(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// FuzzValues: for any input Values is at least 1 and at most its length
// and 1; for valid JSON it is at least the values encoding/json decodes.
func FuzzValues(f *testing.F) {
	for _, s := range []string{`{}`, `[[]]`, `"\"["`, `{"a":[{"b":1}]}`, `\`, `[0,0,0]`, `{"a":"x,y"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Values([]byte(s))
		if n < 1 || n > len(s)+1 {
			t.Fatalf("Values = %d for %d bytes", n, len(s))
		}
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			if nodes := countNodes(v); n < nodes {
				t.Fatalf("Values = %d, fewer than the %d values decoded from %q", n, nodes, s)
			}
		}
	})
}

// countNodes counts v and the values it contains.
func countNodes(v any) int {
	n := 1
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			n += countNodes(e)
		}
	case map[string]any:
		for _, e := range v {
			n += countNodes(e)
		}
	}
	return n
}

// BenchmarkValues counts the values of BenchmarkUnary's POST body, and
// of 1 MB of a JSON list of zeros.
func BenchmarkValues(b *testing.B) {
	for _, tt := range []struct{ name, in string }{
		{"probe", `{"name":"abc","i32":5,"tags":["a","b"],"inner":{"s":"x"}}`},
		{"list-1MB", "[" + strings.Repeat("0,", 500_000) + "0]"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			in := []byte(tt.in)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				Values(in)
			}
		})
	}
}
