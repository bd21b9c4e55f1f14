package gateway

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/classlimit"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/edge"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/health"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/invoke"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/openapi"
	"github.com/protorest/protorest/internal/protocols"
	"github.com/protorest/protorest/internal/remote"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/resolve"
	"github.com/protorest/protorest/internal/warm"
)

// New derives a gateway from cfg: its codecs, the Env every request
// reads, its error handlers, the caps of its classes of calls, its
// interceptor chains, the edge chain
// around the router, and the health endpoints' routes. The options'
// mistakes (cfg.Errs, and a health route that conflicts) make a gateway
// that refuses every request and reports them at its first use (Err).
func New(cfg *config.Config) *Gateway {
	g := &Gateway{cfg: cfg}
	types := resolve.New(cfg.Codecs.Types)
	g.json = newJSON(cfg, types)
	cfg.Binding.JSON = g.json
	cfg.OpenAPI.JSON = g.json.MarshalOptions
	if h, ok := cfg.Validation.(openapi.SchemaHook); ok && cfg.OpenAPI.Schemas == nil {
		cfg.OpenAPI.Schemas = h // the rules checked are documented
	}
	g.deriveEnv(types)
	cc := cfg.Limits.Concurrency
	g.classes = classlimit.New(classlimit.Caps{classlimit.Unary: cc.Unary, classlimit.ServerStream: cc.ServerStreams,
		classlimit.ClientStream: cc.ClientStreams, classlimit.BidiStream: cc.BidiStreams, classlimit.WebSocket: cc.WebSockets,
		classlimit.GRPC: cc.GRPCPassThrough})
	g.unary = invoke.ChainUnary(cfg.Invocation.Unary)
	g.stream = invoke.ChainStream(cfg.Invocation.Stream)
	g.routes.StrictTrailingSlash = cfg.Routing.StrictSlash
	g.routes.EncodedSlashFallback = cfg.Routing.SlashFallback
	g.remotes = remote.Backends{Config: cfg, Types: types, Replace: g.replace}
	g.protocols, g.served = protocols.NewServer(&g.env, g.json), served(cfg.Protocols)
	g.head = g.edgeChain()
	for _, h := range cfg.Health {
		endpoint := &health.Endpoint{Client: h.Client, Metadata: g.env.Headers.Metadata, Marshal: g.json.Marshal, Fail: g.env.Render.ErrorHandler}
		if err := g.handlePath(http.MethodGet, h.Path, endpoint, "", ""); err != nil {
			cfg.Errs = append(cfg.Errs, errors.New("protorest: WithHealthEndpoint("+h.Path+"): "+strings.TrimPrefix(err.Error(), "protorest: ")))
		}
	}
	if len(cfg.Errs) > 0 {
		g.err = errors.Join(cfg.Errs...)
		g.head = edge.Refuse(g.err, g.reportMistakes, g.env.Render.ErrorHandler)
	}
	return g
}

// served is the set of RPC protocols p leaves on.
func served(p config.Protocols) protocols.Set {
	s := protocols.AllProtocols
	if p.NoConnect {
		s &^= protocols.ConnectOn
	}
	if p.NoGRPCWeb {
		s &^= protocols.GRPCWebOn
	}
	if p.NoGRPC {
		s &^= protocols.GRPCOn
	}
	return s
}

// newJSON is the gateway's JSON codec: the options', resolving Any with
// types unless they name a resolver.
func newJSON(cfg *config.Config, types *resolve.Types) *codec.JSON {
	j := &codec.JSON{MarshalOptions: cfg.Codecs.Marshal, UnmarshalOptions: cfg.Codecs.Unmarshal,
		MaxDepth: cfg.Limits.MaxJSONDepth, MaxBytes: cfg.Response.MaxBytes}
	if j.MarshalOptions.Resolver == nil {
		j.MarshalOptions.Resolver = types
	}
	if j.UnmarshalOptions.Resolver == nil {
		j.UnmarshalOptions.Resolver = types
	}
	return j
}

// deriveEnv sets what every request reads: the Env, with the error
// handlers (the default writes google.rpc.Status with types), and the
// routing error handler. Both tell a request's Recorder the error.
func (g *Gateway) deriveEnv(types *resolve.Types) {
	cfg := g.cfg
	statusJSON := protojson.MarshalOptions{Resolver: types}
	errorHandler := cfg.Errors.Handler
	if errorHandler == nil {
		errorHandler = func(w http.ResponseWriter, _ *http.Request, err error) { httperr.Write(w, err, statusJSON) }
	}
	routingError := cfg.Errors.RoutingHandler
	if routingError == nil {
		routingError = errorHandler
	}
	g.routingError = recordErrors(routingError)
	g.env = exchange.Env{
		Formats:           negotiate.NewFormats(g.json, cfg.Codecs.Extra),
		Headers:           cfg.Headers,
		MaxBody:           cfg.Limits.MaxBody,
		MaxURLBytes:       cfg.Limits.MaxURLBytes,
		MaxHeaders:        cfg.Limits.MaxHeaders,
		MaxQueryParams:    cfg.Limits.MaxQueryParams,
		PanicHook:         cfg.Errors.PanicHook,
		Stats:             cfg.Invocation.Stats,
		WebSocketOrigins:  cfg.WebSocketOrigins,
		ReadIdleTimeout:   cfg.Limits.ReadIdleTimeout,
		StreamIdleTimeout: cfg.Limits.StreamIdleTimeout,
	}
	if g.env.PanicHook == nil {
		g.env.PanicHook = func(method string, v any, stack []byte) {
			slog.Error("protorest: panic in method handler", "method", method, "panic", v, "stack", string(stack))
		}
	}
	g.env.Render = render.Config{
		ErrorHandler: recordErrors(errorHandler),
		Headers:      &g.env.Headers,
		StatusJSON:   statusJSON,
		StreamError:  cfg.Errors.StreamError,
		Hooks:        cfg.Response.Hooks,
		Types:        types,
		MaxBody:      cfg.Response.MaxBytes,
		WriteTimeout: cfg.Response.WriteTimeout,
	}
	if n := cfg.Response.MaxBuffered; n > 0 {
		g.env.Render.Budget = budget.New(n, cfg.Response.PerConn, cfg.Response.BufferedWait)
	}
	if n := cfg.Limits.MaxDecoding; n > 0 {
		g.env.Decoding = budget.New(n, 0, cfg.Response.BufferedWait)
	}
	g.env.Render.ErrorHandler = g.env.Render.Bounded(g.env.Render.ErrorHandler)
	g.routingError = g.env.Render.Bounded(g.routingError)
}

// edgeChain is the chain of layers around the router, each only when its
// feature is on, the first outermost.
func (g *Gateway) edgeChain() http.Handler {
	fail := g.env.Render.ErrorHandler
	var compress edge.Layer
	if c := g.cfg.Compression; c != nil {
		var err error
		if compress, err = edge.Compress(c.MinSize); err != nil {
			g.cfg.Errs = append(g.cfg.Errs, errors.New("protorest: WithCompression: "+err.Error()))
		}
	}
	return edge.Chain(http.HandlerFunc(g.serve),
		warm.New(warmWorkers, warmIdle).Wrap,  // HTTP/2 requests on grown stacks
		edge.Unless(protocols.Sure, compress), // WithCompression: REST responses compressed
		edge.Admit(&g.env, fail),              // limits on the target, the headers, the query
		edge.CORS(g.cfg.CORS, g.allowed, fail),
		g.protocolSwitch, // Connect, gRPC-Web and gRPC at canonical paths
	)
}

// reportMistakes tells the panic hook of the options' mistakes, or else
// log/slog.
func (g *Gateway) reportMistakes(err error) {
	if h := g.cfg.Errors.PanicHook; h != nil {
		h("", err, nil)
		return
	}
	slog.Error("protorest: the gateway is misconfigured; every request gets 500", "err", err)
}

// recordErrors wraps h to tell the request's Recorder, if it has one,
// each error h answers: errors before a call (routing, limits, binding)
// reach only the error handler.
func recordErrors(h httperr.Handler) httperr.Handler {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		if rec, ok := exchange.RecorderFrom(r.Context()); ok {
			rec.Ended(err)
		}
		h(w, r, err)
	}
}

// The warm pool of HTTP/2 requests: at most warmWorkers goroutines (more
// requests at once run on net/http's own), each ended after warmIdle
// without a request, so that an idle gateway keeps none.
const (
	warmWorkers = 1024
	warmIdle    = time.Second
)
