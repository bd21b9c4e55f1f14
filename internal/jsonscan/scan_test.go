package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// check compares the Scanner with encoding/json on data: with
// LoneSurrogates set, Skip takes a value exactly when encoding/json takes
// it (and data is valid UTF-8, which encoding/json does not check), and a
// string reads as encoding/json unescapes it. Without LoneSurrogates it
// takes less, never more.
func check(t *testing.T, data []byte) {
	valid := utf8.Valid(data) && json.Valid(data)
	var lenient, strict Scanner
	lenient.LoneSurrogates = true
	lenient.Reset(data, 10000)
	strict.Reset(data, 10000)
	lenient.Space()
	strict.Space()
	lok := lenient.Skip(1 << 30)
	lenient.Space()
	lok = lok && lenient.AtEnd()
	sok := strict.Skip(1 << 30)
	strict.Space()
	sok = sok && strict.AtEnd()
	if lok != valid {
		t.Fatalf("Skip(%q) with LoneSurrogates = %v, encoding/json: %v", data, lok, valid)
	}
	if sok && !lok {
		t.Fatalf("Skip(%q) took more without LoneSurrogates", data)
	}
	if !valid || bytes.TrimLeft(data, " \t\r\n")[0] != '"' {
		return
	}
	var want string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	lenient.Reset(data, 10000)
	lenient.Space()
	got, ok := lenient.Str()
	if !ok || string(got) != want {
		t.Fatalf("Str(%q) = %q, %v; encoding/json: %q", data, got, ok, want)
	}
}

var seeds = []string{
	``, ` `, `{}`, `[]`, `"x"`, `1.5e3`, `-0`, `01`, `1.`, `.5`, `-`, `1e+`, `null`, `true`, `nul`, `tru`,
	`{"a":1,"b":[1,2,{"c":null}]}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `[1 2]`, `{"a":1} x`,
	`"\u00e9\n\"\\\/\b\f\r\t"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`,
	`"\ud800\uZZZZ"`, `"\x"`, `"\u12"`, "\"\x01\"", "\"\xff\"", `"é"`, " [ 1 , { \"a\" : [ ] } ] ",
}

func TestScanner(t *testing.T) {
	t.Parallel()
	for _, s := range seeds {
		check(t, []byte(s))
	}
	// encoding/json's depth limit: 10000 arrays and objects open at once.
	for _, n := range []int{9999, 10000, 10001} {
		check(t, []byte(strings.Repeat("[", n)+strings.Repeat("]", n)))
		check(t, []byte(strings.Repeat(`{"a":`, n)+"1"+strings.Repeat("}", n)))
		check(t, []byte(strings.Repeat(`{"a":`, n-1)+"{}"+strings.Repeat("}", n-1)))
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(check)
}

func TestNumberLen(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{
		"0": 1, "-0": 2, "12": 2, "1.5": 3, "-1.5e-3": 7, "1E+2": 4, "0.0": 3, "01": 1, "1.5.5": 3, "1e5e": 3,
		"": -1, "-": -1, "+1": -1, ".5": -1, "1.": -1, "1e": -1, "1e+": -1, "x": -1,
	} {
		n, ok := NumberLen(s)
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("NumberLen(%q) = %d, want %d", s, n, want)
		}
		if bn, bok := NumberLen([]byte(s)); bn != n && (bok || n != -1) {
			t.Errorf("NumberLen([]byte(%q)) = %d, %v; of the string: %d", s, bn, bok, n)
		}
	}
}
