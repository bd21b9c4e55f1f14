package protorest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/route"
)

// RegisterService exposes the methods of a generated service that carry
// google.api.http rules; it is what pb.RegisterXxxServer(gw, impl) calls.
// The service's descriptor is looked up by name in the gateway's files
// (WithFiles; by default the ones generated code registers).
//
// RegisterService panics, as http.ServeMux.Handle does, when impl does not
// implement the service, when the service is unknown or already
// registered, or when a rule cannot be served: a template that does not
// parse, a field path that does not resolve, or a route that conflicts
// with another. The message names the method and the rule.
func (g *Gateway) RegisterService(desc *grpc.ServiceDesc, impl any) {
	if err := g.registerService(desc, impl); err != nil {
		panic(err)
	}
}

func (g *Gateway) registerService(desc *grpc.ServiceDesc, impl any) error {
	if impl != nil && desc.HandlerType != nil {
		ht := reflect.TypeOf(desc.HandlerType).Elem()
		if st := reflect.TypeOf(impl); !st.Implements(ht) {
			return fmt.Errorf("protorest: RegisterService found the handler of type %v that does not satisfy %v", st, ht)
		}
	}
	d, err := g.cfg.files.FindDescriptorByName(protoreflect.FullName(desc.ServiceName))
	if err != nil {
		return fmt.Errorf("protorest: service %s: no descriptor (import its generated package, or pass WithFiles): %w", desc.ServiceName, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return fmt.Errorf("protorest: %s is not a service", desc.ServiceName)
	}
	var entries []*route.Entry[*endpoint]
	for i := range desc.Methods {
		m := &desc.Methods[i]
		md := sd.Methods().ByName(protoreflect.Name(m.MethodName))
		if md == nil {
			return fmt.Errorf("protorest: %s.%s: not in the service descriptor", desc.ServiceName, m.MethodName)
		}
		target := &invoker{fullMethod: "/" + desc.ServiceName + "/" + m.MethodName, srv: impl, handler: m.Handler}
		es, err := g.methodEntries(md, target)
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
		target := &invoker{
			fullMethod:    "/" + desc.ServiceName + "/" + s.StreamName,
			srv:           impl,
			streamHandler: s.Handler,
			clientStreams: s.ClientStreams,
			serverStreams: s.ServerStreams,
		}
		es, err := g.methodEntries(md, target)
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

// invoker is how a method is called: in-process through its generated
// handler, or on a remote backend through conn.
type invoker struct {
	fullMethod    string
	clientStreams bool
	serverStreams bool
	srv           any                // in-process
	handler       grpc.MethodHandler // in-process unary
	streamHandler grpc.StreamHandler // in-process streaming
	conn          grpc.ClientConnInterface
}

// streaming reports whether the method streams either way.
func (i *invoker) streaming() bool { return i.clientStreams || i.serverStreams }

// httpRule returns the google.api.http rule of a method, or nil.
func httpRule(md protoreflect.MethodDescriptor) *annotations.HttpRule {
	opts := md.Options()
	if opts == nil || !proto.HasExtension(opts, annotations.E_Http) {
		return nil
	}
	rule, _ := proto.GetExtension(opts, annotations.E_Http).(*annotations.HttpRule)
	return rule
}

// methodEntries builds the routes of one method: its rule and the rule's
// additional bindings.
func (g *Gateway) methodEntries(md protoreflect.MethodDescriptor, target *invoker) ([]*route.Entry[*endpoint], error) {
	rule := httpRule(md)
	if rule == nil {
		if !g.cfg.autoMap {
			return nil, nil
		}
		rule = &annotations.HttpRule{
			Pattern: &annotations.HttpRule_Post{Post: "/" + string(md.Parent().FullName()) + "/" + string(md.Name())},
			Body:    "*",
		}
	}
	rules := append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...)
	entries := make([]*route.Entry[*endpoint], 0, len(rules))
	for i, r := range rules {
		if i > 0 && len(r.GetAdditionalBindings()) > 0 {
			return nil, ruleError(md, r, errors.New("additional_bindings may not be nested"))
		}
		e, err := g.newBinding(md, r, target)
		if err != nil {
			return nil, ruleError(md, r, err)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// ruleError names the file, the method and the rule:
// "protorest: conf/v1/conf.proto: conf.v1.Probes.GetProbe: get "/v1/{": …".
func ruleError(md protoreflect.MethodDescriptor, r *annotations.HttpRule, err error) error {
	method, path := rulePattern(r)
	return fmt.Errorf("protorest: %s: %s: %s %q: %w", md.ParentFile().Path(), md.FullName(), strings.ToLower(method), path, err)
}

// methodName names a method and its file in conflict errors.
func methodName(md protoreflect.MethodDescriptor) string {
	return string(md.FullName()) + " in " + md.ParentFile().Path()
}

// rulePattern returns the HTTP method and path template of a rule.
func rulePattern(r *annotations.HttpRule) (method, path string) {
	switch p := r.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return "GET", p.Get
	case *annotations.HttpRule_Put:
		return "PUT", p.Put
	case *annotations.HttpRule_Post:
		return "POST", p.Post
	case *annotations.HttpRule_Delete:
		return "DELETE", p.Delete
	case *annotations.HttpRule_Patch:
		return "PATCH", p.Patch
	case *annotations.HttpRule_Custom:
		return p.Custom.GetKind(), p.Custom.GetPath()
	}
	return "", ""
}
