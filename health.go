package protorest

import (
	"errors"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/httprule"
)

// WithHealthEndpoint serves GET path (a template, "/healthz") with a
// grpc.health.v1 Check through client, as grpc-gateway's
// WithHealthEndpointAt does; the query parameter "service" names the
// service to check. SERVING is 200 {"status":"SERVING"}; NOT_SERVING and
// UNKNOWN are 503 UNAVAILABLE, SERVICE_UNKNOWN 404 NOT_FOUND (with the
// status's name as message), and a failed check its own status, through
// the error handler. The check carries the metadata a remote call would.
// The route is a custom route;
// a template that does not parse, or a route that conflicts, is an error
// (see Option). By default there is none.
func WithHealthEndpoint(path string, client healthpb.HealthClient) Option {
	return optionFunc(func(c *config.Config) {
		if _, err := httprule.Parse(path); err != nil {
			c.Errs = append(c.Errs, errors.New("protorest: WithHealthEndpoint("+path+"): "+err.Error()))
			return
		}
		c.Health = append(c.Health, config.Health{Path: path, Client: client})
	})
}
