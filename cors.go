package protorest

import (
	"errors"
	"time"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/cors"
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
// path's routes serve, the allowed requested headers and
// Access-Control-Max-Age; 403 PERMISSION_DENIED for an origin not
// allowed, 404 for a path with no routes. Other requests from an allowed
// origin get Access-Control-Allow-Origin and -Expose-Headers, and every
// response Vary: Origin. By default there are no CORS headers. An origin
// that is not one, or "*" with AllowCredentials, is an error (see Option).
func WithCORS(c CORS) Option {
	return optionFunc(func(cfg *config.Config) {
		p, err := cors.New(cors.Config(c))
		if err != nil {
			cfg.Errs = append(cfg.Errs, errors.New("protorest: WithCORS: "+err.Error()))
			return
		}
		cfg.CORS = p
	})
}
