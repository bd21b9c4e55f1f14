package protorest

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/invoke"
	"github.com/protorest/protorest/internal/route"
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
	cfg    config
	codecs codecs
	// streamTypes are the codecs' media types, then streamMedia.
	streamTypes []string
	resolver    *resolver // the gateway's types, then the remote backends'
	// statusJSON writes google.rpc.Status bodies and in-band stream errors.
	statusJSON protojson.MarshalOptions

	interceptor       grpc.UnaryServerInterceptor
	streamInterceptor grpc.StreamServerInterceptor
	handler           http.Handler

	loadMu sync.Mutex // serialises RegisterRemote and Reload loads

	mu       sync.Mutex
	staging  *route.Tree[*endpoint] // every entry, for conflict checks
	entries  []*route.Entry[*endpoint]
	services map[string]bool
	remotes  []*remote
	served   atomic.Pointer[route.Tree[*endpoint]] // nil when entries changed
}

var _ interface {
	http.Handler
	grpc.ServiceRegistrar
} = (*Gateway)(nil)

// endpoint is what a route leads to: a gRPC method binding or a custom
// handler.
type endpoint struct {
	binding    *binding
	custom     HandlerFunc
	customVars []customVar
}

// NewGateway returns a Gateway configured by opts.
func NewGateway(opts ...Option) *Gateway {
	g := &Gateway{cfg: defaultConfig(), services: map[string]bool{}}
	for _, o := range opts {
		o.apply(&g.cfg)
	}
	if g.cfg.panicHook == nil {
		g.cfg.panicHook = func(method string, v any, stack []byte) {
			slog.Error("protorest: panic in method handler", "method", method, "panic", v, "stack", string(stack))
		}
	}
	g.resolver = &resolver{base: g.cfg.types}
	g.statusJSON = protojson.MarshalOptions{Resolver: g.resolver}
	if g.cfg.errorHandler == nil {
		g.cfg.errorHandler = func(w http.ResponseWriter, _ *http.Request, err error) { writeStatus(w, err, g.statusJSON) }
	}
	g.codecs = newCodecs(&g.cfg, g.resolver)
	g.streamTypes = append(slices.Clone(g.codecs.types), streamMedia...)
	g.interceptor = invoke.ChainUnary(g.cfg.unary)
	g.streamInterceptor = invoke.ChainStream(g.cfg.stream)
	g.staging = g.newTree()
	var h http.Handler = http.HandlerFunc(g.dispatch)
	for i := len(g.cfg.middleware) - 1; i >= 0; i-- {
		h = g.cfg.middleware[i](h)
	}
	g.handler = h
	return g
}

func (g *Gateway) newTree() *route.Tree[*endpoint] {
	return &route.Tree[*endpoint]{StrictTrailingSlash: g.cfg.strictSlash}
}

// ServeHTTP routes r to the method or custom handler whose template
// matches, most specific first.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.handler.ServeHTTP(w, r)
}

// add registers entries all or nothing: a conflict leaves the gateway as
// it was. The services are recorded as registered, each once.
func (g *Gateway) add(entries []*route.Entry[*endpoint], services ...string) error {
	return g.replace(nil, entries, nil, services)
}

// replace swaps the entries and services in drop for those in entries and
// services, all or nothing; requests see the old routes or the new ones,
// never a mix.
func (g *Gateway) replace(drop, entries []*route.Entry[*endpoint], dropServices, services []string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range services {
		if g.services[s] && !slices.Contains(dropServices, s) {
			return fmt.Errorf("protorest: service %s registered twice", s)
		}
	}
	kept := g.entries
	if len(drop) > 0 {
		kept = slices.DeleteFunc(slices.Clone(g.entries), func(e *route.Entry[*endpoint]) bool {
			return slices.Contains(drop, e)
		})
	}
	next := g.staging
	if next == nil || len(drop) > 0 {
		// The tree is being served (it must not change), or entries go:
		// start a new one.
		next = buildTree(g.newTree(), kept)
	}
	for _, e := range entries {
		if err := next.Add(e); err != nil {
			g.staging = nil // it may hold some of entries
			return err
		}
	}
	g.staging = next
	g.entries = append(kept, entries...)
	for _, s := range dropServices {
		delete(g.services, s)
	}
	for _, s := range services {
		g.services[s] = true
	}
	g.served.Store(nil)
	return nil
}

// buildTree adds entries, which are known not to conflict, to t.
func buildTree(t *route.Tree[*endpoint], entries []*route.Entry[*endpoint]) *route.Tree[*endpoint] {
	for _, e := range entries {
		if err := t.Add(e); err != nil {
			panic("protorest: internal error: registered entries conflict: " + err.Error())
		}
	}
	return t
}

// tree returns the routing tree for requests, building it after
// registrations changed the entries.
func (g *Gateway) tree() *route.Tree[*endpoint] {
	if t := g.served.Load(); t != nil {
		return t
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := g.served.Load(); t != nil {
		return t
	}
	t := g.staging
	if t == nil {
		t = buildTree(g.newTree(), g.entries)
	}
	g.served.Store(t)
	// Later registrations build a fresh tree, so t is never mutated again.
	g.staging = nil
	return t
}

func (g *Gateway) dispatch(w http.ResponseWriter, r *http.Request) {
	t := g.tree()
	path := r.URL.EscapedPath()
	q := getRequest()
	defer putRequest(q)
	m := &q.match
	if isWebSocket(r) && matchWebSocket(t, path, m) {
		g.serveWebSocket(w, r, m.Entry.Value.binding, m)
		return
	}
	if !t.Match(r.Method, path, m) {
		g.routingError(w, r, t, path)
		return
	}
	ep := m.Entry.Value
	if ep.custom != nil {
		g.serveCustom(w, r, m, ep)
		return
	}
	g.serveUnary(w, r, ep.binding, q)
}

func (g *Gateway) routingError(w http.ResponseWriter, r *http.Request, t *route.Tree[*endpoint], path string) {
	allowed := t.Allowed(path)
	if len(allowed) == 0 {
		if g.pending() {
			// The route may belong to a backend not loaded yet. Its cause
			// (an address, a dial error) is the operator's business, not
			// the client's.
			g.cfg.errorHandler(w, r, status.Error(codes.Unavailable, "upstream not available: its routes are not loaded yet"))
			return
		}
		g.cfg.errorHandler(w, r, newHTTPError(http.StatusNotFound, codes.NotFound, "Not Found"))
		return
	}
	allow := allowed[0]
	for _, m := range allowed[1:] {
		allow += ", " + m
	}
	w.Header().Set("Allow", allow)
	g.cfg.errorHandler(w, r, newHTTPError(http.StatusMethodNotAllowed, codes.Unimplemented, "Method Not Allowed"))
}

// writeError sends err through the error handler.
func (g *Gateway) writeError(w http.ResponseWriter, r *http.Request, err error) {
	g.cfg.errorHandler(w, r, err)
}

// writeErrorWithTrailers sends err through the error handler, and the
// method's trailer metadata as HTTP trailers when the client accepts
// them, as on success.
func (g *Gateway) writeErrorWithTrailers(w http.ResponseWriter, r *http.Request, err error, trailer metadata.MD) {
	send := len(trailer) > 0 && acceptsTrailers(r)
	if send {
		declareTrailers(w.Header(), trailer, g.cfg.outgoingTrailer)
	}
	g.cfg.errorHandler(w, r, err)
	if send {
		writeMetadata(w.Header(), trailer, g.cfg.outgoingTrailer, "")
	}
}
