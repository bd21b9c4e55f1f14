package exchange

import (
	"net/http"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/render"
)

// An Endpoint is what a route leads to: a method's rule (Binding) or a
// custom route (Handler).
type Endpoint struct {
	// Pattern is the template as registered, what ServeHTTP sets as
	// r.Pattern.
	Pattern string
	// Route describes the route to observers (protorest.Route), what
	// RouteKey finds in a call's context.
	Route *Route

	Binding *Binding

	Handler http.Handler
	Vars    []Var // the custom route's variables, in template order
	// Summary and Description document the custom route in the OpenAPI
	// document.
	Summary, Description string
}

// A Route is what a request matched, as protorest.Route describes it;
// the two types have the same fields, so that one converts to the other.
type Route struct {
	Method, Template, Pattern    string
	FullMethod                   string
	ClientStreams, ServerStreams bool
	Protocol                     string
}

// NewRoute returns the route of method and template, calling b's method
// (nil for a custom route).
func NewRoute(method, template string, b *Binding) *Route {
	rt := &Route{Method: method, Template: template, Pattern: method + " " + template}
	if b != nil {
		rt.FullMethod, rt.ClientStreams, rt.ServerStreams = b.FullMethod, b.ClientStreams, b.ServerStreams
	}
	return rt
}

// RouteKey is the context key under which a call's context answers its
// Endpoint's Route.
type RouteKey struct{}

// A Var is a custom route's path variable.
type Var struct {
	Name  string // the dotted path: the name r.PathValue takes
	Multi bool   // covers several segments, or "**"
}

// A Binding is one HTTP rule of one method, planned at registration: the
// per-request path only runs these plans.
type Binding struct {
	FullMethod    string // "/pkg.Service/Method"
	Method        protoreflect.MethodDescriptor
	Index         int // 0 for the method's rule, i for its i-th additional binding
	ClientStreams bool
	ServerStreams bool

	Request  *bind.Request
	Response *render.Response
	Invoker  Invoker
}

// Streaming reports whether the method streams either way.
func (b *Binding) Streaming() bool { return b.ClientStreams || b.ServerStreams }

// An Invoker makes a method's calls: it reads the request messages from
// the exchange's Source (or, in-process, has the generated handler call
// DecodeFunc), calls the method, and sends what
// it answers, then its outcome, to the exchange's Sink. It knows nothing
// of HTTP framing. There are four: in-process or remote, unary or
// streaming (internal/invoke, internal/remote).
type Invoker interface {
	Invoke(x *Exchange)
}
