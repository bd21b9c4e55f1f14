package protorest

import (
	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/config"
)

// WithFiles sets where RegisterService looks up service descriptors. The
// default is protoregistry.GlobalFiles, which generated code fills.
func WithFiles(files *protoregistry.Files) Option {
	return optionFunc(func(c *config.Config) { c.Registration.Files = files })
}

// WithAutoMapping routes the methods that have no google.api.http rule
// too: each answers POST /package.Service/Method with the whole request
// message as the body, as grpc-gateway's generate_unbound_methods does.
// Methods with a rule keep only their rule's routes. By default they are
// not routed.
func WithAutoMapping() Option {
	return optionFunc(func(c *config.Config) { c.Registration.AutoMap = true })
}

// RegisterService exposes the methods of a generated service that carry
// google.api.http rules; it is what pb.RegisterXxxServer(gw, impl) calls.
// The service's descriptor is looked up by name in the gateway's files
// (WithFiles; by default the ones generated code registers).
//
// RegisterService panics, as http.ServeMux.Handle does, when impl does not
// implement the service, when the service is unknown or already
// registered, or when a rule cannot be served: a template that does not
// parse, a field path that does not resolve, a route that conflicts with
// another, or a WithSuccessStatus for a method the service does not have;
// the message names the method and the rule. It panics with the options'
// mistakes too (see Option).
func (g *Gateway) RegisterService(desc *grpc.ServiceDesc, impl any) {
	if err := g.gw.RegisterService(desc, impl); err != nil {
		panic(err)
	}
}

// GetServiceInfo returns the services registered with RegisterService,
// by name, as grpc.Server does, so that reflection.Register(gw) serves
// gRPC server reflection of them on the gateway's port. Remote backends'
// services are not listed: their servers answer reflection.
func (g *Gateway) GetServiceInfo() map[string]grpc.ServiceInfo { return g.gw.GetServiceInfo() }
