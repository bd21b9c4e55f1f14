package protorest

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/cors"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/health"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/invoke"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/openapi"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/resolve"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/ws"
)

// Gateway serves gRPC methods as HTTP/JSON APIs, following their
// google.api.http rules. It is an http.Handler and a grpc.ServiceRegistrar:
// register services on it as on a grpc.Server, then serve it with
// net/http.
//
// Register services and custom routes before serving requests; a Gateway
// is safe for concurrent use by many requests once registration is done,
// and registering while it serves is also safe (new routes appear
// atomically), though not ordered with requests in flight.
type Gateway struct {
	cfg      config
	env      exchange.Env   // what every request reads
	json     *codec.JSON    // the built-in JSON codec
	resolver *resolve.Types // the gateway's types, then the remote backends'

	interceptor         grpc.UnaryServerInterceptor
	streamInterceptor   grpc.StreamServerInterceptor
	compressed          http.Handler // serve behind WithCompression's wrapper, or nil
	routingErrorHandler ErrorHandler // answers requests no route matched

	loadMu sync.Mutex // serialises RegisterRemote and Reload loads

	routes route.Table[*exchange.Endpoint]

	mu      sync.Mutex // guards remotes and their fields
	remotes []*backend

	openapi openapi.Cache
}

var _ interface {
	http.Handler
	grpc.ServiceRegistrar
} = (*Gateway)(nil)

// NewGateway returns a Gateway configured by opts.
func NewGateway(opts ...Option) *Gateway {
	g := &Gateway{cfg: defaultConfig()}
	for _, o := range opts {
		o.apply(&g.cfg)
	}
	g.resolver = resolve.New(g.cfg.types)
	g.env = g.cfg.env
	g.json = &codec.JSON{MarshalOptions: g.cfg.marshal, UnmarshalOptions: g.cfg.unmarshal, MaxDepth: g.cfg.maxDepth, MaxBytes: g.env.Render.MaxBody}
	if g.json.MarshalOptions.Resolver == nil {
		g.json.MarshalOptions.Resolver = g.resolver
	}
	if g.json.UnmarshalOptions.Resolver == nil {
		g.json.UnmarshalOptions.Resolver = g.resolver
	}
	statusJSON := protojson.MarshalOptions{Resolver: g.resolver}
	errorHandler := g.cfg.errorHandler
	if errorHandler == nil {
		errorHandler = func(w http.ResponseWriter, _ *http.Request, err error) { httperr.Write(w, err, statusJSON) }
	}
	g.env.PanicHook = g.cfg.panicHook
	if g.env.PanicHook == nil {
		g.env.PanicHook = func(method string, v any, stack []byte) {
			slog.Error("protorest: panic in method handler", "method", method, "panic", v, "stack", string(stack))
		}
	}
	g.env.Formats = negotiate.NewFormats(g.json, g.cfg.codecs)
	g.env.Render.ErrorHandler = observeErrors(errorHandler)
	g.env.Render.Headers = &g.env.Headers
	g.env.Render.StatusJSON = statusJSON
	g.env.Render.Types = g.resolver
	routingErrorHandler := g.cfg.routingErrorHandler
	if routingErrorHandler == nil {
		routingErrorHandler = errorHandler
	}
	g.routingErrorHandler = observeErrors(routingErrorHandler)
	if n := g.cfg.bufferedResponseBudget(); n > 0 {
		g.env.Render.Budget = render.NewBudget(n, freeResponseBytes, g.cfg.bufferedResponseWait)
	}
	g.interceptor = invoke.ChainUnary(g.cfg.unary)
	g.streamInterceptor = invoke.ChainStream(g.cfg.stream)
	g.routes.StrictTrailingSlash = g.cfg.strictSlash
	g.routes.EncodedSlashFallback = g.cfg.slashFallback
	if g.cfg.compress != nil {
		g.compressed = g.cfg.compress(http.HandlerFunc(g.serve))
	}
	for _, h := range g.cfg.health {
		if err := g.HandlePath(http.MethodGet, h.path, (&health.Endpoint{
			Client: h.client, Metadata: g.env.Headers.Metadata, Marshal: g.json.Marshal, Fail: g.env.Render.ErrorHandler,
		}).ServeHTTP); err != nil {
			panic("protorest: WithHealthEndpoint: " + err.Error())
		}
	}
	return g
}

// ServeHTTP serves r from the method or custom route whose template
// matches, most specific first, and sets r.Pattern to that template, as
// http.ServeMux does, so that a middleware around the gateway can label
// the request by its route. The stages of a method's request run here, in
// order: route, negotiate, bind, invoke, render (the exchange's sink),
// errors (the error handler).
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.compressed != nil {
		g.compressed.ServeHTTP(w, r)
		return
	}
	g.serve(w, r)
}

// serve is ServeHTTP, inside the edge features that wrap the handler
// (compression).
func (g *Gateway) serve(w http.ResponseWriter, r *http.Request) {
	t := g.routes.Tree()
	path := r.URL.EscapedPath()
	if err := g.env.Admit(r, path); err != nil {
		g.env.Render.ErrorHandler(w, r, err)
		return
	}
	if g.cfg.cors != nil {
		if cors.Origin(r) == "" {
			if h := w.Header(); h["Vary"] == nil {
				h["Vary"] = varyOrigin[:1:1]
			} else {
				h.Add("Vary", "Origin")
			}
		} else if w = g.crossOrigin(w, r, t, path); w == nil {
			return
		}
	}
	var m route.Match[*exchange.Endpoint]
	upgrade := ws.IsUpgrade(r) && ws.Match(t, path, &m)
	if !upgrade && !t.Match(r.Method, path, &m) {
		g.routingError(w, r, t, path)
		return
	}
	ep := m.Entry.Value
	r.Pattern = ep.Pattern
	ci, observed := CallInfoFromContext(r.Context())
	if observed {
		ci.Route = (*Route)(ep.Route)
	}
	if ep.Handler != nil {
		g.serveCustom(w, r, &m, ep)
		return
	}
	x := exchange.Get(&g.env, w, r)
	defer exchange.Put(x)
	x.Match, x.Binding = m, ep.Binding
	if observed {
		x.Observe = observeCall(ci)
	}
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

func (g *Gateway) routingError(w http.ResponseWriter, r *http.Request, t *route.Tree[*exchange.Endpoint], path string) {
	allowed := t.Allowed(path)
	if len(allowed) == 0 {
		if g.pending() {
			// The route may belong to a backend not loaded yet. Its cause
			// (an address, a dial error) is the operator's business, not
			// the client's.
			g.routingErrorHandler(w, r, status.Error(codes.Unavailable, "upstream not available: its routes are not loaded yet"))
			return
		}
		g.routingErrorHandler(w, r, httperr.NotFound())
		return
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	g.routingErrorHandler(w, r, httperr.MethodNotAllowed())
}

// serveCustom serves a custom route: its variables, percent-decoded, are
// the request's path values. Under WithCompression its body is decoded
// (gzip, zstd); otherwise it is the body as sent.
func (g *Gateway) serveCustom(w http.ResponseWriter, r *http.Request, m *route.Match[*exchange.Endpoint], ep *exchange.Endpoint) {
	for i, v := range ep.Vars {
		val, err := bind.Unescape(m.RawVar(i), v.Name, v.Multi, g.cfg.unescape)
		if err != nil {
			g.env.Render.ErrorHandler(w, r, err)
			return
		}
		r.SetPathValue(v.Name, val)
	}
	if g.compressed != nil {
		g.serveDecoded(w, r, ep.Handler)
		return
	}
	ep.Handler(w, r)
}

// add registers entries all or nothing: a conflict leaves the gateway as
// it was. The services are recorded as registered, each once.
func (g *Gateway) add(entries []*route.Entry[*exchange.Endpoint], services ...string) error {
	return g.replace(nil, entries, nil, services)
}

// replace swaps the entries and services in drop for those in entries and
// services, all or nothing; requests see the old routes or the new ones,
// never a mix.
func (g *Gateway) replace(drop, entries []*route.Entry[*exchange.Endpoint], dropServices, services []string) error {
	err := g.routes.Replace(drop, entries, dropServices, services)
	var twice *route.GroupError
	if errors.As(err, &twice) {
		return fmt.Errorf("protorest: service %s", twice)
	}
	return err
}
