package protorest

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/compress"
	"github.com/protorest/protorest/internal/config"
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
	cfg      config.Config
	env      exchange.Env   // what every request reads
	json     *codec.JSON    // the built-in JSON codec
	resolver *resolve.Types // the gateway's types, then the remote backends'

	interceptor         grpc.UnaryServerInterceptor
	streamInterceptor   grpc.StreamServerInterceptor
	compressed          http.Handler // serve behind WithCompression's wrapper, or nil
	routingErrorHandler ErrorHandler // answers requests no route matched

	misconfigured error     // the options' mistakes, or nil
	reported      sync.Once // misconfigured has been reported

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
	g := &Gateway{cfg: config.Default()}
	for _, o := range opts {
		o.apply(&g.cfg)
	}
	c := &g.cfg
	g.resolver = resolve.New(c.Codecs.Types)
	g.json = &codec.JSON{MarshalOptions: c.Codecs.Marshal, UnmarshalOptions: c.Codecs.Unmarshal, MaxDepth: c.Limits.MaxJSONDepth, MaxBytes: c.Response.MaxBytes}
	if g.json.MarshalOptions.Resolver == nil {
		g.json.MarshalOptions.Resolver = g.resolver
	}
	if g.json.UnmarshalOptions.Resolver == nil {
		g.json.UnmarshalOptions.Resolver = g.resolver
	}
	c.Binding.JSON = g.json
	statusJSON := protojson.MarshalOptions{Resolver: g.resolver}
	errorHandler := c.Errors.Handler
	if errorHandler == nil {
		errorHandler = func(w http.ResponseWriter, _ *http.Request, err error) { httperr.Write(w, err, statusJSON) }
	}
	e := &g.env
	e.MaxBody = c.Limits.MaxBody
	e.MaxURLBytes, e.MaxHeaders, e.MaxQueryParams = c.Limits.MaxURLBytes, c.Limits.MaxHeaders, c.Limits.MaxQueryParams
	e.ReadIdleTimeout, e.StreamIdleTimeout = c.Limits.ReadIdleTimeout, c.Limits.StreamIdleTimeout
	e.WebSocketOrigins = c.WebSocketOrigins
	e.Stats = c.Invocation.Stats
	e.Headers = c.Headers
	e.PanicHook = c.Errors.PanicHook
	if e.PanicHook == nil {
		e.PanicHook = func(method string, v any, stack []byte) {
			slog.Error("protorest: panic in method handler", "method", method, "panic", v, "stack", string(stack))
		}
	}
	e.Formats = negotiate.NewFormats(g.json, c.Codecs.Extra)
	e.Render = render.Config{
		ErrorHandler: observeErrors(errorHandler),
		Headers:      &e.Headers,
		StatusJSON:   statusJSON,
		StreamError:  c.Errors.StreamError,
		Hooks:        c.Response.Hooks,
		Types:        g.resolver,
		MaxBody:      c.Response.MaxBytes,
		WriteTimeout: c.Response.WriteTimeout,
	}
	routingErrorHandler := c.Errors.RoutingHandler
	if routingErrorHandler == nil {
		routingErrorHandler = errorHandler
	}
	g.routingErrorHandler = observeErrors(routingErrorHandler)
	if n := c.Response.MaxBuffered; n > 0 {
		e.Render.Budget = render.NewBudget(n, config.FreeResponseBytes, c.Response.BufferedWait)
	}
	g.interceptor = invoke.ChainUnary(c.Invocation.Unary)
	g.streamInterceptor = invoke.ChainStream(c.Invocation.Stream)
	g.routes.StrictTrailingSlash = c.Routing.StrictSlash
	g.routes.EncodedSlashFallback = c.Routing.SlashFallback
	if c.Compression != nil {
		minSize := c.Compression.MinSize
		if minSize <= 0 {
			minSize = gzhttp.DefaultMinSize
		}
		wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(minSize))
		if err != nil {
			c.Errs = append(c.Errs, errors.New("protorest: WithCompression: "+err.Error()))
		} else {
			g.compressed = wrap(http.HandlerFunc(g.serve))
		}
	}
	for _, h := range c.Health {
		if err := g.handlePath(http.MethodGet, h.Path, (&health.Endpoint{
			Client: h.Client, Metadata: e.Headers.Metadata, Marshal: g.json.Marshal, Fail: e.Render.ErrorHandler,
		}).ServeHTTP, RouteDoc{}); err != nil {
			c.Errs = append(c.Errs, errors.New("protorest: WithHealthEndpoint("+h.Path+"): "+strings.TrimPrefix(err.Error(), "protorest: ")))
		}
	}
	if len(c.Errs) > 0 {
		g.misconfigured = errors.Join(c.Errs...)
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
	if g.misconfigured != nil {
		g.refuse(w, r)
		return
	}
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
	if g.cfg.CORS != nil {
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
		val, err := bind.Unescape(m.RawVar(i), v.Name, v.Multi, g.cfg.Binding.Unescape)
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

// refuse answers a request to a misconfigured gateway: 500 INTERNAL,
// the mistakes reported once to the panic hook, or else to slog.
func (g *Gateway) refuse(w http.ResponseWriter, r *http.Request) {
	g.reported.Do(func() {
		if h := g.cfg.Errors.PanicHook; h != nil {
			h("", g.misconfigured, nil)
			return
		}
		slog.Error("protorest: the gateway is misconfigured; every request gets 500", "err", g.misconfigured)
	})
	g.env.Render.ErrorHandler(w, r, status.Error(codes.Internal, "the gateway is misconfigured"))
}

// serveDecoded serves r with h, its body decoded as its Content-Encoding
// says (compress.DecodeRequest): a custom route's, under WithCompression.
func (g *Gateway) serveDecoded(w http.ResponseWriter, r *http.Request, h http.HandlerFunc) {
	body, err := compress.DecodeRequest(w, r)
	if err != nil {
		g.env.Render.ErrorHandler(w, r, err)
		return
	}
	if body != nil {
		defer body.Close()
	}
	h(w, r)
}

// varyOrigin is the Vary header of a response to a same-origin request,
// shared: net/http only reads it, and a capacity of 1 makes an append
// copy it.
var varyOrigin = []string{"Origin"}

// crossOrigin applies the CORS policy to r, a request with an Origin: it
// answers a preflight (and returns nil), or returns the writer that
// answers the request.
func (g *Gateway) crossOrigin(w http.ResponseWriter, r *http.Request, t *route.Tree[*exchange.Endpoint], path string) http.ResponseWriter {
	if !cors.IsPreflight(r) {
		return g.cfg.CORS.Actual(w, r)
	}
	methods := t.Allowed(path)
	if len(methods) == 0 {
		g.routingError(w, r, t, path)
		return nil
	}
	if err := g.cfg.CORS.Preflight(w, r, methods); err != nil {
		g.env.Render.ErrorHandler(w, r, err)
	}
	return nil
}
