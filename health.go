package protorest

import (
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/protorest/protorest/internal/httprule"
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
