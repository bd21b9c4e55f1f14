package gateway

import (
	"errors"
	"fmt"
	"reflect"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/invoke"
	"github.com/protorest/protorest/internal/plan"
	"github.com/protorest/protorest/internal/route"
)

// RegisterService routes the methods of desc, served in-process by impl,
// all or none; its error names the method and the rule.
func (g *Gateway) RegisterService(desc *grpc.ServiceDesc, impl any) error {
	if g.err != nil {
		return g.err
	}
	if impl != nil && desc.HandlerType != nil {
		ht := reflect.TypeOf(desc.HandlerType).Elem()
		if st := reflect.TypeOf(impl); !st.Implements(ht) {
			return fmt.Errorf("protorest: RegisterService found the handler of type %v that does not satisfy %v", st, ht)
		}
	}
	d, err := g.cfg.Registration.Files.FindDescriptorByName(protoreflect.FullName(desc.ServiceName))
	if err != nil {
		return fmt.Errorf("protorest: service %s: no descriptor (import its generated package, or pass WithFiles): %w", desc.ServiceName, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return fmt.Errorf("protorest: %s is not a service", desc.ServiceName)
	}
	if err := plan.CheckSuccessStatus(g.cfg, sd); err != nil {
		return err
	}
	var entries plan.Entries
	for i := range desc.Methods {
		m := &desc.Methods[i]
		md := sd.Methods().ByName(protoreflect.Name(m.MethodName))
		if md == nil {
			return fmt.Errorf("protorest: %s.%s: not in the service descriptor", desc.ServiceName, m.MethodName)
		}
		inv := &invoke.UnaryMethod{Srv: impl, Handler: m.Handler, Interceptor: g.unary}
		es, err := plan.Method(g.cfg, md, plan.Caller{Invoker: func(*bind.Request) exchange.Invoker { return inv }})
		if err != nil {
			return err
		}
		entries = append(entries, es...)
		if entries, err = appendCanonical(g.cfg, entries, md, inv); err != nil {
			return err
		}
	}
	for i := range desc.Streams {
		s := &desc.Streams[i]
		md := sd.Methods().ByName(protoreflect.Name(s.StreamName))
		if md == nil {
			return fmt.Errorf("protorest: %s.%s: not in the service descriptor", desc.ServiceName, s.StreamName)
		}
		inv := &invoke.StreamMethod{Srv: impl, Handler: s.Handler, Interceptor: g.stream, Info: grpc.StreamServerInfo{
			FullMethod:     plan.FullMethod(md),
			IsClientStream: s.ClientStreams,
			IsServerStream: s.ServerStreams,
		}}
		es, err := plan.Method(g.cfg, md, plan.Caller{Invoker: func(*bind.Request) exchange.Invoker { return inv }})
		if err != nil {
			return err
		}
		entries = append(entries, es...)
		if entries, err = appendCanonical(g.cfg, entries, md, inv); err != nil {
			return err
		}
	}
	if err := g.replace(nil, entries, nil, []string{desc.ServiceName}); err != nil {
		var ce *route.ConflictError
		if errors.As(err, &ce) {
			return fmt.Errorf("protorest: %w", err)
		}
		return err
	}
	g.listService(desc)
	return nil
}

// listService adds desc to the services GetServiceInfo lists.
func (g *Gateway) listService(desc *grpc.ServiceDesc) {
	info := grpc.ServiceInfo{Metadata: desc.Metadata}
	for _, m := range desc.Methods {
		info.Methods = append(info.Methods, grpc.MethodInfo{Name: m.MethodName})
	}
	for _, s := range desc.Streams {
		info.Methods = append(info.Methods, grpc.MethodInfo{Name: s.StreamName, IsClientStream: s.ClientStreams, IsServerStream: s.ServerStreams})
	}
	g.servicesMu.Lock()
	defer g.servicesMu.Unlock()
	if g.services == nil {
		g.services = map[string]grpc.ServiceInfo{}
	}
	g.services[desc.ServiceName] = info
}

// replace swaps the entries and services in drop for those in add and
// services, all or nothing; requests see the old routes or the new ones,
// never a mix.
// Canonical entries (plan.Canonical) go to the table of the RPC
// protocols, each with its handler, the others to the router's.
func (g *Gateway) replace(drop, add plan.Entries, dropServices, services []string) error {
	drop, dropRPC := splitCanonical(drop)
	add, addRPC := splitCanonical(add)
	err := g.routes.Replace(drop, add, dropServices, services)
	var twice *route.GroupError
	if errors.As(err, &twice) {
		return fmt.Errorf("protorest: service %s", twice)
	}
	if err != nil {
		return err
	}
	for _, ep := range addRPC {
		ep.Handler = g.protocols.Handler(ep)
	}
	g.rpcs.Replace(dropRPC, addRPC)
	return nil
}
