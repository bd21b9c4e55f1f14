// Package protorest serves gRPC services as HTTP/JSON APIs, following the
// google.api.http annotations in their protobuf descriptors, read at run
// time: there is no generated gateway code.
//
// A Gateway is an http.Handler and a grpc.ServiceRegistrar. Register a
// service on it exactly as on a grpc.Server, and every method with an HTTP
// rule answers REST/JSON, in-process, through the same interceptors:
//
//	gw := protorest.NewGateway(protorest.WithUnaryInterceptors(logging, recovery))
//	pb.RegisterLibraryServer(gw, impl)
//	http.ListenAndServe(":8080", gw)
//
// RegisterRemote does the same for the services of a gRPC backend in any
// language, reached over a grpc.ClientConn, with descriptors from server
// reflection, a descriptor set, .proto sources compiled in-process, or a
// *protoregistry.Files. Reload re-reads them and swaps the backend's routes
// atomically (requests in flight finish on the routes they matched);
// WithPending keeps a backend that is not up yet, answering 503 until a
// Reload loads it. WithAutoMapping also routes methods without a rule, at
// POST /package.Service/Method.
//
// The behaviour follows google/api/http.proto; where implementations
// disagree, protorest keeps grpc-gateway's wire conventions (URLs, JSON,
// error bodies, headers) so that clients migrating from it keep working,
// and is strict and safe elsewhere. Each difference from grpc-gateway is
// listed below.
//
// # Streaming
//
// Streaming methods are served in-process (through WithStreamInterceptors,
// with the transport stream in the context as for unary methods) and
// remote (conn.NewStream). A server stream's messages are framed as
// grpc-gateway frames them, {"result":…} per line, unless the client asks
// for text/event-stream (Server-Sent Events, ending with an "end" event,
// or an "error" event on failure, so that EventSource need not reconnect)
// or application/x-ndjson (bare messages); binary types get
// length-delimited messages, and a stream of google.api.HttpBody is its
// data concatenated, typed by the first message (grpc-gateway adds a
// newline after each chunk). The response starts with the first message
// (in-process also with grpc.SendHeader): an error before it is an
// ordinary error response. A later error is an in-band record and, for a
// client that sent "TE: trailers", Grpc-Status and Grpc-Message trailers;
// NDJSON and binary have no in-band record, so without trailers the
// response is cut short rather than ending as if whole.
//
// A client stream's body is a sequence of JSON values (newline-delimited
// or concatenated, as grpc-gateway reads it) or of length-delimited
// binary messages, read as it arrives; the body limit applies to each
// message. Every message gets the path and query bindings, except that a
// stream of google.api.HttpBody chunks (at most 1 MiB each) binds them to
// the first only. Bidirectional streams are full duplex over HTTP/2, and
// over HTTP/1.1 for clients that can.
//
// The route of a streaming method also accepts a WebSocket handshake,
// whatever the rule's HTTP method: each WebSocket message is one gRPC
// message (the first message's type, text for JSON or binary, sets the
// connection's encoding), an empty message half-closes, the client's
// close cancels the call, and the close frame carries the outcome: 1000
// for OK, else 4000 plus the gRPC code with the status message as reason;
// a client that breaks the protocol gets RFC 6455's codes: 1002 for an
// unmasked frame, 1007 for a text message that is not UTF-8, 1009 for a
// message (or a frame header claiming one) over the body limit, at once.
// Pages from other origins need WithWebSocketOrigins; another origin's
// handshake gets 403 PERMISSION_DENIED. Header and trailer
// metadata have no place in a WebSocket after its handshake and do not
// reach its client.
//
// # Routing
//
// Path templates use the full HttpRule grammar: literals, {field},
// {field=a/*/b}, *, **, a :verb, and dotted field paths. Routes live in a
// segment trie. The most specific template wins, whatever the
// registration order: at each segment a literal beats *, which beats **,
// with backtracking when a more specific branch fails further down.
// Duplicate routes (same method, verb and segment shape) fail
// registration, naming both.
//
//   - A path that no template matches gets 404 NOT_FOUND; a path that
//     matches only for other methods gets 405 with an Allow header (and
//     code 12, UNIMPLEMENTED). grpc-gateway answers 501 there.
//   - Trailing slashes are ignored (/v1/books/ is /v1/books), unless
//     WithStrictTrailingSlash.
//   - A ":suffix" in the last segment is a verb only when some template
//     registers that verb; otherwise it is data ("abc:zzz"). When several
//     registered verbs end the segment, the longest wins: with :archive
//     registered, POST /v1/probes/a:b:archive is the verb "archive" on
//     "probes/a:b".
//   - A verb may contain ":" (/v1/{id}:custom:custom, the verb
//     "custom:custom"), as grpc-gateway serves it. google/api/http.proto
//     allows one literal; this is a deliberate leniency, for migration.
//   - Literals match the raw, percent-encoded request path, so %2F inside
//     a segment never splits it. A one-segment variable is then fully
//     decoded (%2F becomes /); a multi-segment one keeps %2F encoded by
//     default (see WithPathUnescaping). A malformed escape is a 400.
//   - A path that matches no route for its method that way, but holds
//     %2F, is routed once more with %2F decoded, as grpc-gateway routes
//     every path: the OpenAPI clients generated for grpc-gateway escape
//     the slashes of path parameters (shelves%2F1%2Fbooks%2F2 for
//     {name=shelves/*/books/*}, which then gets shelves/1/books/2). Only
//     %2F is decoded for routing: an encoded colon (%3A) is never a verb,
//     where grpc-gateway decodes it first. WithoutEncodedSlashFallback
//     keeps %2F as data always; its documentation gives the safety
//     reasoning.
//   - "**" at the end of a template matches zero or more segments; followed
//     by literals it matches at least one.
//
// # Binding
//
// Requests bind in order body, path, query. A rule's body is "*" (the
// whole request message), a field path (that field), or absent (a request
// body is read and dropped: 413 past the limit). Path variables override
// the body. Query parameters set the remaining fields by proto or JSON
// name, with dotted paths into nested messages; repeated fields repeat
// the parameter. These are 400
// INVALID_ARGUMENT, each with a message that names the parameter: an
// unknown parameter (see WithDiscardUnknownQueryParameters and
// WithIgnoredQueryParameters), a singular parameter given twice, a
// parameter naming a field the path or body already binds (a query never
// overrides the path), two members of one oneof, and a value that does not
// convert. grpc-gateway silently ignores the first and third.
//
// A PATCH whose body is a field and whose request has one FieldMask field
// that the client left unset (or empty) gets the mask derived from the
// JSON keys of the body, as grpc-gateway does; a key that names no field
// is then a 400, so that a typo cannot widen an update. Binary bodies get
// no derived mask. WithoutFieldMaskDerivation turns this off.
//
// # Content types
//
// application/json is the proto3 JSON mapping (WithMarshalOptions,
// WithUnmarshalOptions; by default every field is written, unpopulated
// ones with their default value, and unknown input fields are ignored).
// Ignored too, as grpc-gateway ignores it, is an enum value name the enum
// does not declare (a newer client's, or "Green" for GREEN): the field is
// left unset, a list or map loses that element, and no error says so; an
// undeclared number is kept. A query parameter or path variable with an
// undeclared name is a 400. DiscardUnknown false (WithUnmarshalOptions)
// makes such a body a 400 too.
// application/proto, application/protobuf and application/x-protobuf are
// the binary format. The request body is read per its Content-Type; a
// missing or unknown one (curl -d sends application/x-www-form-urlencoded)
// is read as JSON. The response uses the best match of the Accept header,
// else the request's type, and JSON when Accept names nothing the gateway
// speaks. google.api.HttpBody request and response bodies are raw bytes
// with their own content type. WithCodec adds a media type.
//
// # Errors
//
// Every error response is a google.rpc.Status as JSON:
//
//	{"code":3,"message":"Name argument is required","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest",…}]}
//
// with the HTTP status from the gRPC code (HTTPStatusFromCode), also for
// the errors the gateway makes itself: bad JSON, a bad path value, an
// unknown parameter, no route. An error that wraps a status keeps it;
// context.Canceled and context.DeadlineExceeded become CANCELLED (499) and
// DEADLINE_EXCEEDED (504); any other error is UNKNOWN (500). A panic in a method that no interceptor
// recovers is a 500 INTERNAL, never a crashed server. WithErrorHandler
// replaces the writer for all of them, WithRoutingErrorHandler for
// requests no route matched. WithStreamErrorHandler chooses the status of
// a method's error that ends a server stream. A 401 carries
// WWW-Authenticate. Error bodies do not follow WithMarshalOptions: their
// details array is always written (grpc-gateway leaves it out when its
// marshaler does not emit unpopulated fields).
//
// # Limits
//
// Every limit is on by default, each with its option, whose
// documentation gives the value and what a client gets past it:
//
//   - what a request may send: WithMaxRequestBodySize (4 MiB, 413),
//     WithMaxJSONDepth (100, 400), WithMaxURLBytes (16 KiB, 414),
//     WithMaxHeaders (100, 431), WithMaxQueryParameters (1,000, 400),
//     WithMaxMetadataBytes (8 KiB, 431, the method not called);
//   - how long: WithMaxTimeout (a Grpc-Timeout over 5 minutes is cut to
//     it), WithDefaultTimeout (none in the library; protorest serve sets
//     30 s), WithReadIdleTimeout (a body silent for 30 s, or slower than
//     500 bytes/s after that: 408), WithStreamIdleTimeout (a stream
//     silent both ways for 5 minutes ends with DEADLINE_EXCEEDED);
//   - what a response may hold: WithMaxResponseBytes (4 MiB encoded:
//     500 "response too large", nothing sent; a remote backend's
//     message is held to it as it arrives, the same 500 past it, see
//     WithMaxBackendMessageBytes), and across requests
//     WithMaxBufferedResponseBytes, WithBufferedResponseWait and
//     WithResponseWriteTimeout (the bytes of large responses held while
//     they are encoded and clients read them: 256 MiB, then 503 with
//     Retry-After).
//
// NewServer returns the http.Server settings recommended in front of a
// gateway. Error messages quote at most a short prefix of offending
// input. RELIABILITY.md shows each limit measured against protorest serve.
//
// # Metadata
//
// Request headers become incoming metadata with grpc-gateway's scheme
// (DefaultHeaderMatcher): Grpc-Metadata-X becomes x, IANA permanent
// headers become grpcgateway-<name>, Authorization becomes authorization,
// the W3C trace context (Traceparent, Tracestate, Baggage) keeps its
// names, so that a trace goes on to the method even with no tracer in
// the gateway, and x-forwarded-host and x-forwarded-for are added;
// hop-by-hop and Proxy-* headers and reserved grpc-* keys are dropped.
// The keys the gateway owns (grpcgateway-*, authorization, traceparent,
// tracestate, baggage, x-forwarded-*) come only from the headers they
// stand for: a client's Grpc-Metadata-Grpcgateway-Cookie or
// Grpc-Metadata-Authorization is dropped, so a backend may trust them
// (grpc-gateway appends them).
// x-forwarded-for is every X-Forwarded-For line of the request, then the
// peer's address; x-forwarded-host is the request's Host, or the
// X-Forwarded-Host of a peer named by WithTrustedProxies.
// Grpc-Timeout sets the deadline. Header metadata a method sets
// (grpc.SetHeader, grpc.SendHeader) is sent as Grpc-Metadata-K headers,
// and trailer metadata (grpc.SetTrailer) as Grpc-Trailer-K trailers when
// the request says "TE: trailers"; the keys of the gRPC hop itself
// (content-type, grpc-*) are not sent (grpc-gateway sends a remote
// backend's Grpc-Metadata-Content-Type: application/grpc). grpc.Method
// and peer.FromContext work in methods and interceptors. WithMetadata
// adds the metadata of the program's own annotators (a session cookie as
// authorization), which may set the keys the gateway owns.
//
// # Hooks
//
// WithResponseHook sees each successful response before its header is
// written, and may set headers and cookies and choose the status (a
// redirect, 201); a server stream calls it once, as its response starts.
// WithHealthEndpoint serves a grpc.health.v1 check over HTTP.
// MIGRATING.md maps every grpc-gateway ServeMux option to these and the
// other options.
//
// # Custom routes and middleware
//
// HandlePath adds plain http.HandlerFuncs on the same templates, trie and
// conflict checks; a handler reads its variables with r.PathValue("id"),
// as with http.ServeMux. ServeHTTP sets r.Pattern to the template that
// matched (a rule's, as written in its google.api.http option, or a
// custom route's), on the request it was given: a middleware wrapped
// around the gateway, mw(gw), can label metrics, traces and logs by route
// rather than by raw path.
//
// # Observability
//
// A middleware that wraps the gateway puts a CallInfo in the request's
// context (NewCallInfoContext) and reads it when ServeHTTP returns: the
// Route that matched (template, pattern, gRPC method), the gRPC code and
// error of the outcome, and the messages received and sent. Without one
// the gateway does none of that work. RouteFromContext gives the route to
// the interceptors and methods of in-process calls. WithStatsHandler
// reports in-process calls to a grpc stats.Handler as a grpc.Server does
// (otelgrpc's server handler traces them); remote calls are reported by
// their grpc.ClientConn's. The W3C trace context headers (Traceparent,
// Tracestate, Baggage) are forwarded as metadata even with no tracer.
//
// # OpenAPI
//
// OpenAPI returns the OpenAPI 3.1 document of what the gateway serves,
// built from its routes (not from the rules again): one operation per
// rule and additional binding (operationId Service_Method, then _1,
// _2…) and per custom route (HandleDocumentedPath gives one a summary);
// path templates as OpenAPI paths, the segments of a resource name named
// by the google.api.resource pattern of the field's resource
// ({name=shelves/*/books/*} is /shelves/{shelf}/books/{book} for the
// pattern "shelves/{shelf}/books/{book}"), else each after the
// collection before it, in the singular, and never as a query parameter
// of the operation is; the query parameters the binder accepts and no
// other; schemas in components.schemas by full proto name, with the JSON
// options' names, enums and int64 strings; the success status
// (WithSuccessStatus); google.rpc.Status for errors; server streams per
// framing, Server-Sent Events first, then NDJSON, then grpc-gateway's
// envelope under application/json; google.api.HttpBody as any content. Comments become summaries and descriptions when the
// descriptors keep source info; generated Go code keeps none, and
// WithOpenAPIComments lends it the comments of its .proto files compiled
// with source info. The document is built on first use after
// the routes change and cached; OpenAPIHandler serves it as JSON or YAML
// with an ETag (304 on If-None-Match). WithOpenAPIInfo sets its title,
// version and servers. Package docsui serves a documentation page of it
// (Swagger UI, embedded), with Try-it on the gateway, which shows a
// stream's messages as they arrive.
//
// # API changes
//
// CHANGELOG.md lists the changes to the public API and to behaviour a
// client can see.
package protorest
