package protorest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/route"
)

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
// or a route that conflicts with another.
func (g *Gateway) HandlePath(method, template string, h http.HandlerFunc) error {
	if g.misconfigured != nil {
		return g.misconfigured
	}
	return g.handlePath(method, template, h, RouteDoc{})
}

func (g *Gateway) handlePath(method, template string, h http.HandlerFunc, doc RouteDoc) error {
	if method == "" || h == nil {
		return fmt.Errorf("protorest: HandlePath(%q, %q): method and handler are required", method, template)
	}
	tmpl, err := httprule.Parse(template)
	if err != nil {
		return fmt.Errorf("protorest: HandlePath %s %q: %w", method, template, err)
	}
	ep := &exchange.Endpoint{Pattern: template, Handler: h, Route: exchange.NewRoute(method, template, nil), Summary: doc.Summary, Description: doc.Description}
	for _, v := range tmpl.Variables {
		ep.Vars = append(ep.Vars, exchange.Var{Name: strings.Join(v.FieldPath, "."), Multi: tmpl.MultiSegment(v)})
	}
	e := &route.Entry[*exchange.Endpoint]{
		Method:   method,
		Template: tmpl,
		Name:     "HandlePath",
		Value:    ep,
	}
	if err := g.add([]*route.Entry[*exchange.Endpoint]{e}); err != nil {
		return fmt.Errorf("protorest: %w", err)
	}
	return nil
}
