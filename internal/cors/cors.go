// Package cors answers cross-origin requests from browsers (the Fetch
// standard's CORS protocol) for a gateway: preflight requests from its
// route table, with exactly the methods a path serves, and the response
// headers of actual requests, with the gRPC metadata headers each
// response carries exposed to the page.
package cors

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/headers"
)

// Config is a CORS policy's settings (protorest.CORS).
type Config struct {
	AllowedOrigins   []string
	AllowCredentials bool
	AllowedHeaders   []string
	ExposedHeaders   []string
	MaxAge           time.Duration
}

// DefaultAllowedHeaders are the request headers a page may send besides
// the CORS-safelisted ones: the body's type, credentials, the deadline,
// trace context, and every Grpc-Metadata-* header (a prefix).
var DefaultAllowedHeaders = []string{"Content-Type", "Authorization", "Grpc-Timeout", "Traceparent", "Tracestate", "X-Requested-With", headers.MetadataHeaderPrefix + "*",
	// Connect's and gRPC-Web's own (internal/protocols).
	"Connect-Protocol-Version", "Connect-Timeout-Ms", "Connect-Content-Encoding", "Connect-Accept-Encoding",
	"Content-Encoding", "Grpc-Encoding", "Grpc-Accept-Encoding", "X-Grpc-Web", "X-User-Agent"}

// DefaultExposedHeaders are the response headers a page may read besides
// the CORS-safelisted ones; every Grpc-Metadata-* header a response
// carries is exposed too.
var DefaultExposedHeaders = []string{"Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin",
	"Grpc-Encoding", "Grpc-Accept-Encoding", "Connect-Content-Encoding", "Connect-Accept-Encoding"}

// DefaultMaxAge is how long a browser may cache a preflight's answer.
const DefaultMaxAge = 10 * time.Minute

// Policy is a compiled Config.
type Policy struct {
	any         bool     // "*": every origin
	origins     []string // exact origins, lower case
	patterns    []string // path.Match patterns on scheme://host or host
	credentials bool
	allowed     []string // header names, lower case; a trailing "*" is a prefix
	exposed     string
	maxAge      string
}

// New compiles c. It reports an error for an origin that is not an
// origin ("scheme://host[:port]", with "*" wildcards in the host) and for
// "*" with credentials, which would let every site act as the user.
func New(c Config) (*Policy, error) {
	p := &Policy{credentials: c.AllowCredentials}
	for _, o := range c.AllowedOrigins {
		o = strings.ToLower(strings.TrimSpace(o))
		switch {
		case o == "*":
			p.any = true
		case strings.Contains(o, "*"):
			if _, err := path.Match(o, ""); err != nil {
				return nil, fmt.Errorf("CORS origin %q: %v", o, err)
			}
			p.patterns = append(p.patterns, o)
		default:
			u, err := url.Parse(o)
			if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" {
				return nil, fmt.Errorf("CORS origin %q: want scheme://host[:port]", o)
			}
			p.origins = append(p.origins, o)
		}
	}
	if p.any && p.credentials {
		return nil, errors.New(`CORS: the origin "*" with credentials would let every site act as the user; list the origins`)
	}
	for _, h := range append(slices.Clone(DefaultAllowedHeaders), c.AllowedHeaders...) {
		p.allowed = append(p.allowed, strings.ToLower(strings.TrimSpace(h)))
	}
	p.exposed = strings.Join(append(slices.Clone(DefaultExposedHeaders), c.ExposedHeaders...), ", ")
	maxAge := c.MaxAge
	if maxAge == 0 {
		maxAge = DefaultMaxAge
	}
	p.maxAge = strconv.Itoa(int(maxAge / time.Second))
	return p, nil
}

// Origin returns the request's Origin header, "" for none: a request
// without one is not cross-origin, and CORS leaves it alone.
func Origin(r *http.Request) string { return r.Header.Get("Origin") }

// varyOrigin is the Vary header VaryOrigin sets, shared: net/http only
// reads it, and a capacity of 1 makes an append copy it.
var varyOrigin = []string{"Origin"}

// VaryOrigin adds Origin to h's Vary header, as a response to a request
// without one must have under a CORS policy: the answer to the same
// request with an Origin differs. A header without Vary gets a shared
// slice, at no allocation.
func VaryOrigin(h http.Header) {
	if h["Vary"] == nil {
		h["Vary"] = varyOrigin[:1:1]
		return
	}
	h.Add("Vary", "Origin")
}

// IsPreflight reports whether r, which has an Origin, is a preflight: an
// OPTIONS request that names the method it prepares.
func IsPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// allows reports whether pages from origin may call the API.
func (p *Policy) allows(origin string) bool {
	if p.any {
		return true
	}
	origin = strings.ToLower(origin)
	if slices.Contains(p.origins, origin) {
		return true
	}
	if len(p.patterns) == 0 {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	for _, pat := range p.patterns {
		target := u.Host
		if strings.Contains(pat, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(pat, target); ok {
			return true
		}
	}
	return false
}

// errOrigin is the answer to a preflight from an origin not allowed.
var errOrigin = status.Error(codes.PermissionDenied, "cross-origin requests from this origin are not allowed")

// Preflight answers a preflight for a path whose routes serve methods
// ("*" for any): 204 with the methods, the requested headers that are
// allowed, and how long the answer may be cached. It returns an error
// for an origin not allowed, without writing.
func (p *Policy) Preflight(w http.ResponseWriter, r *http.Request, methods []string) error {
	origin := Origin(r)
	h := w.Header()
	h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	if !p.allows(origin) {
		return errOrigin
	}
	p.allowOrigin(h, origin)
	if slices.Contains(methods, "*") {
		methods = []string{r.Header.Get("Access-Control-Request-Method")}
	}
	h.Set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
	if allowed := p.allowedHeaders(headers.List(r.Header, "Access-Control-Request-Headers")); allowed != "" {
		h.Set("Access-Control-Allow-Headers", allowed)
	}
	h.Set("Access-Control-Max-Age", p.maxAge)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// allowOrigin sets the headers that let the page read the response.
func (p *Policy) allowOrigin(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	if p.credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
}

// allowedHeaders returns those of the requested headers (a list) that
// are allowed, as a list.
func (p *Policy) allowedHeaders(requested string) string {
	var b strings.Builder
	for name := range strings.SplitSeq(requested, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || !p.allowsHeader(name) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
	}
	return b.String()
}

func (p *Policy) allowsHeader(name string) bool {
	for _, a := range p.allowed {
		if prefix, ok := strings.CutSuffix(a, "*"); ok && strings.HasPrefix(name, prefix) || a == name {
			return true
		}
	}
	return false
}

// Actual prepares the response to a cross-origin request that is not a
// preflight: from an allowed origin, the page may read it, and the gRPC
// metadata headers the response carries (Grpc-Metadata-*) are exposed to
// it as they are written. It returns the writer to answer through.
func (p *Policy) Actual(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	h := w.Header()
	h.Add("Vary", "Origin")
	origin := Origin(r)
	if !p.allows(origin) {
		return w // no CORS headers: the browser keeps the response from the page
	}
	p.allowOrigin(h, origin)
	h.Set("Access-Control-Expose-Headers", p.exposed)
	return &exposer{ResponseWriter: w, exposed: p.exposed}
}

// exposer adds the Grpc-Metadata-* headers of a response to its
// Access-Control-Expose-Headers when the header is written.
type exposer struct {
	http.ResponseWriter
	exposed string // the policy's own list
	done    bool
}

func (e *exposer) expose() {
	if e.done {
		return
	}
	e.done = true
	h := e.Header()
	var names []string
	for name := range h {
		if strings.HasPrefix(name, headers.MetadataHeaderPrefix) {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		slices.Sort(names) // the map's order is random: keep the header stable
		h.Set("Access-Control-Expose-Headers", e.exposed+", "+strings.Join(names, ", "))
	}
}

func (e *exposer) WriteHeader(code int) {
	e.expose()
	e.ResponseWriter.WriteHeader(code)
}

func (e *exposer) Write(b []byte) (int, error) {
	e.expose()
	return e.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer (to
// flush streams, to hijack, to set deadlines).
func (e *exposer) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// Flush flushes, for handlers that look for an http.Flusher.
func (e *exposer) Flush() {
	e.expose()
	http.NewResponseController(e.ResponseWriter).Flush()
}
