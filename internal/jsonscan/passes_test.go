package jsonscan

import "testing"

func TestNestingDepth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{``, 0},
		{`1`, 0},
		{`{}`, 1},
		{`{"a":[1,{"b":[]}]}`, 4},
		{`"{{{{"`, 0},
		{`{"a":"\"{["}`, 1},
		{`[[[`, 3},
	}
	for _, tt := range tests {
		if got := NestingDepth([]byte(tt.in), 100); got != tt.want {
			t.Errorf("NestingDepth(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func FuzzNestingDepth(f *testing.F) {
	for _, s := range []string{`{}`, `[[]]`, `"\"["`, `{"a":[{"b":1}]}`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := NestingDepth([]byte(s), 1000)
		if d < 0 || d > len(s) {
			t.Fatalf("depth %d for %d bytes", d, len(s))
		}
	})
}

func TestCompact(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"a": 1, "b": [1, 2]}`, `{"a":1,"b":[1,2]}`},
		{`{"a b": "c, d", "e": "\" x"}`, `{"a b":"c, d","e":"\" x"}`},
		{"{\n  \"a\": \"\\\\\"\n}", `{"a":"\\"}`},
		{`{}`, `{}`},
	}
	for _, tt := range tests {
		if got := string(Compact([]byte(tt.in))); got != tt.want {
			t.Errorf("Compact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
