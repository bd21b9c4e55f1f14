package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/protorest/protorest"
)

const serveIntro = `Usage: protorest serve --upstream ADDR [flags]

Serve the gRPC services of an upstream server as HTTP/JSON, following their
google.api.http annotations. Descriptors come from the upstream's server
reflection unless --descriptor-set or --proto says otherwise. On the same
port, every method also answers Connect, gRPC-Web and gRPC calls at its
path, /pkg.Service/Method (--connect, --grpc-web, --grpc turn each off);
binary gRPC calls are proxied to the upstream unchanged (--grpc-proxy).
All obey the limits REST calls obey.

If the upstream is down at start, protorest serves anyway: requests get
503 UNAVAILABLE until the upstream answers. A call that cannot reach the
upstream is told "upstream unavailable"; the cause, which names its
address, is logged. Routes are reloaded when the upstream reconnects (it
may have restarted with new services), on SIGHUP, and every
--reload-interval. SIGTERM or SIGINT drains requests in flight, then
exits.

Every flag can also be set by the environment variable after its default
($PROTOREST_ and the flag's name in upper case, dashes as underscores); a
flag on the command line wins. A repeatable flag's variable is a
comma-separated list. A PROTOREST_ variable that is no flag's is warned
of. Bad usage exits 2, a failure at run time 1. As a debugging aid,
PROTOREST_CPUPROFILE=FILE writes a CPU profile of serve to FILE at exit,
and PROTOREST_MEMPROFILE=FILE one of what it allocated (go tool pprof).

Examples:

  protorest serve --upstream localhost:50051
  protorest serve --upstream unix:///run/app.sock --listen :8080
  protorest serve --upstream dns:///app:50051 --descriptor-set app.binpb
  protorest serve --upstream localhost:50051 \
      --import-path proto --proto app/v1/app.proto
  protorest serve --upstream app:50051 --upstream-ca ca.pem \
      --tls-cert cert.pem --tls-key key.pem
`

// serveConfig is the parsed command line of serve.
type serveConfig struct {
	// Upstream and descriptors.
	upstream       string
	descriptorSet  string
	protos         []string
	importPaths    []string
	services       []string
	loadTimeout    time.Duration
	reloadInterval time.Duration
	autoMap        bool

	// Upstream connection.
	upstreamTLS        bool
	upstreamCA         string
	upstreamCert       string
	upstreamKey        string
	upstreamServerName string
	upstreamHeaders    []string
	maxUpstreamMessage int64 // 0: the default
	maxUpstreamHeader  int64
	upstreamConns      int
	upstreamMaxStreams int // 0: no limit

	// TLS on the listener.
	tlsCert     string
	tlsKey      string
	tlsClientCA string

	// Serving.
	listen            string
	grpcProxy         bool
	connect           bool
	grpcWeb           bool
	grpc              bool
	drainTimeout      time.Duration
	memoryLimit       int64 // -1: the container's
	returnMemoryEvery time.Duration
	healthPath        string
	livezPath         string
	readyzPath        string
	// The OpenAPI document.
	openapi        bool
	openapiPath    string
	openapiTitle   string
	openapiVersion string
	docs           bool
	docsPath       string

	// JSON and requests.
	protoNames     bool
	omitDefaults   bool
	enumNumbers    bool
	ignoreUnknown  bool
	ignoredQuery   []string
	unescape       string
	literalPlus    bool
	strictSlash    bool
	slashFallback  bool
	successStatus  []string
	websocketOrigs []string
	validate       bool

	// Browsers, compression, proxies.
	corsOrigins         []string
	corsCredentials     bool
	compression         bool
	upstreamCompression string
	trustedProxies      []string

	// Limits.
	maxBody           int64
	maxDepth          int
	maxURLBytes       int64
	maxHeaders        int
	maxQueryParams    int
	maxMetadataBytes  int64
	defaultTimeout    time.Duration
	maxTimeout        time.Duration
	readHeaderTimeout time.Duration
	idleTimeout       time.Duration
	readIdleTimeout   time.Duration
	streamIdleTimeout time.Duration
	maxHeaderBytes    int64
	maxConnections    int // 0: no limit
	maxStreams        int
	maxResponseBytes  int64
	maxBufferedResp   int64 // -1: the library's default
	maxDecoding       int64 // -1: the library's default
	bufferedPerConn   int64
	bufferedRespWait  time.Duration
	respWriteTimeout  time.Duration
	caps              classCaps // -1: derived from the pool

	// Headers.
	incomingHeaders []string
	outgoingHeaders []string

	// Logging.
	logFormat       string
	logLevel        string
	accessLog       bool
	accessLogProbes bool

	// Telemetry.
	metricsListen string
	otlpEndpoint  string
}

// serveFlags is serve's flag table, bound to c: the order of --help.
func serveFlags(c *serveConfig) []flagSpec {
	const (
		up   = "Upstream and descriptors"
		conn = "Upstream connection"
		tls  = "TLS on the listener"
		srv  = "Serving"
		js   = "JSON and requests"
		lim  = "Limits"
		hdr  = "Headers"
		logs = "Logging"
		tel  = "Telemetry"
		web  = "Browsers, compression and proxies"
	)
	return []flagSpec{
		{group: up, name: "upstream", arg: "ADDR", value: targetValue{&c.upstream}, def: "none, required",
			help: "gRPC address of the upstream: host:port, dns:///name:port (round robin), unix:///path, or another gRPC target; not a URL (for https://app use --upstream app:443 --upstream-tls)"},
		{group: up, name: "descriptor-set", arg: "FILE", value: stringValue{&c.descriptorSet},
			help: "read descriptors from a FileDescriptorSet (buf build -o FILE, or protoc --include_imports --descriptor_set_out FILE) instead of server reflection"},
		{group: up, name: "proto", arg: "FILE", value: listValue{&c.protos}, repeat: true,
			help: "compile this .proto file instead of using server reflection; imports of google/protobuf/*.proto (the well-known types) and of every google/api/…, google/rpc/… and google/type/… file Go's genproto modules ship (annotations, http, httpbody, client, field_behavior, resource, routing, visibility, service…; status, code, error_details…; date, money, latlng…; README lists them) resolve by themselves"},
		{group: up, name: "import-path", arg: "DIR", value: listValue{&c.importPaths}, repeat: true, def: ".",
			help: "where --proto files and their imports resolve"},
		{group: up, name: "service", arg: "NAME", value: listValue{&c.services}, repeat: true, def: "all",
			help: "serve only this service, by full name"},
		{group: up, name: "load-timeout", arg: "DUR", value: durationValue{&c.loadTimeout},
			help: "time limit for loading descriptors"},
		{group: up, name: "reload-interval", arg: "DUR", value: durationValue{&c.reloadInterval}, def: "0s: never",
			help: "also reload the routes this often"},
		{group: up, name: "auto-map", value: boolValue{&c.autoMap},
			help: `also route methods that have no google.api.http rule: POST /package.Service/Method, body "*"`},

		{group: conn, name: "upstream-tls", value: boolValue{&c.upstreamTLS},
			help: "connect to the upstream with TLS, trusting the system's roots"},
		{group: conn, name: "upstream-ca", arg: "FILE", value: stringValue{&c.upstreamCA},
			help: "connect with TLS, trusting the CA certificates (PEM) in FILE; implies --upstream-tls"},
		{group: conn, name: "upstream-cert", arg: "FILE", value: stringValue{&c.upstreamCert},
			help: "client certificate (PEM) for mutual TLS with the upstream; needs --upstream-key, implies --upstream-tls"},
		{group: conn, name: "upstream-key", arg: "FILE", value: stringValue{&c.upstreamKey},
			help: "private key (PEM) of --upstream-cert"},
		{group: conn, name: "upstream-server-name", arg: "NAME", value: stringValue{&c.upstreamServerName}, def: "the host of --upstream",
			help: "name the upstream's certificate must have; implies --upstream-tls"},
		{group: conn, name: "upstream-header", arg: "KEY:VALUE", value: listValue{&c.upstreamHeaders}, repeat: true,
			help: "metadata added to every call to the upstream (REST, gRPC proxy, reflection, health), as grpcurl's -rpc-header"},
		{group: conn, name: "upstream-compression", arg: "NAME", value: choiceValue{&c.upstreamCompression, []string{"none", "gzip"}},
			help: "compress the messages sent to the upstream: none or gzip (worth it only over a slow network)"},
		{group: conn, name: "max-upstream-message-size", arg: "SIZE", value: sizeValue{&c.maxUpstreamMessage}, def: "--max-response-bytes",
			help: "largest message accepted from the upstream by REST calls, reflection and health checks (the same-port gRPC proxy takes --max-response-bytes): a longer one is refused from its length, before it is read. A REST call's reply over it gets 500 \"response too large\", as one over --max-response-bytes, which also holds a response once encoded"},

		{group: conn, name: "max-upstream-header-bytes", arg: "SIZE", value: sizeValue{&c.maxUpstreamHeader},
			help: "largest metadata of an upstream response, which REST responses carry as headers (keys, values and 32 bytes a pair, as HTTP/2 counts; a unary call's header and trailer together): 502 beyond, none of it sent; also the most header bytes the upstream connection takes (this and 16KiB more, grpc.WithMaxHeaderListSize); 0 for no limit"},

		{group: conn, name: "upstream-connections", arg: "N", value: intValue{&c.upstreamConns},
			help: "most connections to the upstream. Each call goes to the first with fewer calls in flight than --upstream-max-streams (with no limit, to the one with the fewest): the second is opened once the first is full, and so on"},
		{group: conn, name: "upstream-max-streams", arg: "N", value: intValue{&c.upstreamMaxStreams},
			help: "the upstream's limit of concurrent streams on one connection (its MaxConcurrentStreams; RFC 9113 recommends no fewer than 100): a call that finds every connection at it gets 503 with Retry-After at once (a proxied gRPC call, UNAVAILABLE) rather than waiting for a stream. With --upstream-connections it makes the defaults of --max-unary-calls, --max-server-streams, --max-client-streams, --max-bidi-streams, --max-websockets and --max-grpc-proxy-calls. 0: no limit, and no such defaults"},

		{group: tls, name: "tls-cert", arg: "FILE", value: stringValue{&c.tlsCert}, def: "none: plaintext and h2c",
			help: "serve HTTPS with this certificate chain (PEM), HTTP/2 by ALPN; re-read when the file changes, so a rotated certificate needs no restart"},
		{group: tls, name: "tls-key", arg: "FILE", value: stringValue{&c.tlsKey},
			help: "private key (PEM) of --tls-cert"},
		{group: tls, name: "tls-client-ca", arg: "FILE", value: stringValue{&c.tlsClientCA}, def: "none: no client certificates",
			help: "require client certificates signed by a CA (PEM) in FILE (mutual TLS); a client without one is refused"},

		{group: srv, name: "listen", arg: "ADDR", value: stringValue{&c.listen},
			help: "address to serve HTTP on: HTTP/1.1 and HTTP/2 (h2c, or ALPN with --tls-cert)"},
		{group: srv, name: "connect", value: boolValue{&c.connect},
			help: "serve Connect (unary, GET for methods without side effects, streams; proto and JSON) at each method's path, /pkg.Service/Method (--connect=false to turn it off)"},
		{group: srv, name: "grpc", value: boolValue{&c.grpc},
			help: "serve gRPC at each method's path (--grpc=false to turn it off, the proxy with it)"},
		{group: srv, name: "grpc-web", value: boolValue{&c.grpcWeb},
			help: "serve gRPC-Web (binary, JSON, and the text mode) at each method's path (--grpc-web=false to turn it off)"},
		{group: srv, name: "grpc-proxy", value: boolValue{&c.grpcProxy},
			help: "forward binary gRPC calls on the HTTP port to the upstream unchanged, under the limits REST calls obey: message size, idle timeouts, metadata, deadlines (--grpc-proxy=false: the gateway decodes them as it does gRPC in JSON)"},
		{group: srv, name: "memory-limit", arg: "SIZE", value: sizeValue{&c.memoryLimit}, def: "the container's (cgroup) memory limit, if any",
			help: "the memory serve may use: the Go runtime's limit is set to 90% of it (as GOMEMLIMIT would), so that it collects garbage harder before the container's limit is reached, and --max-buffered-response-bytes defaults to a quarter of that. A GOMEMLIMIT in the environment wins; 0 for none"},
		{group: srv, name: "return-memory-every", arg: "DUR", value: durationValue{&c.returnMemoryEvery},
			help: "how often serve checks whether a burst left memory behind (32MiB more than the Go runtime needs), and gives it back to the operating system (debug.FreeOSMemory); 0 never does"},
		{group: srv, name: "drain-timeout", arg: "DUR", value: durationValue{&c.drainTimeout},
			help: "how long SIGTERM waits for requests in flight"},
		{group: srv, name: "health-path", arg: "PATH", value: stringValue{&c.healthPath},
			help: `path of the health report (connectivity, upstream gRPC health, routes): 200 when all is well, else 503; "" for none`},
		{group: srv, name: "livez-path", arg: "PATH", value: stringValue{&c.livezPath},
			help: `liveness probe: 200 while the process serves, even with the upstream down; "" for none`},
		{group: srv, name: "readyz-path", arg: "PATH", value: stringValue{&c.readyzPath},
			help: `readiness probe: 200 when the routes are loaded and the upstream connection is ready, else 503 with the reason; "" for none`},

		{group: srv, name: "openapi", value: boolValue{&c.openapi},
			help: "serve the OpenAPI 3.1 document of the routes at --openapi-path, as .json and .yaml (--openapi=false to turn it off)"},
		{group: srv, name: "openapi-path", arg: "PATH", value: stringValue{&c.openapiPath},
			help: "where the OpenAPI document is: PATH.json and PATH.yaml"},
		{group: srv, name: "openapi-title", arg: "TITLE", value: stringValue{&c.openapiTitle}, def: "protorest",
			help: "info.title of the OpenAPI document"},
		{group: srv, name: "openapi-version", arg: "VERSION", value: stringValue{&c.openapiVersion}, def: "0.0.0",
			help: "info.version of the OpenAPI document"},
		{group: srv, name: "docs", value: boolValue{&c.docs},
			help: "serve a documentation page of the OpenAPI document, with Try-it (Swagger UI), at --docs-path; off with --openapi=false (--docs=false to turn it off)"},
		{group: srv, name: "docs-path", arg: "PATH", value: stringValue{&c.docsPath},
			help: "where the documentation page is: PATH/ (PATH is redirected there), and its files under it"},

		{group: js, name: "proto-names", value: boolValue{&c.protoNames},
			help: "write JSON field names as in the .proto (false: lowerCamelCase)"},
		{group: js, name: "omit-defaults", value: boolValue{&c.omitDefaults},
			help: "leave fields with default values out of responses (false: emit them)"},
		{group: js, name: "enum-numbers", value: boolValue{&c.enumNumbers},
			help: "write enums as numbers"},
		{group: js, name: "ignore-unknown-query", value: boolValue{&c.ignoreUnknown},
			help: "ignore unknown query parameters (false: 400)"},
		{group: js, name: "ignore-query", arg: "NAME", value: listValue{&c.ignoredQuery}, repeat: true,
			help: "always ignore this query parameter"},
		{group: js, name: "unescape", arg: "MODE", value: choiceValue{&c.unescape, []string{"all-except-slash", "all-except-reserved", "all"}},
			help: "decoding of multi-segment path variables: all-except-slash, all-except-reserved or all"},
		{group: js, name: "literal-plus", value: boolValue{&c.literalPlus},
			help: "keep '+' in query values as '+' (false: a space, as in HTML forms)"},
		{group: js, name: "strict-trailing-slash", value: boolValue{&c.strictSlash},
			help: "make a trailing slash significant (false: /v1/books/ is /v1/books)"},
		{group: js, name: "encoded-slash-fallback", value: boolValue{&c.slashFallback},
			help: "route a path that matches nothing as written but holds %2F once more with %2F decoded, as grpc-gateway does, for clients that escape the slashes of path parameters (false: %2F is always data)"},
		{group: js, name: "success-status", arg: "METHOD=CODE", value: listValue{&c.successStatus}, repeat: true,
			help: "HTTP status of a method's success, e.g. pkg.v1.Svc/Create=201 (a 2xx; 204 sends no body)"},
		{group: js, name: "validate", value: boolValue{&c.validate},
			help: "check each request message against the protovalidate rules (buf.validate) its descriptors carry, before the upstream is called: one that breaks a rule gets 400 with a google.rpc.BadRequest naming the fields. Methods without rules are not checked; a rule that does not compile stops the load (--validate=false to turn it off; the OpenAPI document describes the rules either way)"},
		{group: js, name: "websocket-origin", arg: "PATTERN", value: listValue{&c.websocketOrigs}, repeat: true, def: "none: the request's own host only",
			help: `let pages from these origins open WebSockets to streaming methods: a host pattern ("*.example.com") or with a scheme ("https://app.example.com")`},

		{group: web, name: "cors-origin", arg: "ORIGIN", value: listValue{&c.corsOrigins}, repeat: true, def: "none: same-origin pages only",
			help: `let pages from ORIGIN (scheme://host[:port], "*" in the host as a wildcard, or "*" for any) call the API from a browser; preflights are answered from the route table`},
		{group: web, name: "cors-credentials", value: boolValue{&c.corsCredentials},
			help: "let those pages send cookies and HTTP authentication (not with the origin *)"},
		{group: web, name: "compression", value: boolValue{&c.compression},
			help: "compress responses with zstd or gzip as Accept-Encoding asks (1KiB and more, and streams). gzip and zstd request bodies are decoded with or without it, the body limit on the decoded size"},
		{group: web, name: "trusted-proxy", arg: "CIDR", value: listValue{&c.trustedProxies}, repeat: true, def: "none",
			help: "a proxy in front of protorest whose X-Forwarded-Host is believed (else x-forwarded-host is the request's Host)"},

		{group: lim, name: "max-body-size", arg: "SIZE", value: sizeValue{&c.maxBody},
			help: "largest request body, per message for a client stream or a proxied gRPC call (decompressed): 413 (RESOURCE_EXHAUSTED) beyond; 0 for no limit"},
		{group: lim, name: "max-decoding-bytes", arg: "SIZE", value: sizeValue{&c.maxDecoding}, def: "128MiB, or a quarter of GOMEMLIMIT if that is less",
			help: "most bytes the request bodies of one-message calls hold at once, over all requests, from their first byte until the call ends: each its bytes and twelve times them for what decoding holds, a decompressor's state and 16KiB. One that finds no room waits --buffered-response-wait, then gets 503 with Retry-After; 0 for no bound"},
		{group: lim, name: "max-response-bytes", arg: "SIZE", value: sizeValue{&c.maxResponseBytes},
			help: "largest response body once encoded, per message for a stream: 500 \"response too large\" beyond (encoding stops there, nothing of the response is sent); 0 for no limit"},
		{group: lim, name: "max-buffered-response-bytes", arg: "SIZE", value: sizeValue{&c.maxBufferedResp}, def: "128MiB, or a quarter of GOMEMLIMIT if that is less",
			help: "most bytes of responses held at once while clients read them, over all requests (each response, each message of a stream or of a proxied gRPC call: its bytes and 16KiB). One that finds no room waits for it, then gets 503 with Retry-After (a proxied gRPC call, UNAVAILABLE); 0 for no bound"},
		{group: lim, name: "max-buffered-response-bytes-per-conn", arg: "SIZE", value: sizeValue{&c.bufferedPerConn},
			help: "what one client connection's responses may hold of --max-buffered-response-bytes: past it they wait for its own to be written, as many as it has room for 16KiB (32), more get 503 at once (one response may go past it alone); 0 for no share"},
		{group: lim, name: "buffered-response-wait", arg: "DUR", value: durationValue{&c.bufferedRespWait},
			help: "how long a response waits for room under --max-buffered-response-bytes before its 503 (at most 128 wait at once; more get 503 at once)"},
		{group: lim, name: "response-write-timeout", arg: "DUR", value: durationValue{&c.respWriteTimeout},
			help: "time a client has to read a response (for a stream or a proxied gRPC call, each message), errors included: the stream (HTTP/2) or connection (HTTP/1.1) is reset beyond; 0 for no limit"},
		{group: lim, name: "max-json-depth", arg: "N", value: intValue{&c.maxDepth},
			help: "deepest nesting of objects and arrays in a JSON request: 400 beyond"},
		{group: lim, name: "max-url-bytes", arg: "SIZE", value: sizeValue{&c.maxURLBytes},
			help: "longest request target (path and query): 414 beyond; 0 for no limit"},
		{group: lim, name: "max-headers", arg: "N", value: intValue{&c.maxHeaders},
			help: "most request header lines: 431 beyond; 0 for no limit"},
		{group: lim, name: "max-query-params", arg: "N", value: intValue{&c.maxQueryParams},
			help: "most query parameters: 400 beyond, before any is parsed; 0 for no limit"},
		{group: lim, name: "max-metadata-bytes", arg: "SIZE", value: sizeValue{&c.maxMetadataBytes},
			help: "largest metadata forwarded to the upstream (keys, values and 32 bytes a pair, as HTTP/2 counts): 431 (RESOURCE_EXHAUSTED) beyond, and no upstream call; 0 for no limit"},
		{group: lim, name: "default-timeout", arg: "DUR", value: durationValue{&c.defaultTimeout},
			help: "deadline of a unary call without Grpc-Timeout (streams have none, nor proxied gRPC calls of methods not in the descriptors); 0 for none"},
		{group: lim, name: "max-timeout", arg: "DUR", value: durationValue{&c.maxTimeout},
			help: "longest deadline a Grpc-Timeout may ask for: a longer one is cut to it; 0 for no limit"},
		{group: lim, name: "read-header-timeout", arg: "DUR", value: durationValue{&c.readHeaderTimeout},
			help: "time a client has to send a request's headers, from the connection or the request's first byte: the connection is closed beyond (stops slowloris)"},
		{group: lim, name: "idle-timeout", arg: "DUR", value: durationValue{&c.idleTimeout},
			help: "how long a keep-alive connection may wait for its next request (HTTP/2: with no stream open) before it is closed; 0 for no limit"},
		{group: lim, name: "read-idle-timeout", arg: "DUR", value: durationValue{&c.readIdleTimeout},
			help: "longest wait for the next bytes of a request body, or of a message of a request stream once it has begun: 408 (DEADLINE_EXCEEDED) beyond, the call canceled. A body must also average 500 bytes/s once that time has passed; 0 for no limit"},
		{group: lim, name: "stream-idle-timeout", arg: "DUR", value: durationValue{&c.streamIdleTimeout},
			help: "how long a stream (server, client or bidirectional, WebSockets and proxied gRPC calls included) may pass no message either way: then the call is canceled and the stream ends with DEADLINE_EXCEEDED (408, an in-band error, or WebSocket close 4004); 0 for no limit"},
		{group: lim, name: "max-header-bytes", arg: "SIZE", value: sizeValue{&c.maxHeaderBytes},
			help: "largest request line and headers of an HTTP/1.1 request (net/http allows 4KiB more): 431 beyond"},
		{group: lim, name: "max-connections", arg: "N", value: intValue{&c.maxConnections}, def: fmt.Sprintf("the open-file limit less %d, at most %d (here %d)", fdHeadroom, maxConnectionsCap, defaultMaxConnections()),
			help: "most client connections held open. Over it, a new connection takes the place of the oldest one that is idle (between keep-alive requests, or silent since it opened); with none idle it waits in the kernel's backlog, not accepted, while served ones go on. 0 for no limit"},
		{group: lim, name: "max-concurrent-streams", arg: "N", value: intValue{&c.maxStreams},
			help: "most HTTP/2 streams (requests, gRPC calls) open at once on one connection"},

		{group: lim, name: "max-unary-calls", arg: "N", value: derivedCount{&c.caps.unary}, def: derivedDefault(true),
			help: "most unary calls in flight at once: 503 with Retry-After beyond, the upstream not called; 0 for no limit"},
		{group: lim, name: "max-server-streams", arg: "N", value: derivedCount{&c.caps.serverStreams}, def: derivedDefault(false),
			help: "most server streams (over HTTP) at once: 503 with Retry-After beyond; 0 for no limit"},
		{group: lim, name: "max-client-streams", arg: "N", value: derivedCount{&c.caps.clientStreams}, def: derivedDefault(false),
			help: "most client streams (over HTTP) at once: 503 with Retry-After beyond, and an HTTP/1.1 connection is closed; 0 for no limit"},
		{group: lim, name: "max-bidi-streams", arg: "N", value: derivedCount{&c.caps.bidiStreams}, def: derivedDefault(false),
			help: "most bidirectional streams (over HTTP) at once: 503 with Retry-After beyond, and an HTTP/1.1 connection is closed; 0 for no limit"},
		{group: lim, name: "max-websockets", arg: "N", value: derivedCount{&c.caps.websockets}, def: derivedDefault(false),
			help: "most WebSockets at once: the handshake gets 503 with Retry-After beyond; 0 for no limit"},
		{group: lim, name: "max-grpc-proxy-calls", arg: "N", value: derivedCount{&c.caps.grpcProxy}, def: derivedDefault(false),
			help: "most calls of the same-port gRPC proxy at once, unary or streaming: UNAVAILABLE beyond, the upstream not called; 0 for no limit"},

		{group: hdr, name: "incoming-header", arg: "NAME", value: listValue{&c.incomingHeaders}, repeat: true, def: "none: Grpc-Metadata-*, and permanent headers as grpcgateway-*",
			help: "also pass request header NAME to the upstream as metadata of the same name (lower case); a trailing * matches a prefix (X-Tenant-*)"},
		{group: hdr, name: "outgoing-header", arg: "KEY", value: listValue{&c.outgoingHeaders}, repeat: true, def: "none: every key as Grpc-Metadata-KEY",
			help: "send the upstream's header metadata KEY as a response header of the same name rather than as Grpc-Metadata-KEY; a trailing * matches a prefix"},

		{group: logs, name: "log-format", arg: "FORMAT", value: choiceValue{&c.logFormat, []string{"text", "json"}},
			help: "text (logfmt) or json, on stderr"},
		{group: logs, name: "log-level", arg: "LEVEL", value: choiceValue{&c.logLevel, []string{"debug", "info", "warn", "error"}},
			help: "least severe level logged: debug, info, warn or error"},
		{group: logs, name: "access-log", value: boolValue{&c.accessLog},
			help: "log a line per request (error for a 5xx, else info; a probe's at debug) with OpenTelemetry's names: http.request.method, http.route (the template), url.path, http.response.status_code, rpc.method, rpc.response.status_code, http.server.request.duration (seconds), body sizes, client.address, user_agent.original, trace_id and span_id (when traced), error.message. Lines are written off the request path, within 100ms, and all of them at exit; if the log output falls 1MiB behind, lines are dropped rather than waited for, counted (a WARN record, protorest_access_log_dropped_total)"},
		{group: logs, name: "access-log-probes", value: boolValue{&c.accessLogProbes},
			help: "log the requests of --livez-path, --readyz-path and --health-path in the access log, at debug whatever their status (false: not at all)"},

		{group: tel, name: "metrics-listen", arg: "ADDR", value: stringValue{&c.metricsListen}, def: "none",
			help: "serve Prometheus metrics at http://ADDR/metrics: http_server_request_duration_seconds by method, route template and status, requests in flight, stream messages, the upstream's connectivity, reloads, dropped access log lines"},
		{group: tel, name: "otlp-endpoint", arg: "URL", value: stringValue{&c.otlpEndpoint}, def: "none, or $OTEL_EXPORTER_OTLP_ENDPOINT",
			help: "export traces and metrics by OTLP/gRPC to URL (http://collector:4317 in plaintext, https:// over TLS); the OTEL_* variables (OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_HEADERS, …) apply. No endpoint: no traces"},
	}
}

// newServeConfig is the config before parsing: the defaults. Those of the
// HTTP server are protorest.NewServer's, the library's recommendation.
func newServeConfig() *serveConfig {
	srv := protorest.NewServer("", nil)
	return &serveConfig{
		listen:              ":8080",
		loadTimeout:         10 * time.Second,
		grpcProxy:           true,
		connect:             true,
		grpcWeb:             true,
		grpc:                true,
		drainTimeout:        30 * time.Second,
		memoryLimit:         -1,
		returnMemoryEvery:   10 * time.Second,
		healthPath:          "/healthz",
		livezPath:           "/livez",
		readyzPath:          "/readyz",
		openapi:             true,
		openapiPath:         "/openapi",
		docs:                true,
		docsPath:            "/docs/",
		unescape:            "all-except-slash",
		slashFallback:       true,
		validate:            true,
		upstreamCompression: "none",
		maxBody:             4 << 20,
		maxDepth:            100,
		maxURLBytes:         16 << 10,
		maxHeaders:          100,
		maxQueryParams:      1000,
		maxMetadataBytes:    8 << 10,
		maxUpstreamHeader:   64 << 10,
		upstreamConns:       defaultUpstreamConnections,
		upstreamMaxStreams:  defaultUpstreamMaxStreams,
		defaultTimeout:      30 * time.Second,
		maxTimeout:          5 * time.Minute,
		readHeaderTimeout:   srv.ReadHeaderTimeout,
		idleTimeout:         srv.IdleTimeout,
		readIdleTimeout:     30 * time.Second,
		streamIdleTimeout:   5 * time.Minute,
		maxHeaderBytes:      int64(srv.MaxHeaderBytes),
		maxConnections:      defaultMaxConnections(),
		maxStreams:          srv.HTTP2.MaxConcurrentStreams,
		maxResponseBytes:    4 << 20,
		maxBufferedResp:     -1,
		maxDecoding:         -1,
		bufferedPerConn:     512 << 10,
		bufferedRespWait:    time.Second,
		respWriteTimeout:    time.Minute,
		caps:                classCaps{-1, -1, -1, -1, -1, -1},
		logFormat:           "text",
		logLevel:            "info",
		accessLog:           true,
		accessLogProbes:     true,
	}
}

// serveUsage is serve --help.
func serveUsage() string {
	return serveIntro + flagHelp(serveFlags(newServeConfig()))
}

// parseServeFlags parses serve's command line and environment into a
// config and checks it. Every mistake is a usageError.
func parseServeFlags(args []string, lookupEnv func(string) (string, bool), stdout io.Writer) (*serveConfig, error) {
	c := newServeConfig()
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	if err := parseCommandLine(fset, serveFlags(c), args, serveUsage(), lookupEnv, stdout); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, usageError{err}
	}
	return c, nil
}
