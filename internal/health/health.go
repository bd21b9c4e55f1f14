// Package health serves a grpc.health.v1 Check over HTTP, as
// grpc-gateway's health endpoint does (protorest.WithHealthEndpoint).
package health

import (
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/render"
)

// An Endpoint answers GET requests with a Check through Client: the
// query parameter "service" names the service. SERVING is 200 and the
// response in JSON; any other status, and a failed check, go to Fail.
type Endpoint struct {
	Client healthpb.HealthClient
	// Metadata is what the check carries, as a remote call would.
	Metadata func(*http.Request) (metadata.MD, error)
	Marshal  func(proto.Message) ([]byte, error)
	Fail     func(http.ResponseWriter, *http.Request, error)
}

func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resp, err := e.check(r)
	if err != nil {
		e.Fail(w, r, err)
		return
	}
	body, err := e.Marshal(resp)
	if err != nil {
		e.Fail(w, r, status.Error(codes.Internal, err.Error()))
		return
	}
	render.SetContentType(w.Header(), codec.MediaJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// check calls Check; a status other than SERVING is an error:
// SERVICE_UNKNOWN NOT_FOUND, the others UNAVAILABLE, with the status's
// name as message.
func (e *Endpoint) check(r *http.Request) (*healthpb.HealthCheckResponse, error) {
	md, err := e.Metadata(r)
	if err != nil {
		return nil, err
	}
	ctx := metadata.NewOutgoingContext(r.Context(), md)
	resp, err := e.Client.Check(ctx, &healthpb.HealthCheckRequest{Service: r.URL.Query().Get("service")})
	if err != nil {
		return nil, err
	}
	switch resp.GetStatus() {
	case healthpb.HealthCheckResponse_SERVING:
		return resp, nil
	case healthpb.HealthCheckResponse_SERVICE_UNKNOWN:
		return nil, status.Error(codes.NotFound, resp.GetStatus().String())
	}
	return nil, status.Error(codes.Unavailable, resp.GetStatus().String())
}
