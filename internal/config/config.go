// Package config holds a gateway's settings: every option's value, with
// the defaults. The options of package protorest write a Config;
// internal/gateway derives the gateway's runtime from it, once.
package config

import (
	"math"
	"net/http"
	"runtime/debug"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/cors"
	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/openapi"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/validation"
)

// Config is a gateway's settings, grouped by feature.
type Config struct {
	Registration Registration
	Routing      Routing
	Binding      bind.RequestOptions // its JSON is the gateway's, set when derived
	Codecs       Codecs
	Invocation   Invocation
	Headers      headers.Policy // metadata, deadlines
	Limits       Limits
	Response     Response
	Errors       Errors

	WebSocketOrigins []string
	Protocols        Protocols
	CORS             *cors.Policy // nil: no CORS
	Compression      *Compression // nil: responses not compressed
	Health           []Health
	OpenAPI          openapi.Options      // its JSON is the gateway's, set when derived
	Validation       validation.Validator // nil: requests are not checked

	// Errs are the options' mistakes (a bad value), reported at the
	// gateway's first use.
	Errs []error
}

// Registration says where services' descriptors come from and which
// methods are routed.
type Registration struct {
	Files   *protoregistry.Files
	AutoMap bool // methods without a rule answer POST /pkg.Service/Method
}

// Protocols are the RPC protocols turned off at the methods' canonical
// paths (internal/protocols); all are on by default.
type Protocols struct {
	NoConnect, NoGRPCWeb, NoGRPC bool
}

// Routing is how request paths match templates.
type Routing struct {
	StrictSlash   bool // a trailing slash is significant
	SlashFallback bool // %2F is decoded when the path matches no route as written
}

// Codecs is how messages are read and written.
type Codecs struct {
	Marshal   protojson.MarshalOptions
	Unmarshal protojson.UnmarshalOptions
	Types     *protoregistry.Types // resolves Any, error details included
	Extra     []negotiate.NamedCodec
}

// Invocation is what runs around an in-process method.
type Invocation struct {
	Unary  []grpc.UnaryServerInterceptor
	Stream []grpc.StreamServerInterceptor
	Stats  stats.Handler
}

// Limits bound what a request may cost; 0 is no limit.
type Limits struct {
	MaxBody                                 int64
	MaxURLBytes, MaxHeaders, MaxQueryParams int
	MaxJSONDepth                            int
	MaxDecoding                             int64 // all request bodies held at once, and what decoding them holds
	ReadIdleTimeout, StreamIdleTimeout      time.Duration
	Concurrency                             Concurrency
}

// Concurrency caps the calls of each class in flight at once; 0 is no
// cap, the default.
type Concurrency struct {
	Unary, ServerStreams, ClientStreams, BidiStreams, WebSockets, GRPCPassThrough int
}

// Response is how responses are written; 0 is no limit.
type Response struct {
	SuccessStatus map[string]int // by "/pkg.Service/Method"
	Hooks         []render.Hook
	MaxBytes      int
	MaxBuffered   int64 // all responses held at once
	PerConn       int64 // what one client connection's responses may hold of it
	BufferedWait  time.Duration
	WriteTimeout  time.Duration
}

// Errors is how errors are answered; nil handlers are the defaults.
type Errors struct {
	Handler        httperr.Handler
	RoutingHandler httperr.Handler // requests no route matched
	StreamError    func(r *http.Request, err error) *status.Status
	PanicHook      func(method string, value any, stack []byte)
}

// Compression is how responses are compressed.
type Compression struct {
	MinSize int // 0 is DefaultCompressMinSize
}

// Health is a health endpoint's route.
type Health struct {
	Path   string
	Client healthpb.HealthClient
}

// The defaults.
const (
	DefaultMaxRequestBytes = 4 << 20
	DefaultMaxURLBytes     = 16 << 10
	DefaultMaxHeaders      = 100
	DefaultMaxQueryParams  = 1000
	DefaultMaxJSONDepth    = 100
	DefaultReadIdleTimeout = 30 * time.Second
	DefaultStreamIdle      = 5 * time.Minute
	DefaultMaxDecoding     = 128 << 20

	DefaultMaxMetadataBytes = 8 << 10
	DefaultMaxTimeout       = 5 * time.Minute

	DefaultMaxResponseBytes     = 4 << 20
	DefaultMaxBufferedResponses = 128 << 20
	DefaultBufferedPerConn      = 512 << 10
	DefaultBufferedResponseWait = time.Second
	DefaultResponseWriteTimeout = time.Minute
)

// Default returns the settings of a gateway without options.
func Default() Config {
	return Config{
		Registration: Registration{Files: protoregistry.GlobalFiles},
		Routing:      Routing{SlashFallback: true},
		Binding:      bind.RequestOptions{DeriveMask: true},
		Codecs: Codecs{
			Marshal:   protojson.MarshalOptions{EmitUnpopulated: true},
			Unmarshal: protojson.UnmarshalOptions{DiscardUnknown: true},
			Types:     protoregistry.GlobalTypes,
		},
		Headers: headers.Policy{
			OutgoingHeader:   headers.DefaultOutgoingHeader,
			OutgoingTrailer:  headers.DefaultOutgoingTrailer,
			MaxMetadataBytes: DefaultMaxMetadataBytes,
			MaxTimeout:       DefaultMaxTimeout,
		},
		Limits: Limits{
			MaxBody:           DefaultMaxRequestBytes,
			MaxURLBytes:       DefaultMaxURLBytes,
			MaxHeaders:        DefaultMaxHeaders,
			MaxQueryParams:    DefaultMaxQueryParams,
			MaxJSONDepth:      DefaultMaxJSONDepth,
			MaxDecoding:       withinMemoryLimit(DefaultMaxDecoding),
			ReadIdleTimeout:   DefaultReadIdleTimeout,
			StreamIdleTimeout: DefaultStreamIdle,
		},
		Response: Response{
			MaxBytes:     DefaultMaxResponseBytes,
			MaxBuffered:  DefaultMaxBuffered(),
			PerConn:      DefaultBufferedPerConn,
			BufferedWait: DefaultBufferedResponseWait,
			WriteTimeout: DefaultResponseWriteTimeout,
		},
	}
}

// DefaultMaxBuffered is DefaultMaxBufferedResponses, or a quarter of the
// runtime's memory limit when that is smaller.
func DefaultMaxBuffered() int64 { return withinMemoryLimit(DefaultMaxBufferedResponses) }

// withinMemoryLimit is n, or a quarter of the runtime's memory limit
// (GOMEMLIMIT) when that is smaller.
func withinMemoryLimit(n int64) int64 {
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		n = min(n, limit/4)
	}
	return n
}
