package protorest

import (
	"net/http"
	"time"

	"github.com/protorest/protorest/internal/cors"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/route"
)

// CORS says which pages from other origins may call the API from a
// browser (WithCORS).
type CORS struct {
	// AllowedOrigins are the origins whose pages may call the API:
	// "https://app.example.com", a pattern with "*" in the host
	// ("https://*.example.com"; without a scheme, any scheme), or "*" for
	// every origin.
	AllowedOrigins []string
	// AllowCredentials lets pages send cookies and HTTP authentication
	// with their requests (Access-Control-Allow-Credentials). Off by
	// default; not allowed with the origin "*".
	AllowCredentials bool
	// AllowedHeaders are request headers a page may send besides
	// Content-Type, Authorization, Grpc-Timeout, Traceparent, Tracestate,
	// X-Requested-With and every Grpc-Metadata-* header. A trailing "*"
	// makes a name a prefix.
	AllowedHeaders []string
	// ExposedHeaders are response headers a page may read besides
	// Grpc-Status, Grpc-Message and the Grpc-Metadata-* headers of each
	// response.
	ExposedHeaders []string
	// MaxAge is how long a browser may cache a preflight's answer; the
	// default is 10 minutes.
	MaxAge time.Duration
}

// WithCORS answers cross-origin requests from the pages of c's origins.
// A preflight (OPTIONS with Access-Control-Request-Method) is answered
// from the route table, before any 405: 204 with exactly the methods the
// path's routes serve, the requested headers that are allowed, and
// Access-Control-Max-Age. A preflight from an origin not allowed gets 403
// PERMISSION_DENIED; a path with no routes, 404. Other requests from an
// allowed origin are served with Access-Control-Allow-Origin and
// Access-Control-Expose-Headers; from any other origin, without them, so
// that the browser keeps the response from the page. Responses carry
// Vary: Origin. By default the gateway sends no CORS headers, and
// browsers allow only same-origin pages. WithCORS panics on an origin
// that is not one, and on "*" with AllowCredentials.
func WithCORS(c CORS) Option {
	p, err := cors.New(cors.Config(c))
	if err != nil {
		panic("protorest: WithCORS: " + err.Error())
	}
	return optionFunc(func(cfg *config) { cfg.cors = p })
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
		return g.cfg.cors.Actual(w, r)
	}
	methods := t.Allowed(path)
	if len(methods) == 0 {
		g.routingError(w, r, t, path)
		return nil
	}
	if err := g.cfg.cors.Preflight(w, r, methods); err != nil {
		g.env.Render.ErrorHandler(w, r, err)
	}
	return nil
}
