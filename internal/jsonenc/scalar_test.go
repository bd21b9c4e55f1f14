package jsonenc

import "testing"

func TestAppendString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{"q\"b\\\n\r\t\b\f\x01", `"q\"b\\\n\r\t\b\f\u0001"`},
		{"é😀\u2028<>&", `"é😀` + "\u2028" + `<>&"`},
		{"bad \xff utf-8", "\"bad \uFFFD utf-8\""},
	} {
		if got := string(AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
