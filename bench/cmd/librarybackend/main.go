// Command librarybackend is the gRPC backend of the throughput harness
// (scripts/throughput.sh): bench's in-memory Library on a grpc.Server,
// with server reflection (protorest serve reads its descriptors there),
// until SIGTERM or SIGINT.
//
//	librarybackend -listen 127.0.0.1:19400
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"

	"github.com/protorest/protorest/bench"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "host:port to serve gRPC on")
	flag.Parse()
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "librarybackend:", err)
		os.Exit(1)
	}
	srv := grpc.NewServer()
	libraryv1.RegisterLibraryServer(srv, bench.NewLibrary())
	reflection.Register(srv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.GracefulStop()
	}()
	fmt.Printf("librarybackend: serving on %s\n", lis.Addr())
	if err := srv.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, "librarybackend:", err)
		os.Exit(1)
	}
}
