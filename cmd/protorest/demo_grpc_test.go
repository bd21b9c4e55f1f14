package main

import (
	"io"
	"slices"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
)

// TestDemoGRPCOnHTTPPort: a grpc-go client dialling the demo's HTTP port
// (not its gRPC port) calls the in-process services: unary, a server
// stream, an error with its details, and server reflection, which lists
// the services that port serves.
func TestDemoGRPCOnHTTPPort(t *testing.T) {
	t.Parallel()
	addr, stop := startDemo(t)
	defer stop()
	ctx := t.Context()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	mySvc := examplev1.NewMySvcClient(conn)
	up, err := mySvc.Upper(ctx, &examplev1.UpperRequest{Msg: "hello"})
	if err != nil || up.GetMsg() != "HELLO" {
		t.Errorf("Upper: %v, %v", up, err)
	}

	watch, err := mySvc.Watch(ctx, &examplev1.WatchRequest{Count: 3, IntervalMs: 10})
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int32
	for {
		tick, err := watch.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Watch after %v: %v", seqs, err)
		}
		seqs = append(seqs, tick.GetSeq())
	}
	if !slices.Equal(seqs, []int32{1, 2, 3}) {
		t.Errorf("Watch: ticks %v, want 1, 2, 3", seqs)
	}

	_, err = bookstorev1.NewBookServiceClient(conn).GetBook(ctx, &bookstorev1.GetBookRequest{})
	st := status.Convert(err)
	var fields []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				fields = append(fields, v.GetField())
			}
		}
	}
	if st.Code() != codes.InvalidArgument || st.Message() != "Name argument is required" || !slices.Equal(fields, []string{"name"}) {
		t.Errorf("GetBook(\"\"): %v, BadRequest fields %v; want InvalidArgument naming the field name", err, fields)
	}

	refl, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := refl.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	res, err := refl.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range res.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	slices.Sort(names)
	want := []string{"accounts.v1.AccountService", "bookstore.v1.BookService", "example.v1.MySvc", "grpc.reflection.v1.ServerReflection",
		"grpc.reflection.v1alpha.ServerReflection", "library.v1.LibraryService"}
	if !slices.Equal(names, want) {
		t.Errorf("reflection lists %q, want %q", names, want)
	}
	refl.CloseSend()
}
