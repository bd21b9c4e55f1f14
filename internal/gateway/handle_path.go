package gateway

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/protorest/protorest/internal/edge"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/route"
)

// HandlePath routes method and template to h, a custom route, documented
// by summary and description; under compression, h reads the body
// decoded. Its error is the options' mistakes, a template that does not
// parse, or a route that conflicts.
func (g *Gateway) HandlePath(method, template string, h http.Handler, summary, description string) error {
	if g.err != nil {
		return g.err
	}
	return g.handlePath(method, template, h, summary, description)
}

func (g *Gateway) handlePath(method, template string, h http.Handler, summary, description string) error {
	if method == "" || h == nil {
		return fmt.Errorf("protorest: HandlePath(%q, %q): method and handler are required", method, template)
	}
	tmpl, err := httprule.Parse(template)
	if err != nil {
		return fmt.Errorf("protorest: HandlePath %s %q: %w", method, template, err)
	}
	if g.cfg.Compression != nil {
		h = edge.DecodeRequest(g.env.Render.ErrorHandler)(h)
	}
	ep := &exchange.Endpoint{Pattern: template, Handler: h, Route: exchange.NewRoute(method, template, nil), Summary: summary, Description: description}
	for _, v := range tmpl.Variables {
		ep.Vars = append(ep.Vars, exchange.Var{Name: strings.Join(v.FieldPath, "."), Multi: tmpl.MultiSegment(v)})
	}
	e := &route.Entry[*exchange.Endpoint]{
		Method:   method,
		Template: tmpl,
		Name:     "HandlePath",
		Value:    ep,
	}
	if err := g.replace(nil, []*route.Entry[*exchange.Endpoint]{e}, nil, nil); err != nil {
		return fmt.Errorf("protorest: %w", err)
	}
	return nil
}
