package gateway

import (
	"net/http"

	"github.com/protorest/protorest/internal/classlimit"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/protocols"
	"github.com/protorest/protorest/internal/route"
)

// protocolSwitch is the edge layer that serves Connect, gRPC-Web and gRPC
// calls of the gateway's methods at their canonical paths
// (internal/protocols), and passes every other request on to next, the
// router. A Connect unary POST that does not say so
// (Connect-Protocol-Version) goes to a REST rule of its method and path
// when there is one; a call of a protocol off is not one. A call of
// these protocols to a path that is no method's, nor a REST route's, is
// UNIMPLEMENTED; a POST of another Content-Type to a method's canonical
// path that no REST rule serves, 415 (one without a Content-Type is
// REST's, which reads it as JSON).
func (g *Gateway) protocolSwitch(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, sure := protocols.Of(r)
		if p == protocols.None && r.Method == http.MethodPost && r.Header.Get("Content-Type") != "" {
			// Not a call of these protocols, nor REST's: the method's
			// handler refuses its Content-Type (415), as a gRPC server
			// would. (Without one, REST reads the body as JSON.)
			if ep := g.rpcs.Lookup(r.URL.EscapedPath()); ep != nil && !g.routedREST(r.Method, r.URL.EscapedPath()) {
				g.serveRPC(w, r, ep, p)
				return
			}
		}
		if p == protocols.None || !g.served.Has(p) {
			next.ServeHTTP(w, r)
			return
		}
		path := r.URL.EscapedPath()
		ep := g.rpcs.Lookup(path)
		switch {
		case ep == nil && sure && !g.routedREST(r.Method, path):
			protocols.Unimplemented(w, r, p)
		case ep == nil || !sure && g.routedREST(r.Method, path):
			next.ServeHTTP(w, r)
		default:
			g.serveRPC(w, r, ep, p)
		}
	})
}

// routedREST reports whether a REST rule serves method at path.
func (g *Gateway) routedREST(method, path string) bool {
	var m route.Match[*exchange.Endpoint]
	return g.routes.Tree().Match(method, path, &m)
}

// serveRPC serves a call of ep's method in protocol p: r.Pattern is its
// canonical path (the handler tells the Recorder the route, with the
// protocol); a call whose class is at its cap is refused in p's terms,
// with Retry-After, as REST's are (refuse).
func (g *Gateway) serveRPC(w http.ResponseWriter, r *http.Request, ep *exchange.Endpoint, p protocols.Protocol) {
	r.Pattern = ep.Pattern
	b := ep.Binding
	class := classlimit.Of(b.ClientStreams, b.ServerStreams, false)
	slot, err := g.classes.Take(class)
	if err != nil {
		g.refuse(w, r, err, b.ClientStreams, func(w http.ResponseWriter, r *http.Request, err error) {
			if rec, ok := exchange.RecorderFrom(r.Context()); ok {
				rec.Ended(err)
			}
			protocols.WriteError(w, r, p, err)
		})
		return
	}
	protocols.ServeInSlot(ep.Handler, w, r, slot)
}
