package protorest

import "net/http"

// HandlePath serves requests for method and a path template with the
// same syntax as google.api.http ("/files/{id}", "/ui/{path=**}",
// "/v1/{name=items/*}:download") from h, a plain http.HandlerFunc. The
// template's variables, percent-decoded as a method route's are, are the
// request's path values (r.PathValue("id"); a dotted variable by its
// dotted name), as with http.ServeMux, and r.Pattern is the template.
// Custom routes share the trie, the precedence (literal > * > **) and the
// conflict checks of method routes. method "*" matches any method. h
// reads the request body as it was sent, Content-Encoding and all, and
// bounds it itself (the body limit is the methods'); under
// WithCompression a gzip or zstd body is decoded for it, and another
// coding gets 415. It returns an error for a template that does not parse
// or a route that conflicts with another, and the options' mistakes (see
// Option).
func (g *Gateway) HandlePath(method, template string, h http.HandlerFunc) error {
	return g.HandleDocumentedPath(method, template, h, RouteDoc{})
}

// RouteDoc documents a custom route in the OpenAPI document.
type RouteDoc struct {
	Summary     string // one line
	Description string // CommonMark
}

// HandleDocumentedPath is HandlePath, with what the OpenAPI document says
// of the route.
func (g *Gateway) HandleDocumentedPath(method, template string, h http.HandlerFunc, doc RouteDoc) error {
	var handler http.Handler
	if h != nil {
		handler = h
	}
	return g.gw.HandlePath(method, template, handler, doc.Summary, doc.Description)
}
