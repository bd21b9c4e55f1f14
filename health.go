package protorest

import (
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/render"
)

// healthEndpoint is a WithHealthEndpoint's route, registered by
// NewGateway.
type healthEndpoint struct {
	path   string
	client healthpb.HealthClient
}

// WithHealthEndpoint serves GET path (a template, "/healthz") with a
// grpc.health.v1 Check through client, as grpc-gateway's
// WithHealthEndpointAt does (WithHealthzEndpoint is path "/healthz"): the
// query parameter "service" names the service to check ("" for the
// server). SERVING is 200 {"status":"SERVING"}; NOT_SERVING and UNKNOWN
// are 503 UNAVAILABLE, SERVICE_UNKNOWN is 404 NOT_FOUND, with the status's
// name as message (grpc-gateway's is the response in prototext, whose
// spacing varies), and a failed check is its own status, all through the
// error handler. The check runs with the request's context and carries
// the metadata a remote call would (the headers', the annotators'). client
// reaches the health service wherever it runs: the
// gRPC server of in-process services, or a remote backend
// (healthpb.NewHealthClient(conn)). The route is a custom route, with
// their precedence and conflict checks; a bad template panics, a
// conflict makes NewGateway panic. By default there is none (protorest
// serve has its own /healthz, see --health-path).
func WithHealthEndpoint(path string, client healthpb.HealthClient) Option {
	if _, err := httprule.Parse(path); err != nil {
		panic("protorest: WithHealthEndpoint(" + path + "): " + err.Error())
	}
	return optionFunc(func(c *config) { c.health = append(c.health, healthEndpoint{path, client}) })
}

// serveHealth answers a health endpoint's request: the check carries the
// request's metadata as a remote call does.
func (g *Gateway) serveHealth(client healthpb.HealthClient) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		resp, err := g.checkHealth(r, client)
		if err != nil {
			g.env.Render.ErrorHandler(w, r, err)
			return
		}
		body, err := g.json.Marshal(resp)
		if err != nil {
			g.env.Render.ErrorHandler(w, r, status.Error(codes.Internal, err.Error()))
			return
		}
		render.SetContentType(w.Header(), codec.MediaJSON)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

// checkHealth calls Check; a status other than SERVING is an error.
func (g *Gateway) checkHealth(r *http.Request, client healthpb.HealthClient) (*healthpb.HealthCheckResponse, error) {
	md, err := g.env.Headers.Metadata(r)
	if err != nil {
		return nil, err
	}
	ctx := metadata.NewOutgoingContext(r.Context(), md)
	resp, err := client.Check(ctx, &healthpb.HealthCheckRequest{Service: r.URL.Query().Get("service")})
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
