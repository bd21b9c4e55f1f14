package remote

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/render"
)

// TestRecvLimitOutcome: grpc-go's three refusals of a message over the
// receive limit (rpc_util.go), after the response header, become
// render.TooLarge of the limit they quote; a RESOURCE_EXHAUSTED without a
// header (a trailers-only answer: the backend's own), quoting another
// limit than the one set, or in other words, stays as it is.
func TestRecvLimitOutcome(t *testing.T) {
	t.Parallel()
	header := metadata.MD{}
	exhausted := func(msg string) error { return status.Error(codes.ResourceExhausted, msg) }
	for _, tt := range []struct {
		name   string
		limit  int
		err    error
		header metadata.MD
		want   error // nil: err itself
	}{
		{"framed", 4 << 20, exhausted("grpc: received message larger than max (5242891 vs. 4194304)"), header, render.TooLarge(4 << 20)},
		{"decompressed", 1024, exhausted("grpc: message after decompression larger than max (2000 vs. 1024)"), header, render.TooLarge(1024)},
		{"decompressed by a compressor", 1024, exhausted("grpc: received message after decompression larger than max 1024"), header, render.TooLarge(1024)},
		{"the connection's limit", 0, exhausted("grpc: received message larger than max (5242891 vs. 4194304)"), header, render.TooLarge(4 << 20)},
		{"trailers-only", 4 << 20, exhausted("grpc: received message larger than max (5242891 vs. 4194304)"), nil, nil},
		{"another limit", 4 << 20, exhausted("grpc: received message larger than max (20 vs. 10)"), header, nil},
		{"quota", 4 << 20, exhausted("quota exceeded"), header, nil},
		{"another code", 4 << 20, status.Error(codes.Internal, "grpc: received message larger than max (5242891 vs. 4194304)"), header, nil},
		{"not a number", 4 << 20, exhausted("grpc: received message larger than max (5 vs. x)"), header, nil},
		{"no size", 4 << 20, exhausted("grpc: received message larger than max ( vs. 4194304)"), header, nil},
		{"more after", 4 << 20, exhausted("grpc: received message larger than max (5242891 vs. 4194304) and more"), header, nil},
		{"not a status", 4 << 20, errors.New("grpc: received message larger than max (5242891 vs. 4194304)"), header, nil},
		{"no error", 4 << 20, nil, header, nil},
	} {
		got := NewRecvLimit(tt.limit).Outcome(tt.err, tt.header)
		want := tt.want
		if want == nil {
			want = tt.err
		}
		if status.Code(got) != status.Code(want) || got != nil && got.Error() != want.Error() {
			t.Errorf("%s: %v, want %v", tt.name, got, want)
		}
	}
}
