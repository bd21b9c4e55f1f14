package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestBombFrame: the gzip bomb is one compressed gRPC message, a
// BytesValue of zeros exactly n bytes long once inflated, that gzip
// shrinks a thousandfold.
func TestBombFrame(t *testing.T) {
	const n = 8 << 20
	frame := bombFrame(n)
	if frame[0] != 1 || int(binary.BigEndian.Uint32(frame[1:5])) != len(frame)-5 {
		t.Fatalf("prefix % x for %d bytes", frame[:5], len(frame)-5)
	}
	zr, err := gzip.NewReader(bytes.NewReader(frame[5:]))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := io.ReadAll(zr)
	if err != nil || len(msg) != n {
		t.Fatalf("inflated to %d bytes (%v), want %d", len(msg), err, n)
	}
	var v wrapperspb.BytesValue
	if err := proto.Unmarshal(msg, &v); err != nil || len(v.Value) == 0 || bytes.ContainsFunc(v.Value, func(r rune) bool { return r != 0 }) {
		t.Fatalf("not a BytesValue of zeros: %v", err)
	}
	if len(frame) > n/500 {
		t.Errorf("%d bytes compressed: not a bomb", len(frame))
	}
}

func TestLegitStats(t *testing.T) {
	var took []time.Duration
	for i := range 100 {
		took = append(took, time.Duration(i+1)*time.Millisecond)
	}
	for _, tt := range []struct {
		s    legitStats
		want string
	}{
		{legitStats{}, "no request finished"},
		{legitStats{took: took}, "100 of 100 answered 200; p50 51 ms, p99 100 ms"},
		{legitStats{took: took[:1], failed: map[string]int{"timeout": 2}, cut: 1}, "1 of 4 answered 200; p50 1.0 ms, p99 1.0 ms; 2 failed (timeout: 2); p99 of all, a failure counted as the slowest: failed; 1 still waiting at the end"},
		{legitStats{took: took, failed: map[string]int{"503 busy": 1}}, "100 of 101 answered 200; p50 51 ms, p99 100 ms; 1 failed (503 busy: 1); p99 of all, a failure counted as the slowest: 100 ms"},
		{legitStats{failed: map[string]int{"503": 2, "timeout": 1}}, "0 of 3 answered 200; 3 failed (503: 2, timeout: 1); p99 of all, a failure counted as the slowest: failed"},
	} {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}
