package invoke

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func TestChainUnaryOrder(t *testing.T) {
	t.Parallel()
	var trace []string
	mk := func(name string) grpc.UnaryServerInterceptor {
		return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			trace = append(trace, name+">"+info.FullMethod)
			resp, err := h(ctx, req)
			trace = append(trace, "<"+name)
			return resp, err
		}
	}
	chain := ChainUnary([]grpc.UnaryServerInterceptor{mk("a"), mk("b"), mk("c")})
	resp, err := chain(context.Background(), "req", &grpc.UnaryServerInfo{FullMethod: "/p.S/M"}, func(ctx context.Context, req any) (any, error) {
		trace = append(trace, "handler")
		return req.(string) + "!", nil
	})
	if err != nil || resp != "req!" {
		t.Fatalf("resp, err = %v, %v", resp, err)
	}
	want := []string{"a>/p.S/M", "b>/p.S/M", "c>/p.S/M", "handler", "<c", "<b", "<a"}
	if !reflect.DeepEqual(trace, want) {
		t.Errorf("trace = %v, want %v", trace, want)
	}
	if ChainUnary(nil) != nil {
		t.Error("ChainUnary(nil) != nil")
	}
}

func TestStreamMetadata(t *testing.T) {
	t.Parallel()
	s := NewStream("/p.S/M")
	ctx := NewContext(context.Background(), s)
	if m, ok := grpc.Method(ctx); !ok || m != "/p.S/M" {
		t.Errorf("grpc.Method = %q, %v", m, ok)
	}
	if err := grpc.SetHeader(ctx, metadata.Pairs("a", "1")); err != nil {
		t.Fatal(err)
	}
	if err := grpc.SendHeader(ctx, metadata.Pairs("a", "2")); err != nil {
		t.Fatal(err)
	}
	if err := grpc.SetHeader(ctx, metadata.Pairs("late", "x")); err == nil {
		t.Error("SetHeader after SendHeader succeeded")
	}
	if err := grpc.SetTrailer(ctx, metadata.Pairs("t", "1")); err != nil {
		t.Fatal(err)
	}
	h, tr := s.Finish()
	if err := grpc.SetTrailer(ctx, metadata.Pairs("late", "x")); err == nil {
		t.Error("SetTrailer after Finish succeeded")
	}
	if got := h["a"]; !reflect.DeepEqual(got, []string{"1", "2"}) {
		t.Errorf("header a = %v", got)
	}
	if got := tr["t"]; !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("trailer t = %v", got)
	}
}

func TestUnaryRecoversPanics(t *testing.T) {
	t.Parallel()
	var hooked any
	h := func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		panic("boom")
	}
	_, err := (&UnaryMethod{Handler: h}).call(context.Background(), nil, "/p.S/M", func(_ string, v any, _ []byte) { hooked = v })
	if status.Code(err) != codes.Internal || hooked != "boom" {
		t.Errorf("err = %v, hooked = %v", err, hooked)
	}

	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler to propagate", v)
		}
	}()
	abort := func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		panic(http.ErrAbortHandler)
	}
	(&UnaryMethod{Handler: abort}).call(context.Background(), nil, "/p.S/M", nil)
	t.Error("not reached")
}

func TestUnaryPassesErrors(t *testing.T) {
	t.Parallel()
	want := errors.New("plain")
	h := func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		return nil, want
	}
	if _, err := (&UnaryMethod{Handler: h}).call(context.Background(), nil, "/p.S/M", nil); err != want {
		t.Errorf("err = %v", err)
	}
}
