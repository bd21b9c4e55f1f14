package codec

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

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

func TestJSONDepthLimit(t *testing.T) {
	t.Parallel()
	c := &JSON{}
	deep := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat(`[`, n-1) + strings.Repeat(`]`, n-1) + `}`)
	}
	if err := c.Unmarshal(deep(100), &structpb.Struct{}); err != nil {
		t.Errorf("depth 100: %v", err)
	}
	var de *DepthError
	if err := c.Unmarshal(deep(101), &structpb.Struct{}); !errors.As(err, &de) {
		t.Errorf("depth 101: err = %v, want a DepthError", err)
	}
	// 32 levels of objects inside a Struct must pass (the spec's minimum).
	in := strings.Repeat(`{"a":`, 32) + `1` + strings.Repeat(`}`, 32)
	if err := c.Unmarshal([]byte(in), &structpb.Struct{}); err != nil {
		t.Errorf("32 nested objects: %v", err)
	}
}

func TestJSONBlankBody(t *testing.T) {
	t.Parallel()
	m := wrapperspb.String("kept")
	if err := (&JSON{}).Unmarshal([]byte(" \n\t"), m); err != nil || m.GetValue() != "kept" {
		t.Errorf("blank body: err=%v, value=%q", err, m.GetValue())
	}
}

func TestCleanErrorTruncates(t *testing.T) {
	t.Parallel()
	long := `"` + strings.Repeat("x", 1<<20) + `"`
	err := (&JSON{}).Unmarshal([]byte(`{"a":`+long+`}`), &wrapperspb.Int32Value{})
	if err == nil {
		t.Fatal("want an error")
	}
	msg := CleanError(err)
	if len(msg) > 210 {
		t.Errorf("message is %d bytes long", len(msg))
	}
	if strings.HasPrefix(msg, "proto:") {
		t.Errorf("message keeps the proto: prefix: %q", msg)
	}
}

func TestProtoRoundTrip(t *testing.T) {
	t.Parallel()
	in := wrapperspb.String("hi")
	b, err := Proto{}.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := &wrapperspb.StringValue{}
	if err := (Proto{}).Unmarshal(b, out); err != nil || !proto.Equal(in, out) {
		t.Errorf("round trip: %v, %v", out, err)
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
