package edge

import (
	"net/http"

	"github.com/protorest/protorest/internal/cors"
	"github.com/protorest/protorest/internal/httperr"
)

// CORS applies p to cross-origin requests: a preflight is answered from
// the route table (allowed returns the methods of an escaped path's
// routes; a path with none is left to the router's 404), an actual
// request gets the headers that let the page read it, and every response
// varies on Origin. An origin p does not allow gets its 403 through fail.
// nil when p is nil.
func CORS(p *cors.Policy, allowed func(path string) []string, fail httperr.Handler) Layer {
	if p == nil {
		return nil
	}
	return func(next http.Handler) http.Handler { return &crossOrigin{p, allowed, fail, next} }
}

type crossOrigin struct {
	policy  *cors.Policy
	allowed func(path string) []string
	fail    httperr.Handler
	next    http.Handler
}

func (c *crossOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if cors.Origin(r) == "" {
		cors.VaryOrigin(w.Header())
		c.next.ServeHTTP(w, r)
		return
	}
	if !cors.IsPreflight(r) {
		c.next.ServeHTTP(c.policy.Actual(w, r), r)
		return
	}
	methods := c.allowed(r.URL.EscapedPath())
	if len(methods) == 0 {
		c.next.ServeHTTP(w, r)
		return
	}
	if err := c.policy.Preflight(w, r, methods); err != nil {
		c.fail(w, r, err)
	}
}
