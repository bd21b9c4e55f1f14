package main

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	conformancev1 "github.com/protorest/protorest/e2e/conformance/internal/proto/connectrpc/conformance/v1"
)

// client is a grpc-go client of the service served by a grpc.Server over
// an in-memory connection: the service as the suite's grpc-go reference
// client would see it, without protorest in between.
func client(t *testing.T) conformancev1.ConformanceServiceClient {
	t.Helper()
	l := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	conformancev1.RegisterConformanceServiceServer(srv, conformanceService{})
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return l.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conformancev1.NewConformanceServiceClient(conn)
}

func header(name string, values ...string) *conformancev1.Header {
	return &conformancev1.Header{Name: name, Value: values}
}

// echoed is the request header name's values in info.
func echoed(info *conformancev1.ConformancePayload_RequestInfo, name string) []string {
	for _, h := range info.GetRequestHeaders() {
		if h.GetName() == name {
			return h.GetValue()
		}
	}
	return nil
}

func TestUnary(t *testing.T) {
	c := client(t)
	ctx := metadata.AppendToOutgoingContext(t.Context(), "x-conformance-test", "a", "x-bin-bin", "\x00\x01")
	req := &conformancev1.UnaryRequest{
		RequestData: []byte("in"),
		ResponseDefinition: &conformancev1.UnaryResponseDefinition{
			ResponseHeaders:  []*conformancev1.Header{header("x-custom-header", "h")},
			ResponseTrailers: []*conformancev1.Header{header("x-custom-trailer", "t"), header("x-t-bin", "AQI")},
			Response:         &conformancev1.UnaryResponseDefinition_ResponseData{ResponseData: []byte("out")},
		},
	}
	var hdr, trl metadata.MD
	resp, err := c.Unary(ctx, req, grpc.Header(&hdr), grpc.Trailer(&trl))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.GetPayload().GetData()); got != "out" {
		t.Errorf("data = %q, want out", got)
	}
	info := resp.GetPayload().GetRequestInfo()
	if got := echoed(info, "x-conformance-test"); len(got) != 1 || got[0] != "a" {
		t.Errorf("echoed x-conformance-test = %q", got)
	}
	if got := echoed(info, "x-bin-bin"); len(got) != 1 || got[0] != "AAE" {
		t.Errorf("echoed x-bin-bin = %q, want its base64, unpadded", got)
	}
	if info.TimeoutMs != nil {
		t.Errorf("timeout_ms = %d for a call without a deadline", info.GetTimeoutMs())
	}
	if len(info.GetRequests()) != 1 {
		t.Fatalf("%d requests echoed, want 1", len(info.GetRequests()))
	}
	var got conformancev1.UnaryRequest
	if err := info.GetRequests()[0].UnmarshalTo(&got); err != nil || !proto.Equal(&got, req) {
		t.Errorf("echoed request = %v (%v), want %v", &got, err, req)
	}
	if hdr.Get("x-custom-header")[0] != "h" || trl.Get("x-custom-trailer")[0] != "t" || trl.Get("x-t-bin")[0] != "\x01\x02" {
		t.Errorf("header %v, trailer %v", hdr, trl)
	}
}

func TestUnaryError(t *testing.T) {
	c := client(t)
	_, err := c.Unary(t.Context(), &conformancev1.UnaryRequest{ResponseDefinition: &conformancev1.UnaryResponseDefinition{
		Response: &conformancev1.UnaryResponseDefinition_Error{Error: &conformancev1.Error{
			Code: conformancev1.Code_CODE_FAILED_PRECONDITION, Message: proto.String("no"),
		}},
	}})
	st := status.Convert(err)
	if st.Code() != codes.FailedPrecondition || st.Message() != "no" {
		t.Fatalf("error %v, want FAILED_PRECONDITION no", err)
	}
	if d := st.Details(); len(d) != 1 {
		t.Fatalf("details %v, want the request info", d)
	} else if _, ok := d[0].(*conformancev1.ConformancePayload_RequestInfo); !ok {
		t.Errorf("detail %T, want RequestInfo", d[0])
	}
	if _, err := c.Unimplemented(t.Context(), &conformancev1.UnimplementedRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("Unimplemented: %v", err)
	}
}

func TestServerStream(t *testing.T) {
	c := client(t)
	stream, err := c.ServerStream(t.Context(), &conformancev1.ServerStreamRequest{ResponseDefinition: &conformancev1.StreamResponseDefinition{
		ResponseData: [][]byte{[]byte("1"), []byte("2")},
		Error:        &conformancev1.Error{Code: conformancev1.Code_CODE_ABORTED},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"1", "2"} {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if string(resp.GetPayload().GetData()) != want || (i == 0) != (resp.GetPayload().GetRequestInfo() != nil) {
			t.Errorf("response %d = %v: want data %s, request info on the first only", i, resp, want)
		}
	}
	_, err = stream.Recv()
	if st := status.Convert(err); st.Code() != codes.Aborted || len(st.Details()) != 0 {
		t.Errorf("end %v, want ABORTED without details (responses were sent)", err)
	}
}

func TestClientStream(t *testing.T) {
	c := client(t)
	stream, err := c.ClientStream(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	def := &conformancev1.UnaryResponseDefinition{Response: &conformancev1.UnaryResponseDefinition_ResponseData{ResponseData: []byte("r")}}
	for _, req := range []*conformancev1.ClientStreamRequest{{ResponseDefinition: def}, {RequestData: []byte("2")}} {
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.GetPayload().GetData()) != "r" || len(resp.GetPayload().GetRequestInfo().GetRequests()) != 2 {
		t.Errorf("response %v: want data r and both requests", resp)
	}
}

func TestBidiStream(t *testing.T) {
	def := &conformancev1.StreamResponseDefinition{ResponseData: [][]byte{[]byte("a"), []byte("b")}}
	t.Run("full duplex", func(t *testing.T) {
		stream, err := client(t).BidiStream(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"a", "b"} {
			if err := stream.Send(&conformancev1.BidiStreamRequest{ResponseDefinition: def, FullDuplex: true}); err != nil {
				t.Fatal(err)
			}
			resp, err := stream.Recv() // a response to each request, before the client is done
			if err != nil {
				t.Fatal(err)
			}
			info := resp.GetPayload().GetRequestInfo()
			if string(resp.GetPayload().GetData()) != want || len(info.GetRequests()) != 1 || (i == 0) != (info.GetRequestHeaders() != nil) {
				t.Errorf("response %d = %v: want %s, the one request since the last, headers on the first", i, resp, want)
			}
		}
		if err := stream.CloseSend(); err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); !errors.Is(err, io.EOF) {
			t.Errorf("end %v, want EOF", err)
		}
	})
	t.Run("half duplex", func(t *testing.T) {
		stream, err := client(t).BidiStream(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := stream.Send(&conformancev1.BidiStreamRequest{ResponseDefinition: def}); err != nil {
				t.Fatal(err)
			}
		}
		if err := stream.CloseSend(); err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"a", "b"} {
			resp, err := stream.Recv()
			if err != nil {
				t.Fatal(err)
			}
			n := len(resp.GetPayload().GetRequestInfo().GetRequests())
			if string(resp.GetPayload().GetData()) != want || (i == 0 && n != 3) || (i == 1 && n != 0) {
				t.Errorf("response %d = %v: want %s, all three requests on the first", i, resp, want)
			}
		}
		if _, err := stream.Recv(); !errors.Is(err, io.EOF) {
			t.Errorf("end %v, want EOF", err)
		}
	})
}
