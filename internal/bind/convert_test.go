package bind

import (
	"strings"
	"testing"
)

func TestIsJSONNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"0", true}, {"-0", true}, {"12", true}, {"1.5", true}, {"-1.5e-3", true},
		{"1E+2", true}, {"0.0", true},
		{"", false}, {"-", false}, {"+1", false}, {"01", false}, {".5", false},
		{"1.", false}, {"1e", false}, {"1e+", false}, {"0x10", false}, {"1_000", false},
		{" 1", false}, {"1 ", false}, {"inf", false}, {"NaN", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := isJSONNumber(tt.in); got != tt.want {
				t.Errorf("isJSONNumber(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		secs  int64
		nanos int32
		ok    bool
	}{
		{in: "1s", secs: 1, ok: true},
		{in: "1.5s", secs: 1, nanos: 5e8, ok: true},
		{in: "-1.5s", secs: -1, nanos: -5e8, ok: true},
		{in: "-0.5s", nanos: -5e8, ok: true},
		{in: "+2s", secs: 2, ok: true},
		{in: ".25s", nanos: 25e7, ok: true},
		{in: "3.s", secs: 3, ok: true},
		{in: "0.000000001s", nanos: 1, ok: true},
		{in: "315576000000s", secs: 315576000000, ok: true},
		{in: "-315576000000s", secs: -315576000000, ok: true},
		{in: "90m", secs: 5400, ok: true},
		{in: "1h30m", secs: 5400, ok: true},
		{in: "-1m0.5s", secs: -60, nanos: -5e8, ok: true},
		{in: "0", ok: true},
		{in: "315576000001s"},
		{in: "s"},
		{in: ".s"},
		{in: "01s", secs: 1, ok: true}, // Go syntax
		{in: "1.5.5s"},
		{in: "-.s"},
		{in: "1.5"},
		{in: "1 s"},
		{in: ""},
		{in: "abc"},
		{in: "1e3s"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			secs, nanos, ok := parseDuration(tt.in)
			if ok != tt.ok || ok && (secs != tt.secs || nanos != tt.nanos) {
				t.Errorf("parseDuration(%q) = %d, %d, %v; want %d, %d, %v", tt.in, secs, nanos, ok, tt.secs, tt.nanos, tt.ok)
			}
		})
	}
}

func TestSnakePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"displayName", "display_name", true},
		{"display_name", "display_name", true},
		{"inner.s", "inner.s", true},
		{"inner.deeperThing.fooBar", "inner.deeper_thing.foo_bar", true},
		{"", "", false},
		{"a..b", "a..b", false},
		{"a.", "a.", false},
		{"1a", "1a", false},
		{"a b", "a b", false},
		{"a-b", "a-b", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, ok := snakePath(tt.in)
			if ok != tt.ok || ok && got != tt.want {
				t.Errorf("snakePath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestUnescape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		plus bool
		want string
		ok   bool
	}{
		{name: "plain", in: "abc", want: "abc", ok: true},
		{name: "escape", in: "a%20b%2fc", want: "a b/c", ok: true},
		{name: "upper and lower hex", in: "%4a%4A", want: "JJ", ok: true},
		{name: "plus kept", in: "a+b", want: "a+b", ok: true},
		{name: "plus as space", in: "a+b", plus: true, want: "a b", ok: true},
		{name: "encoded plus", in: "a%2Bb", plus: true, want: "a+b", ok: true},
		{name: "utf-8", in: "%E4%BD%A0", want: "你", ok: true},
		{name: "bad hex", in: "%zz"},
		{name: "truncated", in: "a%2"},
		{name: "bare percent", in: "%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := unescape(tt.in, tt.plus)
			if ok != tt.ok || got != tt.want {
				t.Errorf("unescape(%q, %v) = %q, %v; want %q, %v", tt.in, tt.plus, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{name: "short", in: "abc", want: `"abc"`},
		{name: "exactly 64", in: strings.Repeat("x", 64), want: `"` + strings.Repeat("x", 64) + `"`},
		{name: "65 is cut", in: strings.Repeat("x", 65), want: `"` + strings.Repeat("x", 64) + `…"`},
		{name: "cut on a rune boundary", in: strings.Repeat("x", 63) + "你好", want: `"` + strings.Repeat("x", 63) + `…"`},
		{name: "control characters escaped", in: "a\nb\x00", want: `"a\nb\x00"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := quote(tt.in); got != tt.want {
				t.Errorf("quote(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestNameTable(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, smallTable, smallTable + 1, 50} {
		var tab nameTable[int]
		for i := range n {
			if !tab.add(strings.Repeat("k", i+1), i) {
				t.Fatalf("add %d reported a duplicate", i)
			}
		}
		if tab.add("k", 99) {
			t.Errorf("n=%d: duplicate add succeeded", n)
		}
		for i := range n {
			if v, ok := tab.get(strings.Repeat("k", i+1)); !ok || v != i {
				t.Errorf("n=%d: get(%d) = %d, %v", n, i, v, ok)
			}
		}
		if _, ok := tab.get("absent"); ok {
			t.Errorf("n=%d: found an absent key", n)
		}
	}
}
