// Package plan plans the routes of a gateway's methods at registration:
// for each google.api.http rule of a method (its additional bindings
// included), the route, how a request fills the request message, how the
// responses are rendered, and how the method is called. The per-request
// path only runs these plans.
package plan

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/route"
)

// Entries are the routes of a method, service or backend, as the route
// table takes them.
type Entries = []*route.Entry[*exchange.Endpoint]

// A Caller is how the rules of one method call it.
type Caller struct {
	Remote  bool                                 // a backend's method: responses are its wire bytes
	Invoker func(*bind.Request) exchange.Invoker // for a rule's request plan
}

// FullMethod is the gRPC name of md: "/pkg.Service/Method".
func FullMethod(md protoreflect.MethodDescriptor) string {
	return "/" + string(md.Parent().FullName()) + "/" + string(md.Name())
}

// CheckSuccessStatus fails when cfg gives a success status to a method
// of sd that sd does not have.
func CheckSuccessStatus(cfg *config.Config, sd protoreflect.ServiceDescriptor) error {
	for name := range cfg.Response.SuccessStatus {
		service, method, _ := strings.Cut(strings.TrimPrefix(name, "/"), "/")
		if service == string(sd.FullName()) && sd.Methods().ByName(protoreflect.Name(method)) == nil {
			return fmt.Errorf("protorest: WithSuccessStatus(%q): service %s has no method %q", strings.TrimPrefix(name, "/"), service, method)
		}
	}
	return nil
}

// Method plans the routes of md: its rule and the rule's additional
// bindings; none when it has no rule (unless cfg maps every method). The
// error names the file, the method and the rule.
func Method(cfg *config.Config, md protoreflect.MethodDescriptor, c Caller) (Entries, error) {
	rule, err := httprule.FromMethod(md)
	if err != nil {
		return nil, fmt.Errorf("protorest: %s: %s: %w", md.ParentFile().Path(), md.FullName(), err)
	}
	if rule == nil {
		if !cfg.Registration.AutoMap {
			return nil, nil
		}
		rule = &annotations.HttpRule{
			Pattern: &annotations.HttpRule_Post{Post: FullMethod(md)},
			Body:    "*",
		}
	}
	check, err := methodCheck(cfg, md)
	if err != nil {
		return nil, err
	}
	rules := append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...)
	entries := make(Entries, 0, len(rules))
	for i, r := range rules {
		if i > 0 && len(r.GetAdditionalBindings()) > 0 {
			return nil, ruleError(md, r, errors.New("additional_bindings may not be nested"))
		}
		if i == 0 && noPattern(r) {
			continue // grpc-gateway routes its additional bindings only
		}
		e, err := binding(cfg, md, r, i, c, check)
		if err != nil {
			return nil, ruleError(md, r, err)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// RPCMethod is the method of a canonical entry (Canonical): not an HTTP
// method, so that it never conflicts with a REST rule and never answers
// a REST request.
const RPCMethod = "RPC"

// Canonical plans the canonical entry of md, which Connect, gRPC-Web and
// gRPC calls reach (internal/protocols): its path is FullMethod, its
// request the whole body, its response the whole message, whatever
// google.api.http rules md has.
func Canonical(cfg *config.Config, md protoreflect.MethodDescriptor, c Caller) (*route.Entry[*exchange.Endpoint], error) {
	rule := &annotations.HttpRule{Pattern: &annotations.HttpRule_Post{Post: FullMethod(md)}, Body: "*"}
	check, err := methodCheck(cfg, md)
	if err != nil {
		return nil, err
	}
	e, err := binding(cfg, md, rule, 0, c, check)
	if err != nil {
		return nil, ruleError(md, rule, err)
	}
	e.Method = RPCMethod
	return e, nil
}

// noPattern reports whether a rule sets no pattern, or get, put, post,
// delete or patch with an empty path: grpc-gateway's generator leaves
// such a rule out (descriptor.newMethod, "No pattern specified"), where
// an additional binding without one crashes it.
func noPattern(r *annotations.HttpRule) bool {
	switch p := r.GetPattern().(type) {
	case nil:
		return true
	case *annotations.HttpRule_Custom:
		return false
	default:
		_, path := httprule.Pattern(r)
		return path == "" && p != nil
	}
}

// binding plans one rule of md (index 0 for the rule itself, i for its
// i-th additional binding).
func binding(cfg *config.Config, md protoreflect.MethodDescriptor, r *annotations.HttpRule, index int, c Caller, check func(proto.Message) error) (*route.Entry[*exchange.Endpoint], error) {
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
	req, err := bind.NewRequest(md.Input(), method, tmpl, r.GetBody(), cfg.Binding)
	if err != nil {
		return nil, err
	}
	req.Check = check
	// response_body may name a nested field, and "*" is the whole
	// response, as grpc-gateway serves them (http.proto: a top-level
	// field).
	var responseBody []protoreflect.FieldDescriptor
	if rb := r.GetResponseBody(); rb != "" && rb != "*" {
		if responseBody, err = bind.ResolvePath(md.Output(), rb); err != nil {
			return nil, fmt.Errorf("response_body %q: %w", rb, err)
		}
	}
	name := FullMethod(md)
	code, ok := cfg.Response.SuccessStatus[name]
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
		Response:      render.NewResponse(md.Output(), responseBody, code, c.Remote, cfg.Binding.JSON),
		Invoker:       c.Invoker(req),
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

// methodCheck is the check of md's request messages that cfg's Validator
// gives, compiled once for all of md's rules: nil without a Validator or
// without rules. Its error names the file and the method.
func methodCheck(cfg *config.Config, md protoreflect.MethodDescriptor) (func(proto.Message) error, error) {
	if cfg.Validation == nil {
		return nil, nil
	}
	check, err := cfg.Validation.ForMethod(md)
	if err != nil {
		return nil, fmt.Errorf("protorest: %s: %s: validation rules: %w", md.ParentFile().Path(), md.FullName(), err)
	}
	return check, nil
}
