package grpcproxy_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/grpcproxy"
)

// upstream is a real gRPC server: Echo-like unary and bidi calls that
// report the metadata and deadline they saw, and a call that fails with
// details.
type upstream struct {
	testgrpc.UnimplementedTestServiceServer
	canceled chan struct{}
}

func (u *upstream) UnaryCall(ctx context.Context, req *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if string(req.GetPayload().GetBody()) == "fail" {
		st, _ := status.New(codes.FailedPrecondition, "told to fail").WithDetails(&errdetails.ErrorInfo{Reason: "TOLD", Domain: "test"})
		return nil, st.Err()
	}
	if string(req.GetPayload().GetBody()) == "block" {
		<-ctx.Done()
		close(u.canceled)
		return nil, ctx.Err()
	}
	_, hasDeadline := ctx.Deadline()
	grpc.SetHeader(ctx, metadata.Pairs("x-up-header", "h"))
	grpc.SetTrailer(ctx, metadata.Pairs("x-up-trailer", "t"))
	tenant := strings.Join(md.Get("x-tenant"), ",")
	if hasDeadline {
		tenant += "+deadline"
	}
	return &testgrpc.SimpleResponse{Username: tenant, Payload: req.GetPayload()}, nil
}

func (u *upstream) FullDuplexCall(stream testgrpc.TestService_FullDuplexCallServer) error {
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := stream.Send(&testgrpc.StreamingOutputCallResponse{Payload: req.GetPayload()}); err != nil {
			return err
		}
	}
}

// start serves up behind a proxy on an h2c port of net/http, and returns
// a client of the proxy.
func start(t *testing.T) (testgrpc.TestServiceClient, *upstream) {
	t.Helper()
	up := &upstream{canceled: make(chan struct{})}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(srv, up)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	client, _ := startProxy(t, lis.Addr().String())
	return client, up
}

// startProxy serves a proxy to the upstream at target on an h2c port of
// net/http, and returns a client of the proxy and the errors the proxy
// reported, in order.
func startProxy(t *testing.T, target string) (testgrpc.TestServiceClient, <-chan error) {
	t.Helper()
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	failed := make(chan error, 10)
	proxy := grpcproxy.New(conn, grpcproxy.Settings{Failed: func(ctx context.Context, err error) {
		if ctx.Value(requestKey{}) == nil {
			err = errors.New("the call's context is not the request's")
		}
		select {
		case failed <- err:
		default: // a test that does not read them
		}
	}})
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(context.WithValue(r.Context(), requestKey{}, true))
		if !grpcproxy.IsGRPC(r) {
			http.Error(w, "not gRPC", http.StatusTeapot)
			return
		}
		proxy.ServeHTTP(w, r)
	})}
	hs.Protocols = new(http.Protocols)
	hs.Protocols.SetHTTP1(true)
	hs.Protocols.SetUnencryptedHTTP2(true)
	plis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(plis)
	t.Cleanup(func() { hs.Close() })

	client, err := grpc.NewClient(plis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return testgrpc.NewTestServiceClient(client), failed
}

type requestKey struct{}

// TestProxyUpstreamUnreachable: with nothing listening at the upstream's
// address, a unary call and a stream get UNAVAILABLE "upstream
// unavailable", not grpc-go's message with the address, which the proxy
// reports with the call's context instead.
func TestProxyUpstreamUnreachable(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close() // nothing listens there now
	c, failed := startProxy(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = c.UnaryCall(ctx, &testgrpc.SimpleRequest{})
	if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != "upstream unavailable" {
		t.Errorf("unary: %v", err)
	}
	stream, err := c.FullDuplexCall(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); status.Convert(err).Message() != "upstream unavailable" {
		t.Errorf("stream: %v", err)
	}
	for range 2 {
		if err := <-failed; !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("reported: %v, want grpc-go's cause", err)
		}
	}
}

func TestProxyUnary(t *testing.T) {
	t.Parallel()
	c, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "x-tenant", "t1")
	var header, trailer metadata.MD
	resp, err := c.UnaryCall(ctx, &testgrpc.SimpleRequest{Payload: &testgrpc.Payload{Body: []byte("hello")}},
		grpc.Header(&header), grpc.Trailer(&trailer), grpc.UseCompressor(gzip.Name))
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.GetPayload().GetBody()) != "hello" || resp.GetUsername() != "t1+deadline" {
		t.Errorf("response %v", resp)
	}
	if header.Get("x-up-header")[0] != "h" || trailer.Get("x-up-trailer")[0] != "t" {
		t.Errorf("header %v, trailer %v", header, trailer)
	}
}

func TestProxyErrorDetails(t *testing.T) {
	t.Parallel()
	c, _ := start(t)
	_, err := c.UnaryCall(context.Background(), &testgrpc.SimpleRequest{Payload: &testgrpc.Payload{Body: []byte("fail")}})
	st := status.Convert(err)
	if st.Code() != codes.FailedPrecondition || st.Message() != "told to fail" || len(st.Details()) != 1 {
		t.Fatalf("status %v, details %v", st, st.Details())
	}
	if info, ok := st.Details()[0].(*errdetails.ErrorInfo); !ok || info.GetReason() != "TOLD" {
		t.Errorf("detail %v", st.Details()[0])
	}
}

func TestProxyBidiStream(t *testing.T) {
	t.Parallel()
	c, _ := start(t)
	stream, err := c.FullDuplexCall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Full duplex: each reply comes back before the next request is sent.
	for _, msg := range []string{"a", "bb", strings.Repeat("c", 1<<20)} {
		if err := stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: &testgrpc.Payload{Body: []byte(msg)}}); err != nil {
			t.Fatal(err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if string(resp.GetPayload().GetBody()) != msg {
			t.Errorf("echo of %d bytes came back as %d", len(msg), len(resp.GetPayload().GetBody()))
		}
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != io.EOF {
		t.Errorf("end of stream: %v", err)
	}
}

func TestProxyCancellationReachesUpstream(t *testing.T) {
	t.Parallel()
	c, up := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.UnaryCall(ctx, &testgrpc.SimpleRequest{Payload: &testgrpc.Payload{Body: []byte("block")}})
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case <-up.canceled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream call was not canceled")
	}
	if err := <-errc; status.Code(err) != codes.Canceled {
		t.Errorf("client error %v", err)
	}
}

func TestIsGRPC(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		major int
		ct    string
		want  bool
	}{
		{2, "application/grpc", true},
		{2, "application/grpc+proto", true},
		{2, "application/grpc; charset=utf-8", true},
		{2, "application/grpc-web", false},
		{2, "application/grpc-web+proto", false},
		{2, "application/json", false},
		{1, "application/grpc", false},
		{2, "", false},
	} {
		r, _ := http.NewRequest("POST", "/x.Y/Z", nil)
		r.ProtoMajor = tt.major
		r.Header.Set("Content-Type", tt.ct)
		if got := grpcproxy.IsGRPC(r); got != tt.want {
			t.Errorf("IsGRPC(HTTP/%d, %q) = %v, want %v", tt.major, tt.ct, got, tt.want)
		}
	}
}
