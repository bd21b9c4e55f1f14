package protorest

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/cors"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/route"
)

// An Option configures a Gateway.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// PathUnescaping says how a path variable that covers several segments
// ({name=files/**}, {name=shelves/*/books/*}) is percent-decoded. A
// variable of one segment is always fully decoded, %2F included.
type PathUnescaping = route.UnescapeMode

const (
	// UnescapeAllExceptSlash decodes everything but %2F, as
	// google/api/http.proto specifies. The default.
	UnescapeAllExceptSlash = route.UnescapeAllExceptSlash
	// UnescapeAllExceptReserved keeps the RFC 6570 reserved characters
	// encoded, as Envoy and ESP do.
	UnescapeAllExceptReserved = route.UnescapeAllExceptReserved
	// UnescapeAll decodes everything, %2F included (grpc-gateway's Legacy
	// mode, minus its routing on the decoded path).
	UnescapeAll = route.UnescapeAll
)

type config struct {
	// env is what the options set of exchange.Env directly; NewGateway
	// adds what is derived.
	env exchange.Env

	unary         []grpc.UnaryServerInterceptor
	stream        []grpc.StreamServerInterceptor
	marshal       protojson.MarshalOptions
	unmarshal     protojson.UnmarshalOptions
	codecs        []negotiate.NamedCodec
	errorHandler  ErrorHandler
	ignoreUnknown bool
	ignoredQuery  []string
	literalPlus   bool
	unescape      route.UnescapeMode
	strictSlash   bool
	slashFallback bool
	successStatus map[string]int
	maxDepth      int
	files         *protoregistry.Files
	types         *protoregistry.Types
	deriveMask    bool
	autoMap       bool
	panicHook     func(method string, value any, stack []byte)
	cors          *cors.Policy
	compress      func(http.Handler) http.HandlerFunc

	routingErrorHandler  ErrorHandler
	health               []healthEndpoint
	openapi              OpenAPIInfo
	openapiComments      []protoreflect.FileDescriptor
	maxBufferedResponses int64
	bufferedResponsesSet bool // WithMaxBufferedResponseBytes was given
	bufferedResponseWait time.Duration
}

func defaultConfig() config {
	c := config{
		marshal:              protojson.MarshalOptions{EmitUnpopulated: true},
		unmarshal:            protojson.UnmarshalOptions{DiscardUnknown: true},
		maxDepth:             100,
		files:                protoregistry.GlobalFiles,
		types:                protoregistry.GlobalTypes,
		deriveMask:           true,
		slashFallback:        true,
		bufferedResponseWait: defaultBufferedResponseWait,
	}
	e := &c.env
	e.MaxBody = 4 << 20
	e.MaxURLBytes, e.MaxHeaders, e.MaxQueryParams = defaultMaxURLBytes, defaultMaxHeaders, defaultMaxQueryParams
	e.ReadIdleTimeout, e.StreamIdleTimeout = defaultReadIdleTimeout, defaultStreamIdle
	e.Headers.OutgoingHeader, e.Headers.OutgoingTrailer = headers.DefaultOutgoingHeader, headers.DefaultOutgoingTrailer
	e.Headers.MaxMetadataBytes, e.Headers.MaxTimeout = defaultMaxMetadataBytes, defaultMaxTimeout
	e.Render.MaxBody, e.Render.WriteTimeout = defaultMaxResponseBytes, defaultResponseWriteTimeout
	return c
}

// WithUnaryInterceptors adds unary server interceptors. They run around
// every method the gateway invokes in-process, the first outermost, as
// grpc.ChainUnaryInterceptor runs them on a grpc.Server; info.FullMethod
// is "/pkg.Service/Method". By default there are none.
func WithUnaryInterceptors(interceptors ...grpc.UnaryServerInterceptor) Option {
	return optionFunc(func(c *config) { c.unary = append(c.unary, interceptors...) })
}

// WithWebSocketOrigins lets pages from other origins open WebSockets to
// streaming methods: host patterns as in path.Match ("*.example.com"), or
// with a scheme ("https://app.example.com"). By default only pages from
// the request's own host may, which is what keeps a WebSocket from being
// opened by any site a user visits (cross-site WebSocket hijacking).
func WithWebSocketOrigins(patterns ...string) Option {
	return optionFunc(func(c *config) { c.env.WebSocketOrigins = append(c.env.WebSocketOrigins, patterns...) })
}

// WithStreamInterceptors adds stream server interceptors. They run around
// every streaming method the gateway invokes in-process, the first
// outermost, as grpc.ChainStreamInterceptor runs them on a grpc.Server.
func WithStreamInterceptors(interceptors ...grpc.StreamServerInterceptor) Option {
	return optionFunc(func(c *config) { c.stream = append(c.stream, interceptors...) })
}

// WithMarshalOptions sets how responses are written as JSON. The default
// is protojson.MarshalOptions{EmitUnpopulated: true}, grpc-gateway's: every
// field appears, with its default value when unset. Set UseProtoNames for
// proto field names, UseEnumNumbers for enums as numbers, EmitUnpopulated
// false to omit default values. Resolver defaults to the gateway's types
// (WithTypes).
func WithMarshalOptions(o protojson.MarshalOptions) Option {
	return optionFunc(func(c *config) { c.marshal = o })
}

// WithUnmarshalOptions sets how JSON request bodies are read. The default
// is protojson.UnmarshalOptions{DiscardUnknown: true}: unknown fields and
// unknown enum names are ignored. Set DiscardUnknown false to reject them.
func WithUnmarshalOptions(o protojson.UnmarshalOptions) Option {
	return optionFunc(func(c *config) { c.unmarshal = o })
}

// WithCodec registers c for mediaType (e.g. "application/yaml"), for both
// request bodies (by Content-Type) and responses (by Accept). It replaces
// a built-in codec of the same media type.
func WithCodec(mediaType string, c Codec) Option {
	return optionFunc(func(cfg *config) {
		cfg.codecs = append(cfg.codecs, negotiate.NamedCodec{Media: mediaType, Codec: c})
	})
}

// WithErrorHandler replaces the function that writes every error response:
// errors from methods, and the gateway's own (no route, wrong method, bad
// input, limits). The default is DefaultErrorHandler.
func WithErrorHandler(h ErrorHandler) Option {
	return optionFunc(func(c *config) { c.errorHandler = h })
}

// WithDiscardUnknownQueryParameters drops query parameters that name no
// field, as protojson's DiscardUnknown drops unknown JSON fields. By
// default they are rejected with 400 INVALID_ARGUMENT.
func WithDiscardUnknownQueryParameters() Option {
	return optionFunc(func(c *config) { c.ignoreUnknown = true })
}

// WithIgnoredQueryParameters names query parameters that are always
// dropped, such as "api_key" or "access_token", whether or not they name
// a field.
func WithIgnoredQueryParameters(names ...string) Option {
	return optionFunc(func(c *config) { c.ignoredQuery = append(c.ignoredQuery, names...) })
}

// WithLiteralPlusInQuery keeps '+' in query values as '+'. By default it
// is a space, as in HTML forms and grpc-gateway; send %2B for a plus.
func WithLiteralPlusInQuery() Option {
	return optionFunc(func(c *config) { c.literalPlus = true })
}

// WithPathUnescaping sets how multi-segment path variables are decoded.
// The default is UnescapeAllExceptSlash.
func WithPathUnescaping(mode PathUnescaping) Option {
	return optionFunc(func(c *config) { c.unescape = mode })
}

// WithoutEncodedSlashFallback keeps %2F in request paths as data, always.
//
// By default a request path that matches no route for its method as
// written (where %2F never separates segments), but holds %2F or %2f, is
// routed once more with those escapes decoded to "/", as grpc-gateway's
// default unescaping mode routes every path. The OpenAPI clients that
// grpc-gateway users generate escape the slashes of path parameters (a
// go-swagger client sends shelves%2F1%2Fbooks%2F2 for the name
// {name=shelves/*/books/*}); with the fallback they reach the route that
// grpc-gateway gave them, and the variable's value is the decoded one,
// shelves/1/books/2. Only the slashes are decoded for routing, so an
// encoded colon (%3A) still never starts a verb.
//
// The fallback is safe to keep on: it never changes the route of a path
// that matches as written, nor a variable's value there (a one-segment
// variable still receives "a/b" from a%2Fb); it only answers, as
// grpc-gateway would, what would otherwise be a 404 or a 405, and it
// routes as r.URL.Path (the decoded path that net/http, grpc-gateway and
// most middleware see) reads, so an authorization middleware that checks
// r.URL.Path agrees with the route taken. A 405's Allow header lists the
// methods of both readings. Turn it off to be strict: a client must then
// send the slashes of a multi-segment value as "/".
func WithoutEncodedSlashFallback() Option {
	return optionFunc(func(c *config) { c.slashFallback = false })
}

// WithStrictTrailingSlash makes a trailing slash significant. By default
// trailing slashes are ignored: /v1/books/ is /v1/books.
func WithStrictTrailingSlash() Option {
	return optionFunc(func(c *config) { c.strictSlash = true })
}

// WithSuccessStatus sets the HTTP status of a successful response of one
// method, named "pkg.Service/Method" (a leading "/" is allowed), e.g. 201
// for a create or 204 for a delete (204 sends no body). The default is 200.
// It panics if code is not a 2xx status; registering the service fails if
// it has no such method.
func WithSuccessStatus(method string, code int) Option {
	if code < 200 || code > 299 {
		panic("protorest: WithSuccessStatus(" + method + "): " + strconv.Itoa(code) + " is not a success status (2xx)")
	}
	return optionFunc(func(c *config) {
		if c.successStatus == nil {
			c.successStatus = map[string]int{}
		}
		c.successStatus["/"+strings.TrimPrefix(method, "/")] = code
	})
}

// WithMaxRequestBodySize limits request bodies to n bytes; a larger one
// gets 413 with a RESOURCE_EXHAUSTED status, and no more than n+1 bytes
// are read. The default is 4 MiB; n <= 0 removes the limit.
func WithMaxRequestBodySize(n int64) Option {
	return optionFunc(func(c *config) { c.env.MaxBody = n })
}

// WithMaxJSONDepth limits the nesting of objects and arrays in a JSON
// request body; deeper input gets 400. The default is 100.
func WithMaxJSONDepth(n int) Option {
	return optionFunc(func(c *config) { c.maxDepth = n })
}

// WithIncomingHeaderMatcher decides which request headers become incoming
// metadata, and under which keys. The default (or nil) is
// DefaultHeaderMatcher.
// Hop-by-hop headers are dropped whatever the matcher says.
func WithIncomingHeaderMatcher(m HeaderMatcher) Option {
	return optionFunc(func(c *config) { c.env.Headers.Incoming = m })
}

// WithOutgoingHeaderMatcher decides which header metadata set by a method
// become response headers, and under which header names. By default key
// k becomes Grpc-Metadata-K.
func WithOutgoingHeaderMatcher(m HeaderMatcher) Option {
	return optionFunc(func(c *config) { c.env.Headers.OutgoingHeader = m })
}

// WithOutgoingTrailerMatcher decides which trailer metadata become HTTP
// trailers (sent only when the request says "TE: trailers"), and under
// which names. By default key k becomes Grpc-Trailer-K.
func WithOutgoingTrailerMatcher(m HeaderMatcher) Option {
	return optionFunc(func(c *config) { c.env.Headers.OutgoingTrailer = m })
}

// WithFiles sets where RegisterService looks up service descriptors. The
// default is protoregistry.GlobalFiles, which generated code fills.
func WithFiles(files *protoregistry.Files) Option {
	return optionFunc(func(c *config) { c.files = files })
}

// WithTypes sets the types used to resolve google.protobuf.Any values in
// JSON, error details included. The default is protoregistry.GlobalTypes.
func WithTypes(types *protoregistry.Types) Option {
	return optionFunc(func(c *config) { c.types = types })
}

// WithoutFieldMaskDerivation turns off grpc-gateway's PATCH convenience.
// By default, when a PATCH rule's body names a field, the request has
// exactly one google.protobuf.FieldMask field and the client did not set
// it, the mask is derived from the keys present in the JSON body, so that
// partial updates stay partial.
func WithoutFieldMaskDerivation() Option {
	return optionFunc(func(c *config) { c.deriveMask = false })
}

// WithAutoMapping routes the methods that have no google.api.http rule
// too: each answers POST /package.Service/Method with the whole request
// message as the body, as grpc-gateway's generate_unbound_methods does.
// Methods with a rule keep only their rule's routes.
func WithAutoMapping() Option {
	return optionFunc(func(c *config) { c.autoMap = true })
}

// WithPanicHook is called with the method, the value and the stack of
// every panic the gateway recovers from a method handler or from its own
// request path (the client gets 500 INTERNAL). By default the panic is
// logged with log/slog.
func WithPanicHook(h func(method string, value any, stack []byte)) Option {
	return optionFunc(func(c *config) { c.panicHook = h })
}

// WithTrustedProxies names the peers (CIDR prefixes, "10.0.0.0/8", or
// addresses) whose X-Forwarded-Host header is believed: from them, it
// becomes the x-forwarded-host metadata; from any other peer, that is the
// request's Host. By default no peer is trusted. X-Forwarded-For is
// always kept, with the peer's address appended. WithTrustedProxies
// panics on what is not a prefix or an address.
func WithTrustedProxies(cidrs ...string) Option {
	var prefixes []netip.Prefix
	for _, c := range cidrs {
		pfx, err := netip.ParsePrefix(c)
		if err != nil {
			addr, aerr := netip.ParseAddr(c)
			if aerr != nil {
				panic("protorest: WithTrustedProxies(" + strconv.Quote(c) + "): " + err.Error())
			}
			pfx = netip.PrefixFrom(addr, addr.BitLen())
		}
		prefixes = append(prefixes, pfx.Masked())
	}
	return optionFunc(func(c *config) { c.env.Headers.TrustedProxies = append(c.env.Headers.TrustedProxies, prefixes...) })
}
