// Package otelprotorest gives a protorest gateway OpenTelemetry traces and
// metrics, in a module of its own so that the core module's users do not
// pay for OpenTelemetry (like connectrpc.com/otelconnect for connect-go).
//
// Wrap the gateway, and tell the calls about the same providers:
//
//	gw := protorest.NewGateway(otelprotorest.GatewayOption())     // in-process calls: rpc spans
//	conn, _ := grpc.NewClient(target, otelprotorest.DialOption()) // remote calls: rpc spans, traceparent out
//	http.ListenAndServe(":8080", otelprotorest.NewHandler(gw))
//
// Each request gets a server span named "{METHOD} {route template}" ("GET
// /v1/{name=shelves/*}") with the stable HTTP semantic conventions
// (otelhttp underneath), http.route, and the rpc.* attributes of the call
// (rpc.system.name, rpc.method, rpc.response.status_code, as otelgrpc
// names them). The span's status is Error only for 5xx responses. The
// request's W3C trace context (traceparent, tracestate, baggage) is its
// parent, and the span is the parent of the gRPC call's: in-process
// through the gateway's stats handler (GatewayOption), remote through the
// client connection's (DialOption), which puts traceparent in the call's
// metadata. The gRPC call's span has an rpc.message event per message
// each way (rpc.message.type SENT or RECEIVED, rpc.message.id from 1,
// rpc.message.uncompressed_size), so a stream's span shows its messages;
// the HTTP span of a stream has a "messages" event with the counts.
//
// Metrics (OpenTelemetry metric API; names as Prometheus shows them with
// underscore escaping and suffixes):
//
//	http.server.request.duration           seconds, histogram: http.request.method, http.route, http.response.status_code, …
//	http.server.active_requests            requests in flight: http.request.method, url.scheme
//	protorest.stream.messages.received     messages of streaming calls, counter: http.request.method, http.route, rpc.method
//	protorest.stream.messages.sent
//	protorest.upstream.connectivity        1 for the connection's state, 0 for the others (ObserveConnectivity)
//	protorest.reloads                      route reloads, counter; error.type on failures (ReloadCounter)
//
// Labels have bounded cardinality: http.route is the template, never the
// path ("" when no route matched); no host or user agent. (otelhttp's
// server.address is the name of WithServerName, not the Host header.)
//
// With no tracer or meter provider set, the globals of
// go.opentelemetry.io/otel are used, which do nothing until set: a gateway
// not wrapped pays nothing at all.
package otelprotorest
