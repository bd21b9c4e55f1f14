package protorest

import (
	"net/http"
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/config"
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
	return slices.Clone(g.gw.OpenAPI().JSON)
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
		g.gw.OpenAPI().Serve(w, r, f == OpenAPIYAML)
	})
}
