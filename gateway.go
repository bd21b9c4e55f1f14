package protorest

import (
	"net/http"

	"google.golang.org/grpc"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/gateway"
)

// Gateway serves gRPC methods as HTTP/JSON APIs, following their
// google.api.http rules. It is an http.Handler and a grpc.ServiceRegistrar:
// register services on it as on a grpc.Server, then serve it with
// net/http.
//
// Register services and custom routes before serving requests; a Gateway
// is safe for concurrent use by many requests once registration is done,
// and registering while it serves is also safe (new routes appear
// atomically), though not ordered with requests in flight.
type Gateway struct {
	gw *gateway.Gateway
}

var _ interface {
	http.Handler
	grpc.ServiceRegistrar
} = (*Gateway)(nil)

// NewGateway returns a Gateway configured by opts. It does not fail: an
// option's mistake is reported at the gateway's first use (see Option).
func NewGateway(opts ...Option) *Gateway {
	cfg := config.Default()
	for _, o := range opts {
		o.apply(&cfg)
	}
	return &Gateway{gateway.New(&cfg)}
}

// ServeHTTP serves r from the method or custom route whose template
// matches, most specific first, and sets r.Pattern to that template, as
// http.ServeMux does, so that a middleware around the gateway can label
// the request by its route. A request passes the edge first (compression,
// the admission limits, CORS), then its method's stages run in order:
// route, negotiate, bind, invoke, render, errors.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.gw.ServeHTTP(w, r)
}
