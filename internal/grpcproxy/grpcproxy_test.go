package grpcproxy_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
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
	"github.com/protorest/protorest/internal/headers"
)

// upstream is a real gRPC server: Echo-like unary and bidi calls that
// report the metadata and deadline they saw (a unary reply of
// ResponseSize bytes when it is set), and a call that fails with
// details.
type upstream struct {
	testgrpc.UnimplementedTestServiceServer
	canceled chan struct{}
	deadline atomic.Int64 // how far away the last UnaryCall's deadline was; 0: none
	calls    atomic.Int64 // UnaryCalls
}

func (u *upstream) UnaryCall(ctx context.Context, req *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	u.calls.Add(1)
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
	dl, hasDeadline := ctx.Deadline()
	u.deadline.Store(0)
	if hasDeadline {
		u.deadline.Store(int64(time.Until(dl)))
	}
	grpc.SetHeader(ctx, metadata.Pairs("x-up-header", "h"))
	grpc.SetTrailer(ctx, metadata.Pairs("x-up-trailer", "t"))
	tenant := strings.Join(md.Get("x-tenant"), ",")
	if hasDeadline {
		tenant += "+deadline"
	}
	payload := req.GetPayload()
	if n := req.GetResponseSize(); n > 0 {
		payload = &testgrpc.Payload{Body: make([]byte, n)}
	}
	return &testgrpc.SimpleResponse{Username: tenant, Payload: payload}, nil
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

// start serves up behind a proxy (with s) on an h2c port of net/http,
// and returns a client of the proxy.
func start(t testing.TB, s ...grpcproxy.Settings) (testgrpc.TestServiceClient, *upstream) {
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
	client, _ := startProxy(t, lis.Addr().String(), s...)
	return client, up
}

// startProxy serves a proxy to the upstream at target (with s, if given)
// on an h2c port of net/http, and returns a client of the proxy and the
// errors the proxy reported, in order.
func startProxy(t testing.TB, target string, s ...grpcproxy.Settings) (testgrpc.TestServiceClient, <-chan error) {
	t.Helper()
	addr, failed := serveProxy(t, target, s...)
	client, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return testgrpc.NewTestServiceClient(client), failed
}

// serveProxy serves a proxy to the upstream at target (with s, if given)
// on an h2c port of net/http, and returns its address and the errors the
// proxy reported, in order.
func serveProxy(t testing.TB, target string, s ...grpcproxy.Settings) (string, <-chan error) {
	t.Helper()
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	failed := make(chan error, 10)
	var settings grpcproxy.Settings
	if len(s) > 0 {
		settings = s[0]
	}
	settings.Failed = func(ctx context.Context, err error) {
		if ctx.Value(requestKey{}) == nil {
			err = errors.New("the call's context is not the request's")
		}
		select {
		case failed <- err:
		default: // a test that does not read them
		}
	}
	proxy := grpcproxy.New(conn, settings)
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
	return plis.Addr().String(), failed
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

// TestProxyDeadlines: a unary method the proxy knows gets the default
// deadline; a method it does not know (it may stream) gets none; a
// deadline the client gives is clamped to the longest allowed, either
// way.
func TestProxyDeadlines(t *testing.T) {
	t.Parallel()
	policy := &headers.Policy{DefaultTimeout: 7 * time.Second, MaxTimeout: 9 * time.Second}
	unary := func(path string) grpcproxy.MethodKind {
		return grpcproxy.MethodKind{Known: path == "/grpc.testing.TestService/UnaryCall"}
	}
	for _, tt := range []struct {
		name   string
		method func(string) grpcproxy.MethodKind
		client time.Duration // the client's deadline; 0: none
		want   time.Duration // the upstream's; 0: none
	}{
		{"known unary", unary, 0, 7 * time.Second},
		{"known unary, a long deadline", unary, time.Hour, 9 * time.Second},
		{"known unary, a short deadline", unary, 3 * time.Second, 3 * time.Second},
		{"unknown", nil, 0, 0},
		{"unknown, a long deadline", nil, time.Hour, 9 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, up := start(t, grpcproxy.Settings{Headers: policy, Method: tt.method})
			ctx := context.Background()
			if tt.client > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.client)
				defer cancel()
			}
			if _, err := c.UnaryCall(ctx, &testgrpc.SimpleRequest{}); err != nil {
				t.Fatal(err)
			}
			got := time.Duration(up.deadline.Load())
			if tt.want == 0 && got != 0 || got > tt.want || got < tt.want-2*time.Second {
				t.Errorf("the upstream's deadline: %v away, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkProxyUnary is a unary call of 1 KiB each way through the
// proxy, on loopback: the allocations are the client's, the proxy's and
// the upstream's.
func BenchmarkProxyUnary(b *testing.B) {
	c, _ := start(b, grpcproxy.Settings{
		MaxRecv: 4 << 20, MaxSend: 4 << 20, ReadIdleTimeout: 30 * time.Second, StreamIdleTimeout: 5 * time.Minute,
		Headers: &headers.Policy{MaxMetadataBytes: 8 << 10, DefaultTimeout: 30 * time.Second, MaxTimeout: 5 * time.Minute},
		Method:  func(string) grpcproxy.MethodKind { return grpcproxy.MethodKind{Known: true} },
	})
	req := &testgrpc.SimpleRequest{Payload: &testgrpc.Payload{Body: make([]byte, 1024)}}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "x-tenant", "t1")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.UnaryCall(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestProxyMessageLimits: a request message over MaxRecv is refused
// before the upstream is called, and an upstream reply over MaxSend is
// refused as it arrives: RESOURCE_EXHAUSTED both; a call within both
// passes.
func TestProxyMessageLimits(t *testing.T) {
	t.Parallel()
	c, up := start(t, grpcproxy.Settings{MaxRecv: 1 << 20, MaxSend: 1 << 20,
		Method: func(string) grpcproxy.MethodKind { return grpcproxy.MethodKind{Known: true} }})
	for _, tt := range []struct {
		name      string
		req, resp int // payload sizes
		want      codes.Code
	}{
		{"within", 1000, 1000, codes.OK},
		{"request", 2 << 20, 10, codes.ResourceExhausted},
		{"reply", 10, 2 << 20, codes.ResourceExhausted},
	} {
		calls := up.calls.Load()
		_, err := c.UnaryCall(context.Background(), &testgrpc.SimpleRequest{
			Payload: &testgrpc.Payload{Body: make([]byte, tt.req)}, ResponseSize: int32(tt.resp)})
		if status.Code(err) != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if called := up.calls.Load() > calls; called == (tt.name == "request") {
			t.Errorf("%s: the upstream called: %v", tt.name, called)
		}
	}
}
