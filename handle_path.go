package protorest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/route"
)

// HandlerFunc serves a custom route. pathParams maps each variable of the
// template (by its dotted name) to its percent-decoded value. The
// signature is grpc-gateway's runtime.HandlerFunc, so handlers move over
// unchanged.
type HandlerFunc func(w http.ResponseWriter, r *http.Request, pathParams map[string]string)

// HandlePath serves requests for method and a path template with the
// same syntax as google.api.http ("/files/{id}", "/ui/{path=**}",
// "/v1/{name=items/*}:download") from h. Custom routes share the trie,
// the precedence (literal > * > **) and the conflict checks of method
// routes. method "*" matches any method. It returns an error for a
// template that does not parse or a route that conflicts with another.
func (g *Gateway) HandlePath(method, template string, h HandlerFunc) error {
	if method == "" || h == nil {
		return fmt.Errorf("protorest: HandlePath(%q, %q): method and handler are required", method, template)
	}
	tmpl, err := httprule.Parse(template)
	if err != nil {
		return fmt.Errorf("protorest: HandlePath %s %q: %w", method, template, err)
	}
	ep := &endpoint{custom: h}
	for _, v := range tmpl.Variables {
		ep.customVars = append(ep.customVars, customVar{name: strings.Join(v.FieldPath, "."), multi: isMultiSegment(tmpl, v)})
	}
	e := &route.Entry[*endpoint]{
		Method:   method,
		Template: tmpl,
		Name:     "HandlePath",
		Value:    ep,
	}
	if err := g.add([]*route.Entry[*endpoint]{e}); err != nil {
		return fmt.Errorf("protorest: %w", err)
	}
	return nil
}

// customVar is a custom route's variable, planned at registration.
type customVar struct {
	name  string // the dotted path, the key in pathParams
	multi bool
}

func (g *Gateway) serveCustom(w http.ResponseWriter, r *http.Request, m *route.Match[*endpoint], ep *endpoint) {
	params := make(map[string]string, len(ep.customVars))
	for i, v := range ep.customVars {
		val, err := g.pathValue(m.RawVar(i), v.name, v.multi)
		if err != nil {
			g.writeError(w, r, err)
			return
		}
		params[v.name] = val
	}
	ep.custom(w, r, params)
}
