package services_test

import (
	"net"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
)

// serve starts a grpc.Server on loopback with the example services and
// returns a client connection to it.
func serve(t *testing.T) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	examplev1.RegisterMySvcServer(srv, services.NewMySvc())
	bookstorev1.RegisterBookServiceServer(srv, services.NewBookService())
	libraryv1.RegisterLibraryServiceServer(srv, services.NewLibrary())
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func TestMySvc(t *testing.T) {
	c := examplev1.NewMySvcClient(serve(t))
	ctx := t.Context()
	up, err := c.Upper(ctx, &examplev1.UpperRequest{Msg: "hello, World"})
	if err != nil || up.GetMsg() != "HELLO, WORLD" {
		t.Errorf("Upper = %v, %v; want HELLO, WORLD", up, err)
	}
	echo, err := c.Echo(ctx, &examplev1.EchoRequest{Msg: "hello"})
	if err != nil || echo.GetMsg() != "echo: hello" {
		t.Errorf("Echo = %v, %v; want echo: hello", echo, err)
	}
	echo, err = c.Echo(ctx, &examplev1.EchoRequest{})
	if err != nil || echo.GetMsg() != "echo: " {
		t.Errorf("Echo(empty) = %v, %v; want %q", echo, err, "echo: ")
	}
}

func TestBookService(t *testing.T) {
	c := bookstorev1.NewBookServiceClient(serve(t))
	ctx := t.Context()

	b, err := c.GetBook(ctx, &bookstorev1.GetBookRequest{Name: "dune"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (&bookstorev1.Book{Name: "dune", Title: "Dune", Author: "Frank Herbert"}); !proto.Equal(b, want) {
		t.Errorf("GetBook(dune) = %v, want %v", b, want)
	}

	_, err = c.GetBook(ctx, &bookstorev1.GetBookRequest{Name: "no-such-book"})
	if status.Code(err) != codes.NotFound {
		t.Errorf("GetBook(no-such-book) error = %v, want NotFound", err)
	}

	_, err = c.GetBook(ctx, &bookstorev1.GetBookRequest{})
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument || st.Message() != "Name argument is required" {
		t.Fatalf("GetBook(empty) error = %v, want InvalidArgument %q", err, "Name argument is required")
	}
	want := &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
		{Field: "name", Description: "Name argument is required"},
	}}
	if d := st.Details(); len(d) != 1 || !proto.Equal(asMessage(t, d[0]), want) {
		t.Errorf("details = %v, want [%v]", d, want)
	}
}

func asMessage(t *testing.T, d any) proto.Message {
	t.Helper()
	m, ok := d.(proto.Message)
	if !ok {
		t.Fatalf("detail %v (%T) is not a message", d, d)
	}
	return m
}

// badField returns the field of err's single BadRequest violation, or "".
func badField(err error) string {
	for _, d := range status.Convert(err).Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) == 1 {
			return br.GetFieldViolations()[0].GetField()
		}
	}
	return ""
}
