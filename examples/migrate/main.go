// Command migrate is a grpc-gateway program and the same program on
// protorest, side by side: one gRPC server (the notes service, health and
// reflection) and one HTTP gateway in front of it, either grpc-gateway
// (grpcgateway.go, with its generated notes.pb.gw.go) or protorest
// (protorest.go, no generated gateway code). Both apply the same policy
// (policy.go): a metadata annotator, a response hook, marshaler options,
// a routing error handler, a stream error handler, a health endpoint and
// a custom route. equivalence_test.go sends both the same requests and
// requires the same answers; MIGRATING.md, at the repository's root,
// maps every grpc-gateway option.
//
//	go run . -gateway grpc-gateway          # before
//	go run . -gateway protorest             # after: remote, by reflection
//	go run . -gateway protorest-in-process  # after: the service in-process
//
//	curl -i -c jar -d '{"user":"ada"}' localhost:8080/v1/login
//	curl -b jar -H 'X-Request-Id: r1' localhost:8080/v1/me
//	curl -i -b jar -d '{"title":"t"}' localhost:8080/v1/notes
//	curl 'localhost:8080/v1/watch?count=2&fail=true'
//	curl localhost:8080/healthz
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	notesv1 "github.com/protorest/protorest/examples/migrate/proto/notes/v1"
)

func main() {
	grpcAddr := flag.String("grpc", "localhost:9090", "gRPC `address` of the notes service")
	httpAddr := flag.String("http", "localhost:8080", "HTTP `address` of the gateway")
	gateway := flag.String("gateway", "protorest", "grpc-gateway, protorest or protorest-in-process")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *grpcAddr, *httpAddr, *gateway); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, grpcAddr, httpAddr, gateway string) error {
	lis, err := net.Listen("tcp", grpcAddr)
	if err != nil {
		return err
	}
	impl := newNotes()
	srv := newServer(impl)
	go srv.Serve(lis)
	defer srv.Stop()

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	h, err := newGateway(ctx, gateway, conn, impl)
	if err != nil {
		return err
	}
	web := &http.Server{Addr: httpAddr, Handler: h}
	go func() {
		<-ctx.Done()
		web.Close()
	}()
	log.Printf("%s on http://%s, in front of gRPC on %s", gateway, httpAddr, lis.Addr())
	if err := web.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newServer is the gRPC server: the notes service, its health (SERVING)
// and reflection, which protorest's RegisterRemote reads.
func newServer(impl notesv1.NotesServer) *grpc.Server {
	srv := grpc.NewServer()
	notesv1.RegisterNotesServer(srv, impl)
	hs := health.NewServer()
	hs.SetServingStatus(notesv1.Notes_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	reflection.Register(srv)
	return srv
}

// newGateway is the HTTP gateway named kind, in front of conn (or, for
// protorest-in-process, serving impl itself).
func newGateway(ctx context.Context, kind string, conn *grpc.ClientConn, impl notesv1.NotesServer) (http.Handler, error) {
	switch kind {
	case "grpc-gateway":
		return newGRPCGateway(ctx, conn)
	case "protorest":
		return newProtorest(ctx, conn, nil)
	case "protorest-in-process":
		return newProtorest(ctx, conn, impl)
	}
	return nil, fmt.Errorf("-gateway %q: want grpc-gateway, protorest or protorest-in-process", kind)
}
