package main

import (
	"context"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	notesv1 "github.com/protorest/protorest/examples/migrate/proto/notes/v1"
)

// newGRPCGateway is the program before the migration: grpc-gateway's
// generated handlers (notes.pb.gw.go) calling the service over conn.
func newGRPCGateway(ctx context.Context, conn *grpc.ClientConn) (http.Handler, error) {
	mux := runtime.NewServeMux(
		runtime.WithMetadata(func(_ context.Context, r *http.Request) metadata.MD {
			return sessionMetadata(r)
		}),
		runtime.WithForwardResponseOption(func(ctx context.Context, w http.ResponseWriter, resp proto.Message) error {
			md, _ := runtime.ServerMetadataFromContext(ctx)
			return setSession(w, resp, md.HeaderMD)
		}),
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.JSONPb{
			MarshalOptions:   jsonOptions,
			UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true},
		}),
		runtime.WithRoutingErrorHandler(func(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
			writeRoutingError(w, r, httpStatus)
		}),
		runtime.WithStreamErrorHandler(func(_ context.Context, err error) *status.Status {
			return hideInternal(err)
		}),
		runtime.WithHealthzEndpoint(healthpb.NewHealthClient(conn)),
		// protorest never honours these: a POST is a POST.
		runtime.WithDisableHTTPMethodOverride(),
		runtime.WithDisablePathLengthFallback(),
	)
	if err := notesv1.RegisterNotesHandler(ctx, mux, conn); err != nil {
		return nil, err
	}
	err := mux.HandlePath("GET", "/v1/hello/{name}", func(w http.ResponseWriter, _ *http.Request, p map[string]string) {
		hello(w, p["name"])
	})
	if err != nil {
		return nil, err
	}
	return mux, nil
}
