package gateway

import (
	"context"
	"math"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/grpcproxy"
	"github.com/protorest/protorest/internal/protocols"
)

// GRPCPassThrough returns a handler that forwards the gRPC calls among
// its requests to conn (grpcproxy), under the gateway's settings, the
// ones its REST calls obey, and serves the others as the gateway. A
// gateway whose options have mistakes serves every request as the
// gateway, which refuses it.
func (g *Gateway) GRPCPassThrough(conn grpc.ClientConnInterface) http.Handler {
	proxy := grpcproxy.New(conn, grpcproxy.Settings{
		MaxRecv:           int(min(g.env.MaxBody, math.MaxInt32)),
		MaxSend:           g.env.Render.MaxBody,
		ReadIdleTimeout:   g.env.ReadIdleTimeout,
		StreamIdleTimeout: g.env.StreamIdleTimeout,
		Headers:           &g.env.Headers,
		Method:            g.methodKind,
		Failed:            recordFailure,
		Limiter:           g.classes,
		Budget:            g.env.Render.Budget,
		WriteTimeout:      g.env.Render.WriteTimeout,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.err == nil && grpcproxy.IsGRPC(r) && g.passesThrough(r) {
			proxy.ServeHTTP(w, r)
			return
		}
		g.ServeHTTP(w, r)
	})
}

// passesThrough reports whether the pass-through forwards r, a gRPC
// call: one in binary (application/grpc, application/grpc+proto) to a
// method no service registered in-process serves. The gateway serves the
// others at the method's canonical path (internal/protocols): a service
// registered in-process, whose interceptors must see the call; and a
// call in another codec, which it decodes as a gRPC server would
// (application/grpc+json) or refuses (415); and a call compressed other
// than with gzip (zstd), which the proxy's grpc.Server cannot decode.
func (g *Gateway) passesThrough(r *http.Request) bool {
	if !g.served.Has(protocols.GRPC) {
		return true // the gateway serves no gRPC itself
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/grpc" && ct != "application/grpc+proto" {
		return false
	}
	switch r.Header.Get("Grpc-Encoding") {
	case "", "identity", "gzip": // what the proxy's grpc.Server decodes
	default:
		return false // zstd, which the gateway decodes; or a refusal in the gateway's terms
	}
	ep := g.rpcs.Lookup(r.URL.EscapedPath())
	return ep == nil || ep.Binding.Response.Wire
}

// methodKind is what a backend's descriptors, or the files services are
// registered from, say of the method at a gRPC path
// ("/pkg.Service/Method").
func (g *Gateway) methodKind(path string) grpcproxy.MethodKind {
	s, m, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	service, method := protoreflect.FullName(s), protoreflect.Name(m)
	if !ok || !service.IsValid() || !method.IsValid() {
		return grpcproxy.MethodKind{}
	}
	md := g.remotes.Method(service, method)
	if md == nil {
		if sd, ok := g.registeredService(service); ok {
			md = sd.Methods().ByName(method)
		}
	}
	if md == nil {
		return grpcproxy.MethodKind{}
	}
	return grpcproxy.MethodKind{Known: true, ClientStreams: md.IsStreamingClient(), ServerStreams: md.IsStreamingServer()}
}

// registeredService returns the descriptor of a service in the files
// services are registered from.
func (g *Gateway) registeredService(name protoreflect.FullName) (protoreflect.ServiceDescriptor, bool) {
	d, err := g.cfg.Registration.Files.FindDescriptorByName(name)
	if err != nil {
		return nil, false
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	return sd, ok
}

// recordFailure tells the request's Recorder, if it has one, the error
// of a call the pass-through failed.
func recordFailure(ctx context.Context, err error) {
	if rec, ok := exchange.RecorderFrom(ctx); ok {
		rec.Ended(err)
	}
}
