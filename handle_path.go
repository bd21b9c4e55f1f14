package protorest

import (
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/codec"
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
	e := &route.Entry[*endpoint]{
		Method:   method,
		Template: tmpl,
		Name:     "HandlePath",
		Value:    &endpoint{custom: h},
	}
	if err := g.add("", []*route.Entry[*endpoint]{e}); err != nil {
		return fmt.Errorf("protorest: %w", err)
	}
	return nil
}

func (g *Gateway) serveCustom(w http.ResponseWriter, r *http.Request, m *route.Match[*endpoint], h HandlerFunc) {
	tmpl := m.Entry.Template
	params := make(map[string]string, len(tmpl.Variables))
	for i, v := range tmpl.Variables {
		raw := m.RawVar(i)
		var val string
		var err error
		if v.End-v.Start > 1 || tmpl.Segments[v.Start].Kind == httprule.DeepWildcard {
			val, err = route.UnescapeMulti(raw, g.cfg.unescape)
		} else {
			val, err = route.UnescapeSegment(raw)
		}
		name := strings.Join(v.FieldPath, ".")
		if err != nil {
			g.writeError(w, r, status.Errorf(codes.InvalidArgument, "path variable %q: malformed percent-encoding in %s", name, codec.Quote(raw)))
			return
		}
		params[name] = val
	}
	h(w, r, params)
}
