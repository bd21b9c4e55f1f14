package protorest

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/exchange"
)

// A Route is what a request matched: a method's HTTP rule (one of its
// bindings) or a custom route. Routes are made at registration and never
// change; compare them by pointer or by Pattern.
type Route struct {
	// Method is the HTTP method of the rule ("GET", a custom kind, or "*"),
	// Template its path template as written ("/v1/{name=shelves/*}"),
	// and Pattern the two as "GET /v1/{name=shelves/*}": a label of
	// bounded cardinality for metrics and span names (OpenTelemetry's
	// http.route is Template).
	Method, Template, Pattern string
	// FullMethod is the gRPC method the route calls, "/pkg.Service/Method";
	// "" for a custom route (HandlePath).
	FullMethod string
	// ClientStreams and ServerStreams say how the method streams.
	ClientStreams, ServerStreams bool
	// Protocol is the RPC protocol of a call to a method's canonical
	// path, "/pkg.Service/Method": "connect", "grpc_web" or "grpc"; ""
	// for REST (and a custom route). Method is then "POST" (or "GET" for
	// Connect's), Template and Pattern the canonical path.
	Protocol string
}

// RouteFromContext returns the route of the call whose context ctx is or
// derives from: in-process, the context the interceptors, the stats
// handler and the method see; or any context holding a CallInfo the
// gateway has routed. (A custom route's handler has r.Pattern.)
func RouteFromContext(ctx context.Context) (*Route, bool) {
	if rt, ok := ctx.Value(exchange.RouteKey{}).(*exchange.Route); ok {
		return (*Route)(rt), true
	}
	if ci, ok := CallInfoFromContext(ctx); ok && ci.Route != nil {
		return ci.Route, true
	}
	return nil, false
}

// A CallInfo is filled in by the gateway for a request whose context
// holds it (NewCallInfoContext): middleware that wraps the gateway (an
// access log, metrics, a tracer) puts one in before ServeHTTP and reads
// it after. Every field is final when ServeHTTP returns.
//
// Without a CallInfo in the context the gateway does none of this work.
type CallInfo struct {
	// Route is the route the request matched; nil if none did (a 404 or
	// 405, or a request refused before routing).
	Route *Route
	// Code is the gRPC status of the outcome: OK, the method's error, or
	// the gateway's own (INVALID_ARGUMENT for a bad request, NOT_FOUND for
	// no route, …); Err is that error, nil for OK. A stream that fails
	// after its first message has Code set from its in-band error. A
	// remote call that did not reach its backend has an Err matching
	// ErrBackendUnreachable, whose text has grpc-go's cause.
	Code codes.Code
	Err  error
	// MessagesReceived and MessagesSent count the request messages
	// decoded and the response messages written (1 and 1 for a
	// successful unary call).
	MessagesReceived, MessagesSent int
}

// NewCallInfoContext returns ctx holding ci, for the gateway to fill in.
func NewCallInfoContext(ctx context.Context, ci *CallInfo) context.Context {
	return exchange.NewRecorderContext(ctx, (*callRecorder)(ci))
}

// CallInfoFromContext returns the CallInfo ctx holds, if any.
func CallInfoFromContext(ctx context.Context) (*CallInfo, bool) {
	rec, _ := exchange.RecorderFrom(ctx)
	ci, ok := rec.(*callRecorder)
	return (*CallInfo)(ci), ok
}

// callRecorder fills in a CallInfo as the gateway tells it what becomes
// of the request (exchange.Recorder).
type callRecorder CallInfo

func (c *callRecorder) Routed(rt *exchange.Route) { c.Route = (*Route)(rt) }
func (c *callRecorder) Sent()                     { c.MessagesSent++ }
func (c *callRecorder) Received(n int)            { c.MessagesReceived = n }
func (c *callRecorder) Ended(err error)           { c.Err, c.Code = err, status.Code(err) }

// WithStatsHandler has h told about every in-process call as a
// grpc.Server's stats handler (grpc.StatsHandler) is: TagRPC, then
// InHeader, Begin, InPayload and OutPayload per message, OutHeader,
// OutTrailer and End. The context TagRPC returns is the one the
// interceptors and the method see, so that otelgrpc.NewServerHandler()
// gives in-process calls the spans and metrics of a grpc.Server's.
// Payloads are reported as a grpc.Server reports uncompressed ones. Calls
// to remote backends are reported by their grpc.ClientConn's stats
// handler. By default there is none.
func WithStatsHandler(h stats.Handler) Option {
	return optionFunc(func(c *config.Config) { c.Invocation.Stats = h })
}
