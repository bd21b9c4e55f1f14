package grpcproxy_test

import (
	"context"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/classlimit"
	"github.com/protorest/protorest/internal/grpcproxy"
)

// TestLimit: with the gRPC class capped at 2, two open streams leave a
// third call UNAVAILABLE at once, the upstream not called; once one
// stream ends, calls go through again.
func TestLimit(t *testing.T) {
	t.Parallel()
	l := classlimit.New(classlimit.Caps{classlimit.GRPC: 2})
	c, _ := start(t, grpcproxy.Settings{Limiter: l})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var streams []testgrpc.TestService_FullDuplexCallClient
	for range 2 {
		s, err := c.FullDuplexCall(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send(&testgrpc.StreamingOutputCallRequest{Payload: &testgrpc.Payload{Body: []byte("x")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Recv(); err != nil { // admitted: the upstream echoes
			t.Fatal(err)
		}
		streams = append(streams, s)
	}
	start := time.Now()
	_, err := c.UnaryCall(ctx, &testgrpc.SimpleRequest{})
	if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != "too many gRPC calls in flight: try again" {
		t.Errorf("third call: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the refusal took %v", took)
	}
	if n := l.Open(classlimit.GRPC); n != 2 {
		t.Errorf("open: %d, want 2", n)
	}
	streams[0].CloseSend()
	if _, err := streams[0].Recv(); err != io.EOF {
		t.Fatalf("end of the first stream: %v", err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err := c.UnaryCall(ctx, &testgrpc.SimpleRequest{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a call once a stream ended: %v", err)
		}
	}
}
