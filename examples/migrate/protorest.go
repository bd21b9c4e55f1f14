package main

import (
	"context"
	"net/http"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest"
	notesv1 "github.com/protorest/protorest/examples/migrate/proto/notes/v1"
)

// newProtorest is the program after the migration: the same options on a
// protorest.Gateway, which serves the service remote over conn (read by
// reflection: RegisterNotesHandler becomes RegisterRemote) or, when impl
// is not nil, in-process (RegisterNotesHandlerServer becomes
// RegisterNotesServer on the gateway). The health check goes over conn
// either way.
func newProtorest(ctx context.Context, conn *grpc.ClientConn, impl notesv1.NotesServer) (http.Handler, error) {
	gw := protorest.NewGateway(
		protorest.WithMetadata(sessionMetadata),
		protorest.WithResponseHook(func(w http.ResponseWriter, _ *http.Request, resp proto.Message, header metadata.MD) error {
			return setSession(w, resp, header)
		}),
		protorest.WithMarshalOptions(jsonOptions),
		protorest.WithRoutingErrorHandler(func(w http.ResponseWriter, r *http.Request, err error) {
			writeRoutingError(w, r, protorest.HTTPStatus(err))
		}),
		protorest.WithStreamErrorHandler(func(_ *http.Request, err error) *status.Status {
			return hideInternal(err)
		}),
		protorest.WithHealthEndpoint("/healthz", healthpb.NewHealthClient(conn)),
	)
	if impl != nil {
		notesv1.RegisterNotesServer(gw, impl)
	} else if err := gw.RegisterRemote(ctx, conn); err != nil {
		return nil, err
	}
	err := gw.HandlePath("GET", "/v1/hello/{name}", func(w http.ResponseWriter, r *http.Request) {
		hello(w, r.PathValue("name"))
	})
	if err != nil {
		return nil, err
	}
	return gw, nil
}
