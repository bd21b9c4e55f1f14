package protorest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/invoke"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/route"
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
// another, or a WithSuccessStatus for a method the service does not have.
// The message names the method and the rule.
func (g *Gateway) RegisterService(desc *grpc.ServiceDesc, impl any) {
	if err := g.registerService(desc, impl); err != nil {
		panic(err)
	}
}

func (g *Gateway) registerService(desc *grpc.ServiceDesc, impl any) error {
	if g.misconfigured != nil {
		return g.misconfigured
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
	if err := g.checkSuccessStatus(sd); err != nil {
		return err
	}
	var entries []*route.Entry[*exchange.Endpoint]
	for i := range desc.Methods {
		m := &desc.Methods[i]
		md := sd.Methods().ByName(protoreflect.Name(m.MethodName))
		if md == nil {
			return fmt.Errorf("protorest: %s.%s: not in the service descriptor", desc.ServiceName, m.MethodName)
		}
		inv := &invoke.UnaryMethod{Srv: impl, Handler: m.Handler, Interceptor: g.interceptor}
		es, err := g.methodEntries(md, caller{invoker: func(*bind.Request) exchange.Invoker { return inv }})
		if err != nil {
			return err
		}
		entries = append(entries, es...)
	}
	for i := range desc.Streams {
		s := &desc.Streams[i]
		md := sd.Methods().ByName(protoreflect.Name(s.StreamName))
		if md == nil {
			return fmt.Errorf("protorest: %s.%s: not in the service descriptor", desc.ServiceName, s.StreamName)
		}
		inv := &invoke.StreamMethod{Srv: impl, Handler: s.Handler, Interceptor: g.streamInterceptor, Info: grpc.StreamServerInfo{
			FullMethod:     fullMethod(md),
			IsClientStream: s.ClientStreams,
			IsServerStream: s.ServerStreams,
		}}
		es, err := g.methodEntries(md, caller{invoker: func(*bind.Request) exchange.Invoker { return inv }})
		if err != nil {
			return err
		}
		entries = append(entries, es...)
	}
	if err := g.add(entries, desc.ServiceName); err != nil {
		var ce *route.ConflictError
		if errors.As(err, &ce) {
			return fmt.Errorf("protorest: %w", err)
		}
		return err
	}
	return nil
}

// checkSuccessStatus fails when WithSuccessStatus names a method of sd
// that sd does not have.
func (g *Gateway) checkSuccessStatus(sd protoreflect.ServiceDescriptor) error {
	for name := range g.cfg.Response.SuccessStatus {
		service, method, _ := strings.Cut(strings.TrimPrefix(name, "/"), "/")
		if service == string(sd.FullName()) && sd.Methods().ByName(protoreflect.Name(method)) == nil {
			return fmt.Errorf("protorest: WithSuccessStatus(%q): service %s has no method %q", strings.TrimPrefix(name, "/"), service, method)
		}
	}
	return nil
}

// fullMethod is the gRPC name of md: "/pkg.Service/Method".
func fullMethod(md protoreflect.MethodDescriptor) string {
	return "/" + string(md.Parent().FullName()) + "/" + string(md.Name())
}

// caller is how the rules of one method call it.
type caller struct {
	remote  bool                                 // a backend's method: responses are its wire bytes
	invoker func(*bind.Request) exchange.Invoker // for a rule's request plan
}

// methodEntries builds the routes of one method: its rule and the rule's
// additional bindings.
func (g *Gateway) methodEntries(md protoreflect.MethodDescriptor, c caller) ([]*route.Entry[*exchange.Endpoint], error) {
	rule, err := httprule.FromMethod(md)
	if err != nil {
		return nil, fmt.Errorf("protorest: %s: %s: %w", md.ParentFile().Path(), md.FullName(), err)
	}
	if rule == nil {
		if !g.cfg.Registration.AutoMap {
			return nil, nil
		}
		rule = &annotations.HttpRule{
			Pattern: &annotations.HttpRule_Post{Post: fullMethod(md)},
			Body:    "*",
		}
	}
	rules := append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...)
	entries := make([]*route.Entry[*exchange.Endpoint], 0, len(rules))
	for i, r := range rules {
		if i > 0 && len(r.GetAdditionalBindings()) > 0 {
			return nil, ruleError(md, r, errors.New("additional_bindings may not be nested"))
		}
		e, err := g.newBinding(md, r, i, c)
		if err != nil {
			return nil, ruleError(md, r, err)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// newBinding plans one rule of md (index 0 for the rule itself, i for
// its i-th additional binding): its route, how a request fills the
// request message, how responses are rendered, and how calls are made.
func (g *Gateway) newBinding(md protoreflect.MethodDescriptor, r *annotations.HttpRule, index int, c caller) (*route.Entry[*exchange.Endpoint], error) {
	method, path := httprule.Pattern(r)
	if method == "" {
		return nil, errors.New("the rule has no pattern")
	}
	if path == "" {
		return nil, errors.New("empty path template")
	}
	tmpl, err := httprule.Parse(path)
	if err != nil {
		return nil, err
	}
	req, err := bind.NewRequest(md.Input(), method, tmpl, r.GetBody(), g.cfg.Binding)
	if err != nil {
		return nil, err
	}
	var responseBody protoreflect.FieldDescriptor
	if rb := r.GetResponseBody(); rb != "" {
		fds, err := bind.ResolvePath(md.Output(), rb)
		if err != nil {
			return nil, fmt.Errorf("response_body %q: %w", rb, err)
		}
		if len(fds) != 1 {
			return nil, fmt.Errorf("response_body %q: must name a top-level field", rb)
		}
		responseBody = fds[0]
	}
	name := fullMethod(md)
	code, ok := g.cfg.Response.SuccessStatus[name]
	if !ok {
		code = 200
	}
	b := &exchange.Binding{
		FullMethod:    name,
		Method:        md,
		Index:         index,
		ClientStreams: md.IsStreamingClient(),
		ServerStreams: md.IsStreamingServer(),
		Request:       req,
		Response:      render.NewResponse(md.Output(), responseBody, code, c.remote, g.json),
		Invoker:       c.invoker(req),
	}
	return &route.Entry[*exchange.Endpoint]{
		Method:   method,
		Template: tmpl,
		Name:     string(md.FullName()) + " in " + md.ParentFile().Path(),
		Value:    &exchange.Endpoint{Pattern: path, Binding: b, Route: exchange.NewRoute(method, path, b)},
	}, nil
}

// ruleError names the file, the method and the rule:
// "protorest: conf/v1/conf.proto: conf.v1.Probes.GetProbe: get "/v1/{": …".
func ruleError(md protoreflect.MethodDescriptor, r *annotations.HttpRule, err error) error {
	method, path := httprule.Pattern(r)
	return fmt.Errorf("protorest: %s: %s: %s %q: %w", md.ParentFile().Path(), md.FullName(), strings.ToLower(method), path, err)
}
