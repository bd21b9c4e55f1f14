package gateway

import (
	"github.com/protorest/protorest/internal/openapi"
	"github.com/protorest/protorest/internal/plan"
)

// OpenAPI returns the OpenAPI document of the routes as they are,
// building it when they changed since the last one.
func (g *Gateway) OpenAPI() *openapi.Served {
	return g.openapi.Get(g.routes.Version(), func() ([]byte, uint64) {
		entries, version := g.routes.Entries()
		return openapi.Build(openapiRoutes(entries), g.cfg.OpenAPI), version
	})
}

// openapiRoutes are the table's entries as the document builder takes
// them.
func openapiRoutes(entries plan.Entries) []openapi.Route {
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
