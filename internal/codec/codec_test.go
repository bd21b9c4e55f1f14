package codec

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

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
