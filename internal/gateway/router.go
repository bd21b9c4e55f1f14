package gateway

import (
	"net/http"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/classlimit"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/h1framing"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/protocols"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/ws"
)

// serve is the router, the innermost handler of the edge chain: it
// routes r (a WebSocket handshake to its streaming method), sets
// r.Pattern, refuses a call whose class is at its cap (503, Retry-After)
// and runs the method's exchange (negotiate, bind, invoke; the sink
// renders, the error handler answers errors), or the custom route's
// handler.
func (g *Gateway) serve(w http.ResponseWriter, r *http.Request) {
	t := g.routes.Tree()
	path := r.URL.EscapedPath()
	var m route.Match[*exchange.Endpoint]
	upgrade := ws.IsUpgrade(r) && ws.Match(t, path, &m)
	if !upgrade && !t.Match(r.Method, path, &m) {
		g.noRoute(w, r, t, path)
		return
	}
	ep := m.Entry.Value
	r.Pattern = ep.Pattern
	rec, recorded := exchange.RecorderFrom(r.Context())
	if recorded {
		rec.Routed(ep.Route)
	}
	if ep.Handler != nil {
		g.serveCustom(w, r, &m, ep)
		return
	}
	b := ep.Binding
	if b.ClientStreams && !upgrade {
		// Read while it is answered (exchange.Bind): what becomes of an
		// HTTP/1.x body not read to its end is decided as the answer
		// starts.
		if u := h1framing.NewUnread(w, r, true, g.env.ReadIdleTimeout); u != nil {
			u.KeepChunkedRest() // as grpc-gateway's (net/http's) clients expect
			defer u.Finish()
			w = u
		}
	}
	class := classlimit.Of(b.ClientStreams, b.ServerStreams, upgrade)
	slot, err := g.classes.Take(class)
	if err != nil {
		g.refuse(w, r, err, b.ClientStreams, g.env.Render.ErrorHandler)
		return
	}
	x := exchange.Get(&g.env, w, r)
	defer exchange.Put(x)
	x.Match, x.Binding, x.Recorder, x.Slot = m, b, rec, slot
	if upgrade {
		ws.Serve(x)
		return
	}
	defer x.Recover()
	x.Negotiate()
	if err := x.Bind(); err != nil {
		x.Fail(err)
		return
	}
	x.Invoke()
}

// refuse answers a call its class has no room for with answer (503 with
// Retry-After, for REST). A request stream over HTTP/1.x is not read: its
// connection is closed after the answer, which net/http would otherwise
// hold back until it had read the rest of a body that may never end.
func (g *Gateway) refuse(w http.ResponseWriter, r *http.Request, err error, requestStream bool, answer httperr.Handler) {
	h := w.Header()
	httperr.SetRetryAfter(h, err)
	if requestStream && r.ProtoMajor == 1 {
		h.Set("Connection", "close")
	}
	answer(w, r, err)
}

// noRoute answers a request no route matched: 405 with Allow when the
// path has routes for other methods, else 404, or 503 while a pending
// backend's routes are not loaded.
func (g *Gateway) noRoute(w http.ResponseWriter, r *http.Request, t *route.Tree[*exchange.Endpoint], path string) {
	allowed := t.Allowed(path)
	if len(allowed) == 0 {
		if g.remotes.Pending() {
			// The route may belong to a backend not loaded yet. Its cause
			// (an address, a dial error) is the operator's business, not
			// the client's.
			g.routingError(w, r, status.Error(codes.Unavailable, "upstream not available: its routes are not loaded yet"))
			return
		}
		g.routingError(w, r, httperr.NotFound())
		return
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	g.routingError(w, r, httperr.MethodNotAllowed())
}

// allowed returns the methods of the routes of path (an escaped path),
// and at a method's canonical path those of its RPC protocols
// (protocols.Methods), for CORS's preflights.
func (g *Gateway) allowed(path string) []string {
	methods := g.routes.Tree().Allowed(path)
	if ep := g.rpcs.Lookup(path); ep != nil {
		for _, m := range protocols.Methods(ep.Binding) {
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	return methods
}

// serveCustom serves a custom route: its variables, percent-decoded, are
// the request's path values.
func (g *Gateway) serveCustom(w http.ResponseWriter, r *http.Request, m *route.Match[*exchange.Endpoint], ep *exchange.Endpoint) {
	for i, v := range ep.Vars {
		val, err := bind.Unescape(m.RawVar(i), v.Name, v.Multi, g.cfg.Binding.Unescape)
		if err != nil {
			g.env.Render.ErrorHandler(w, r, err)
			return
		}
		r.SetPathValue(v.Name, val)
	}
	ep.Handler.ServeHTTP(w, r)
}
