package otelprotorest

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/protorest/protorest"
)

// NewHandler returns h, a protorest gateway or a handler in front of one,
// with a server span and the metrics of each request (see the package
// documentation).
//
// The request h sees carries a protorest.CallInfo (the one already in its
// context, if any, so that an access log inside agrees with the metrics)
// and, when the span is valid, the span's trace context in its
// Traceparent, Tracestate and Baggage headers, which the gateway forwards
// to the call: so the in-process call's span is the HTTP span's child,
// not its sibling, and a proxied gRPC call carries it too. The caller's
// request and its headers are left as they were.
func NewHandler(h http.Handler, opts ...Option) http.Handler {
	c := newConfig(opts)
	in := &handler{next: h, propagators: c.propagators, instruments: newInstruments(c.meter())}
	return otelhttp.NewHandler(in, "",
		otelhttp.WithTracerProvider(c.tracerProvider),
		otelhttp.WithMeterProvider(c.meterProvider),
		otelhttp.WithPropagators(c.propagators),
		otelhttp.WithServerName(c.serverName),
	)
}

// handler runs inside otelhttp's: the span is in the request's context,
// and r.Pattern, which otelhttp reads after it returns, must be set on
// the request it was given.
type handler struct {
	next        http.Handler
	propagators propagation.TextMapPropagator
	*instruments
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ci, ok := protorest.CallInfoFromContext(ctx)
	if !ok {
		ci = new(protorest.CallInfo)
		ctx = protorest.NewCallInfoContext(ctx, ci)
	}
	span := trace.SpanFromContext(ctx)
	call := r.WithContext(ctx)
	if span.SpanContext().IsValid() {
		call.Header = r.Header.Clone()
		h.propagators.Inject(ctx, propagation.HeaderCarrier(call.Header))
	}
	reqMethod := requestMethod(r.Method)
	tls := 0
	if r.TLS != nil {
		tls = 1
	}
	inFlight := inFlightSets[reqMethod][tls]
	h.active.Add(ctx, 1, inFlight)
	defer h.active.Add(ctx, -1, inFlight)

	h.next.ServeHTTP(w, call)

	r.Pattern = call.Pattern
	route := semconv.HTTPRoute(call.Pattern)
	if call.Pattern == "" {
		// otelhttp labels metrics with http.route only when there is a
		// pattern: an unmatched request is labelled "" instead.
		if l, ok := otelhttp.LabelerFromContext(ctx); ok {
			l.Add(route)
		}
	} else {
		span.SetAttributes(route)
	}
	rt := ci.Route
	if rt == nil || rt.FullMethod == "" {
		return // no call: a custom route, or no route
	}
	method := semconv.RPCMethod(rt.FullMethod[1:])
	system := semconv.RPCSystemNameGRPC // REST transcodes gRPC; gRPC-Web is gRPC
	if rt.Protocol == "connect" {
		system = semconv.RPCSystemNameConnectrpc
	}
	span.SetAttributes(system, method, semconv.RPCResponseStatusCode(StatusCodeName(ci.Code)))
	if rt.Protocol != "" {
		span.SetAttributes(attribute.String("protorest.rpc.protocol", rt.Protocol))
	}
	if rt.ClientStreams || rt.ServerStreams {
		received, sent := int64(ci.MessagesReceived), int64(ci.MessagesSent)
		span.AddEvent("messages", trace.WithAttributes(
			attribute.Int64("protorest.stream.messages.received", received),
			attribute.Int64("protorest.stream.messages.sent", sent)))
		labels := metric.WithAttributeSet(attribute.NewSet(
			semconv.HTTPRequestMethodKey.String(reqMethod), route, method))
		h.messagesReceived.Add(ctx, received, labels)
		h.messagesSent.Add(ctx, sent, labels)
	}
}

// knownMethods are the http.request.method values metrics keep: RFC
// 9110's methods and PATCH. Any other is "_OTHER", as otelhttp labels
// it, so that made-up methods (a route of custom kind "*" takes them all)
// cannot make new series.
var knownMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

// requestMethod is m as metrics label it.
func requestMethod(m string) string {
	for _, k := range knownMethods {
		if m == k {
			return m
		}
	}
	return semconv.HTTPRequestMethodOther.Value.AsString()
}

// inFlightSets are the attributes of http.server.active_requests, by
// request method (as requestMethod gives it) and TLS, built once.
var inFlightSets = func() map[string][2]metric.MeasurementOption {
	sets := map[string][2]metric.MeasurementOption{}
	for _, m := range append(knownMethods, requestMethod("")) {
		method := semconv.HTTPRequestMethodKey.String(m)
		sets[m] = [2]metric.MeasurementOption{
			metric.WithAttributeSet(attribute.NewSet(method, semconv.URLScheme("http"))),
			metric.WithAttributeSet(attribute.NewSet(method, semconv.URLScheme("https"))),
		}
	}
	return sets
}()
