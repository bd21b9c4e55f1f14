package protorest

import (
	"net/http"
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/openapi"
	"github.com/protorest/protorest/internal/route"
)

// OpenAPIInfo is what the OpenAPI document says of itself: info.title
// ("protorest" by default), info.version ("0.0.0" by default),
// info.description, and the server URLs (none by default: the document's
// own server, relative).
type OpenAPIInfo struct {
	Title       string
	Version     string
	Description string
	Servers     []string
}

// WithOpenAPIInfo sets the info and servers of the OpenAPI document
// (Gateway.OpenAPI).
func WithOpenAPIInfo(info OpenAPIInfo) Option {
	return optionFunc(func(c *config.Config) {
		c.OpenAPI.Title, c.OpenAPI.Version, c.OpenAPI.Description, c.OpenAPI.Servers = info.Title, info.Version, info.Description, info.Servers
	})
}

// WithOpenAPIComments documents in the OpenAPI document the services of
// descriptors that keep no comments (generated Go code's: a service
// registered in-process) with the comments of files: descriptors with
// source info of the same .proto files, compiled in-process (for example
// with github.com/bufbuild/protocompile, SourceInfoStandard, from .proto
// files embedded with go:embed) or read from a descriptor set written with
// source info (protoc --include_source_info, buf build). A declaration
// takes the comment of the declaration of the same full name in files;
// descriptors with source info of their own keep theirs.
func WithOpenAPIComments(files ...protoreflect.FileDescriptor) Option {
	return optionFunc(func(c *config.Config) { c.OpenAPI.Comments = append(c.OpenAPI.Comments, files...) })
}

// OpenAPIFormat is a serialization of the OpenAPI document.
type OpenAPIFormat uint8

const (
	// OpenAPIJSON is application/json.
	OpenAPIJSON OpenAPIFormat = iota
	// OpenAPIYAML is application/yaml: the same document, as YAML 1.2.
	OpenAPIYAML
)

// OpenAPI returns the OpenAPI 3.1 document of what the gateway serves
// now, as JSON: one operation per rule of every method registered
// (additional bindings included, operationId Service_Method, then _1,
// _2…) and per custom route; paths, path and query parameters, bodies,
// schemas and success statuses as the gateway serves them, with its JSON
// options; google.rpc.Status as every error's schema; streams described
// per framing. Summaries and descriptions come from the descriptors'
// comments, when they have source info (.proto files compiled
// in-process do; generated Go code keeps none: see WithOpenAPIComments).
//
// The document is built on first use after the routes change (a
// registration, a RegisterRemote or Reload that changed them), and
// cached: registering costs nothing more. The bytes returned are the
// caller's.
func (g *Gateway) OpenAPI() []byte {
	return slices.Clone(g.openapiDoc().JSON)
}

// OpenAPIHandler serves the OpenAPI document in format f, with a strong
// ETag (a hash of the document), answering 304 Not Modified to a request
// whose If-None-Match has it. Mount it as a custom route to have it in
// the document too:
//
//	gw.HandleDocumentedPath("GET", "/openapi.json", gw.OpenAPIHandler(protorest.OpenAPIJSON).ServeHTTP,
//		protorest.RouteDoc{Summary: "This API's OpenAPI document."})
func (g *Gateway) OpenAPIHandler(f OpenAPIFormat) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.openapiDoc().Serve(w, r, f == OpenAPIYAML)
	})
}

// RouteDoc documents a custom route in the OpenAPI document.
type RouteDoc struct {
	Summary     string // one line
	Description string // CommonMark
}

// HandleDocumentedPath is HandlePath, with what the OpenAPI document says
// of the route.
func (g *Gateway) HandleDocumentedPath(method, template string, h http.HandlerFunc, doc RouteDoc) error {
	if g.misconfigured != nil {
		return g.misconfigured
	}
	return g.handlePath(method, template, h, doc)
}

// openapiDoc returns the document of the routes as they are, building it
// when they changed since the last one.
func (g *Gateway) openapiDoc() *openapi.Served {
	return g.openapi.Get(g.routes.Version(), func() ([]byte, uint64) {
		entries, version := g.routes.Entries()
		opts := g.cfg.OpenAPI
		opts.JSON = g.json.MarshalOptions
		return openapi.Build(openapiRoutes(entries), opts), version
	})
}

// openapiRoutes are the table's entries as the document builder takes
// them.
func openapiRoutes(entries []*route.Entry[*exchange.Endpoint]) []openapi.Route {
	routes := make([]openapi.Route, 0, len(entries))
	for _, e := range entries {
		r := openapi.Route{Method: e.Method, Template: e.Template}
		if b := e.Value.Binding; b != nil {
			r.Rule = &openapi.Rule{Method: b.Method, FullMethod: b.FullMethod, Binding: b.Index, Request: b.Request, Response: b.Response}
		} else {
			r.Summary, r.Description = e.Value.Summary, e.Value.Description
		}
		routes = append(routes, r)
	}
	return routes
}
