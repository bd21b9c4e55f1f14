// Package openapi builds the OpenAPI 3.1 document of what a gateway
// serves, from its registered routes: the rules of its methods, with the
// request plans (internal/bind) and response plans (internal/render) the
// gateway runs, and its custom routes. What a route accepts is read from
// those plans, not from the rule again: a query parameter is offered only
// when the binder takes it, a schema names fields as the gateway's JSON
// options write them, a success status is the one the gateway answers.
//
// The mapping, one concept a file:
//
//	paths.go      templates → OpenAPI paths and path parameters
//	operation.go  one operation per rule (additional bindings included) or custom route
//	parameters.go query parameters, from the request plan
//	schemas.go    messages, enums and fields → components.schemas; well-known types inline
//	streaming.go  server, client and bidirectional streams: per-line schemas by framing
//	comments.go   summaries and descriptions from the descriptors' source comments
//	yaml.go       the document as YAML, from its JSON
//
// encode.go writes the document as JSON, by hand (jsonwrite.go holds its
// primitives): megabytes for thousands of routes, in the bytes
// encoding/json would write.
package openapi

import (
	"cmp"
	"maps"
	"runtime"
	"slices"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/render"
)

// Version is the OpenAPI version of the documents built here.
const Version = "3.1.0"

// Options are the settings of a document.
type Options struct {
	Title       string // info.title; "protorest" when empty
	Version     string // info.version; "0.0.0" when empty
	Description string // info.description
	Servers     []string
	// Comments are files with source info whose comments document the
	// descriptors that have none of their own (those of generated Go
	// code), matched by full name: the same .proto files, compiled
	// in-process or read from a descriptor set written with source info.
	Comments []protoreflect.FileDescriptor
	// JSON is how the gateway writes JSON: field names (UseProtoNames),
	// enums (UseEnumNumbers), and whether unpopulated fields are written
	// (EmitUnpopulated), which decides whether a required field is
	// always in a response.
	JSON protojson.MarshalOptions
	// Schemas, when not nil, adds to the schemas of fields and messages
	// what the rules their descriptors carry ask (see SchemaHook).
	Schemas SchemaHook
}

// A Route is one route of the gateway.
type Route struct {
	Method   string // the HTTP method: "GET", …, a custom kind, or "*" for any
	Template *httprule.Template
	Rule     *Rule // the method's rule, or nil for a custom route

	// Summary and Description document a custom route.
	Summary, Description string
}

// A Rule is one google.api.http rule of a method, as the gateway planned
// it.
type Rule struct {
	Method     protoreflect.MethodDescriptor
	FullMethod string // the gateway's name of Method, "/pkg.Service/Method"
	Binding    int    // 0 for the rule itself, i for its i-th additional binding
	Request    *bind.Request
	Response   *render.Response
}

// Build returns the document of routes, in compact JSON. It does not depend on
// the routes' order: they are taken by service, method (in declaration
// order) and binding, then the custom routes by template and method. In
// that order the first route of a path shape names its parameters, and
// an operation ID already taken gets a suffix.
//
// A large document's operations are built by as many goroutines as
// GOMAXPROCS allows (see workers); the bytes are the same.
func Build(routes []Route, opts Options) []byte {
	var e encoder
	return e.document(nil, New(routes, opts))
}

// New returns the document of routes; see Build.
func New(routes []Route, opts Options) *Document {
	return newDocument(routes, opts, workers(len(routes)))
}

// newDocument is New, with the operations built by w goroutines.
func newDocument(routes []Route, opts Options, w int) *Document {
	routes = sortRoutes(routes)
	doc := &Document{
		OpenAPI: Version,
		Info:    Info{Title: opts.Title, Version: opts.Version, Description: opts.Description},
		Paths:   make(map[string]*PathItem, len(routes)),
	}
	if doc.Info.Title == "" {
		doc.Info.Title = "protorest"
	}
	if doc.Info.Version == "" {
		doc.Info.Version = "0.0.0"
	}
	for _, s := range opts.Servers {
		doc.Servers = append(doc.Servers, Server{URL: s})
	}
	// Name each operation and path parameter, in order: a name depends on
	// the names before it.
	var jobs []operationJob
	ops := make([]Operation, countOperations(routes))
	ids := newOperationIDs(routes)
	shapes := &pathShapes{shapes: make(map[string]*pathShape, len(routes)), all: make([]*openPath, 0, len(routes))}
	for i := range routes {
		shapes.path(&routes[i])
	}
	shapes.finish()
	services := map[protoreflect.FullName]protoreflect.ServiceDescriptor{}
	for i := range routes {
		r := &routes[i]
		path := shapes.all[i]
		var one [1]string
		for _, method := range operationMethods(r.Method, &one) {
			op := &ops[len(jobs)]
			op.OperationID = ids.id(i, method, r.Method == "*")
			jobs = append(jobs, operationJob{op, r, path})
			item := doc.Paths[path.key]
			if item == nil {
				item = &PathItem{}
				doc.Paths[path.key] = item
			}
			item.set(method, op) // the first route of a method on a path wins, as the router's precedence
		}
		if r.Rule != nil {
			sd := r.Rule.Method.Parent().(protoreflect.ServiceDescriptor)
			services[sd.FullName()] = sd
		}
	}
	// Then build them, each builder its share.
	builders := buildOperations(jobs, opts, commentsByName(opts.Comments), w)
	b := builders[0]
	for _, name := range slices.Sorted(maps.Keys(services)) {
		sd := services[name]
		doc.Tags = append(doc.Tags, Tag{Name: string(name), Description: b.comment(sd).text()})
	}
	errorUsed := false
	for _, other := range builders {
		for name, s := range other.schemas {
			if _, ok := b.schemas[name]; !ok {
				b.schemas[name] = s // a component is the same whichever builder made it
			}
		}
		errorUsed = errorUsed || other.errorRef != nil
	}
	doc.Components.Schemas = b.schemas
	if errorUsed {
		doc.Components.Responses = map[string]*Response{errorResponse: b.errorResponse()}
	}
	return doc
}

// An operationJob is an operation to build: that of route r at path, its
// ID given.
type operationJob struct {
	op   *Operation
	r    *Route
	path *openPath
}

// buildOperations builds the operations of jobs with w builders, each on
// a goroutine of its own for a contiguous share of jobs, and returns the
// builders, whose components are the document's.
func buildOperations(jobs []operationJob, opts Options, borrowed map[protoreflect.FullName]docComment, w int) []*builder {
	builders := make([]*builder, w)
	var wg sync.WaitGroup
	for k := range builders {
		b := newBuilder(opts, borrowed)
		builders[k] = b
		share := jobs[k*len(jobs)/w : (k+1)*len(jobs)/w]
		build := func() {
			for _, j := range share {
				b.operation(j.op, j.r, j.path)
			}
		}
		if k == w-1 {
			build() // on this goroutine
			continue
		}
		wg.Go(build)
	}
	wg.Wait()
	return builders
}

// workers is how many goroutines build a document of n operations: one
// for each perRoutine of them, at most GOMAXPROCS. (Writing the document
// by several was tried: no faster, measured, and a copy of it more.)
func workers(n int) int {
	const perRoutine = 500
	return max(1, min(runtime.GOMAXPROCS(0), n/perRoutine))
}

// countOperations returns how many operations routes have.
func countOperations(routes []Route) int {
	n := 0
	var one [1]string
	for i := range routes {
		n += len(operationMethods(routes[i].Method, &one))
	}
	return n
}

// sortRoutes returns routes in the document's order: rules by service,
// method and binding, before custom routes by template and method;
// routes equal in that order stay in the order given. Each route's key is
// read once, not at each comparison. A root with a verb ("/:v", which
// grpc-gateway serves) is left out: no request reaches it, there or here.
func sortRoutes(routes []Route) []Route {
	keys := make([]routeKey, 0, len(routes))
	for i := range routes {
		if t := routes[i].Template; len(t.Segments) == 0 && t.Verb != "" {
			continue
		}
		keys = append(keys, newRouteKey(&routes[i], i))
	}
	slices.SortFunc(keys, compareRouteKeys)
	sorted := make([]Route, len(keys))
	for i, k := range keys {
		sorted[i] = routes[k.index]
	}
	return sorted
}

// A routeKey is what orders a route: its rule's service, method and
// binding, or a custom route's template and method; then its index in
// the routes given.
type routeKey struct {
	custom   bool
	service  protoreflect.FullName
	method   int // the method's index in its service
	binding  int
	template string
	verb     string // a custom route's HTTP method
	index    int
}

func newRouteKey(r *Route, index int) routeKey {
	if r.Rule == nil {
		return routeKey{custom: true, template: r.Template.String(), verb: r.Method, index: index}
	}
	md := r.Rule.Method
	return routeKey{service: md.Parent().FullName(), method: md.Index(), binding: r.Rule.Binding, index: index}
}

func compareRouteKeys(a, b routeKey) int {
	if a.custom != b.custom {
		if a.custom {
			return 1
		}
		return -1
	}
	return cmp.Or(
		cmp.Compare(a.service, b.service),
		cmp.Compare(a.method, b.method),
		cmp.Compare(a.binding, b.binding),
		cmp.Compare(a.template, b.template),
		cmp.Compare(a.verb, b.verb),
		cmp.Compare(a.index, b.index))
}

// operationMethods returns the OpenAPI methods of an HTTP method: "*"
// stands for the five that carry APIs; any other is itself, in one (the
// caller's, so that naming a route's methods allocates nothing).
func operationMethods(method string, one *[1]string) []string {
	if method == "*" {
		return apiMethods
	}
	one[0] = method
	return one[:]
}

var apiMethods = []string{"GET", "PUT", "POST", "DELETE", "PATCH"}

// set puts op under method, unless an operation is there already.
func (p *PathItem) set(method string, op *Operation) {
	var slot **Operation
	switch method {
	case "GET":
		slot = &p.Get
	case "PUT":
		slot = &p.Put
	case "POST":
		slot = &p.Post
	case "DELETE":
		slot = &p.Delete
	case "OPTIONS":
		slot = &p.Options
	case "HEAD":
		slot = &p.Head
	case "PATCH":
		slot = &p.Patch
	case "TRACE":
		slot = &p.Trace
	default:
		if p.OtherMethods == nil {
			p.OtherMethods = map[string]*Operation{}
		}
		if p.OtherMethods[method] == nil {
			p.OtherMethods[method] = op
		}
		return
	}
	if *slot == nil {
		*slot = op
	}
}
