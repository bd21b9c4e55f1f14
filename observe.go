package protorest

import (
	"context"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

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

type callInfoKey struct{}

// NewCallInfoContext returns ctx holding ci, for the gateway to fill in.
func NewCallInfoContext(ctx context.Context, ci *CallInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, ci)
}

// CallInfoFromContext returns the CallInfo ctx holds, if any.
func CallInfoFromContext(ctx context.Context) (*CallInfo, bool) {
	ci, ok := ctx.Value(callInfoKey{}).(*CallInfo)
	return ci, ok
}

// observeErrors wraps h to record each error it answers in the request's
// CallInfo, if it has one: errors before a call (routing, limits,
// binding) reach only the error handler.
func observeErrors(h ErrorHandler) ErrorHandler {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		if ci, ok := CallInfoFromContext(r.Context()); ok {
			ci.Err, ci.Code = err, status.Code(err)
		}
		h(w, r, err)
	}
}

// observeCall is the exchange's Observe hook for a request with a
// CallInfo: the call's responses and outcome go through a sink that
// counts and records them.
func observeCall(ci *CallInfo) func(*exchange.Exchange) {
	return func(x *exchange.Exchange) {
		x.Sink = &observedSink{Sink: x.Sink, ci: ci, x: x}
	}
}

// observedSink records what passes to the exchange's sink in a CallInfo.
type observedSink struct {
	exchange.Sink
	ci *CallInfo
	x  *exchange.Exchange
}

func (s *observedSink) Send(msg proto.Message, header metadata.MD) error {
	err := s.Sink.Send(msg, header)
	if err == nil {
		s.ci.MessagesSent++
	}
	return err
}

func (s *observedSink) Finish(err error, header, trailer metadata.MD) {
	s.ci.Err, s.ci.Code = err, status.Code(err)
	s.ci.MessagesReceived = s.x.Received
	s.Sink.Finish(err, header, trailer)
}

// WithStatsHandler has h told about every in-process call as a
// grpc.Server's stats handler (grpc.StatsHandler) is: TagRPC, then
// InHeader, Begin, InPayload and OutPayload per message, OutHeader,
// OutTrailer and End, from the goroutines a grpc.Server would use. The
// context TagRPC returns is the one the interceptors and the method see,
// so otelgrpc.NewServerHandler() gives in-process calls the same spans
// and metrics as calls through a grpc.Server, children of the span of a
// tracer wrapping the gateway (otelhttp). There is no transport and
// nothing is compressed: a payload is reported as a grpc.Server reports
// an uncompressed one, with the message's proto size as Length and
// CompressedLength, and that plus the 5-byte gRPC message header as
// WireLength.
//
// Calls to remote backends are reported by the stats handler of their
// grpc.ClientConn (grpc.WithStatsHandler), which the gateway does not
// touch.
func WithStatsHandler(h stats.Handler) Option {
	return optionFunc(func(c *config.Config) { c.Invocation.Stats = h })
}
