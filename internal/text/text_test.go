package text_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/text"
)

func TestCleanErrorTruncates(t *testing.T) {
	t.Parallel()
	long := `"` + strings.Repeat("x", 1<<20) + `"`
	err := (&codec.JSON{}).Unmarshal([]byte(`{"a":`+long+`}`), &wrapperspb.Int32Value{})
	if err == nil {
		t.Fatal("want an error")
	}
	msg := text.CleanError(err)
	if len(msg) > 210 {
		t.Errorf("message is %d bytes long", len(msg))
	}
	if strings.HasPrefix(msg, "proto:") {
		t.Errorf("message keeps the proto: prefix: %q", msg)
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		n       int
		cut, tr string
	}{
		{"abc", 3, "abc", "abc"},
		{"abcd", 3, "abc", "abc…"},
		{"aé", 2, "a", "a…"}, // é is two bytes: the cut keeps whole runes
		{"日本", 4, "日", "日…"},
		{"", 0, "", ""},
	}
	for _, tt := range tests {
		if got := text.Cut(tt.in, tt.n); got != tt.cut || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.cut)
		}
		if got := text.Truncate(tt.in, tt.n); got != tt.tr {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.tr)
		}
	}
	if got := text.Quote(strings.Repeat("x", 100)); got != `"`+strings.Repeat("x", 48)+`…"` {
		t.Errorf("Quote keeps %d bytes", len(got))
	}
}
