// Package gateway is a gateway's runtime: New derives it from a
// config.Config, once, and package protorest's Gateway delegates to it.
// It holds the route table and the backends, registers services and
// custom routes, and serves requests through the edge chain (internal/edge)
// to the router, which runs each method's exchange.
package gateway

import (
	"maps"
	"net/http"
	"sync"

	"google.golang.org/grpc"

	"github.com/protorest/protorest/internal/classlimit"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/openapi"
	"github.com/protorest/protorest/internal/protocols"
	"github.com/protorest/protorest/internal/remote"
	"github.com/protorest/protorest/internal/route"
)

// A Gateway is what New derives from a Config, and what registration
// adds to it.
type Gateway struct {
	cfg          *config.Config
	env          exchange.Env // what every request reads
	json         *codec.JSON  // the built-in JSON codec
	unary        grpc.UnaryServerInterceptor
	stream       grpc.StreamServerInterceptor
	routingError httperr.Handler     // answers requests no route matched
	classes      *classlimit.Limiter // caps the calls of each class; nil: none
	head         http.Handler        // the edge chain, around the router
	err          error               // the options' mistakes, or nil

	routes    route.Table[*exchange.Endpoint]
	rpcs      protocols.Table   // the canonical endpoints, by path
	protocols *protocols.Server // makes their handlers
	served    protocols.Set     // the RPC protocols served
	remotes   remote.Backends
	openapi   openapi.Cache

	servicesMu sync.Mutex
	services   map[string]grpc.ServiceInfo // the in-process ones, by name
}

// ServeHTTP serves r through the edge chain, then the router.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.head.ServeHTTP(w, r) }

// GetServiceInfo returns the services registered in-process
// (RegisterService), by name, as a grpc.Server lists them.
func (g *Gateway) GetServiceInfo() map[string]grpc.ServiceInfo {
	g.servicesMu.Lock()
	defer g.servicesMu.Unlock()
	return maps.Clone(g.services)
}

// Err returns the options' mistakes, joined; nil if there are none.
func (g *Gateway) Err() error { return g.err }

// JSON returns the gateway's JSON codec.
func (g *Gateway) JSON() *codec.JSON { return g.json }

// Backends returns the remote backends, in the order registered.
func (g *Gateway) Backends() []*remote.Backend { return g.remotes.List() }
