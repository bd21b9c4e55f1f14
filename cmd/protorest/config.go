package main

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/validateprotorest"
)

// check reports the first contradiction or malformed value of the config.
func (c *serveConfig) check() error {
	if c.upstream == "" {
		return errors.New("--upstream is required")
	}
	if err := c.checkRoutes(); err != nil {
		return err
	}
	switch {
	case c.loadTimeout <= 0:
		return errors.New("--load-timeout must be positive")
	case c.reloadInterval < 0:
		return errors.New("--reload-interval must not be negative")
	case c.drainTimeout < 0:
		return errors.New("--drain-timeout must not be negative")
	case c.maxDepth <= 0:
		return errors.New("--max-json-depth must be positive")
	case c.maxHeaders < 0 || c.maxQueryParams < 0 || c.defaultTimeout < 0 || c.maxTimeout < 0:
		return errors.New("--max-headers, --max-query-params, --default-timeout and --max-timeout must not be negative")
	case c.readHeaderTimeout <= 0:
		return errors.New("--read-header-timeout must be positive")
	case c.idleTimeout < 0 || c.readIdleTimeout < 0 || c.streamIdleTimeout < 0:
		return errors.New("--idle-timeout, --read-idle-timeout and --stream-idle-timeout must not be negative")
	case c.maxHeaderBytes <= 0 || c.maxHeaderBytes > math.MaxInt32:
		return errors.New("--max-header-bytes must be positive, under 2GiB")
	case c.maxConnections < 0:
		return errors.New("--max-connections must not be negative")
	case c.maxResponseBytes < 0 || c.maxResponseBytes > math.MaxInt32:
		return errors.New("--max-response-bytes must not be negative, and under 2GiB")
	case c.bufferedRespWait < 0 || c.respWriteTimeout < 0:
		return errors.New("--buffered-response-wait and --response-write-timeout must not be negative")
	case c.returnMemoryEvery < 0:
		return errors.New("--return-memory-every must not be negative")
	case c.maxStreams <= 0 || c.maxStreams > math.MaxUint32:
		return errors.New("--max-concurrent-streams must be positive")
	case c.upstreamConns <= 0 || c.upstreamConns > 1024:
		return errors.New("--upstream-connections must be 1 to 1024")
	case c.upstreamMaxStreams < 0 || c.upstreamMaxStreams > math.MaxInt32:
		return errors.New("--upstream-max-streams must be 0 to 2147483647")
	case (c.tlsCert == "") != (c.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together: give both")
	case c.tlsClientCA != "" && c.tlsCert == "":
		return errors.New("--tls-client-ca needs --tls-cert and --tls-key")
	case (c.upstreamCert == "") != (c.upstreamKey == ""):
		return errors.New("--upstream-cert and --upstream-key go together: give both")
	}
	paths := map[string]string{}
	probes := []struct{ flag, path string }{{"health-path", c.healthPath}, {"livez-path", c.livezPath}, {"readyz-path", c.readyzPath}}
	if c.openapi {
		if c.openapiPath == "" {
			return errors.New(`--openapi-path is empty: give a path, or --openapi=false`)
		}
		probes = append(probes, struct{ flag, path string }{"openapi-path", c.openapiPath + ".json"}, struct{ flag, path string }{"openapi-path", c.openapiPath + ".yaml"})
		if c.docs {
			if c.docsPath == "" {
				return errors.New(`--docs-path is empty: give a path, or --docs=false`)
			}
			if !strings.HasPrefix(c.docsPath, "/") {
				return fmt.Errorf("--docs-path %q: must start with /", c.docsPath)
			}
		}
	}
	for _, p := range probes {
		if p.path == "" {
			continue
		}
		if !strings.HasPrefix(p.path, "/") {
			return fmt.Errorf("--%s %q: must start with /", p.flag, p.path)
		}
		if other, ok := paths[p.path]; ok {
			return fmt.Errorf("--%s and --%s are both %q", other, p.flag, p.path)
		}
		paths[p.path] = p.flag
	}
	if _, err := upstreamMetadata(c.upstreamHeaders); err != nil {
		return err
	}
	for _, h := range []struct {
		flag  string
		names []string
	}{{"incoming-header", c.incomingHeaders}, {"outgoing-header", c.outgoingHeaders}} {
		for _, n := range h.names {
			if err := checkHeaderName(n); err != nil {
				return fmt.Errorf("--%s %q: %v", h.flag, n, err)
			}
		}
	}
	if _, err := c.edgeOptions(); err != nil {
		return err
	}
	return checkNotSelf(c.listen, c.upstream)
}

// checkRoutes checks the flags that decide the routes, which serve and
// openapi share: where the descriptors come from, and --success-status.
func (c *serveConfig) checkRoutes() error {
	switch {
	case c.descriptorSet != "" && len(c.protos) > 0:
		return errors.New("--descriptor-set and --proto are alternatives: give one")
	case len(c.importPaths) > 0 && len(c.protos) == 0:
		return errors.New("--import-path needs --proto")
	}
	for _, s := range c.successStatus {
		if _, _, err := parseSuccessStatus(s); err != nil {
			return fmt.Errorf("--success-status %q: %v", s, err)
		}
	}
	return nil
}

// edgeOptions are the library options of the browser, compression and
// proxy flags.
func (c *serveConfig) edgeOptions() ([]protorest.Option, error) {
	var opts []protorest.Option
	if len(c.corsOrigins) > 0 {
		o, err := corsOption(c.corsOrigins, c.corsCredentials)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	} else if c.corsCredentials {
		return nil, errors.New("--cors-credentials needs --cors-origin")
	}
	if len(c.trustedProxies) > 0 {
		o, err := trustedProxiesOption(c.trustedProxies)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if c.compression {
		opts = append(opts, protorest.WithCompression(protorest.Compression{}))
	}
	return opts, nil
}

// parseSuccessStatus splits "pkg.Svc/Method=201".
func parseSuccessStatus(s string) (method string, code int, err error) {
	method, num, ok := strings.Cut(s, "=")
	if !ok || !strings.Contains(strings.TrimPrefix(method, "/"), "/") {
		return "", 0, errors.New("want pkg.Service/Method=CODE")
	}
	code, err = strconv.Atoi(num)
	if err != nil || code < 200 || code > 299 {
		return "", 0, errors.New("the code must be a success status, 200 to 299")
	}
	return method, code, nil
}

// upstreamMetadata turns --upstream-header's "key:value" items into
// metadata pairs, keys in lower case.
func upstreamMetadata(items []string) ([]string, error) {
	var kv []string
	for _, item := range items {
		k, v, ok := strings.Cut(item, ":")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			return nil, fmt.Errorf("--upstream-header %q: want KEY:VALUE", item)
		}
		if err := checkMetadataKey(k); err != nil {
			return nil, fmt.Errorf("--upstream-header %q: %v", item, err)
		}
		kv = append(kv, k, strings.TrimSpace(v))
	}
	return kv, nil
}

// checkMetadataKey accepts the keys gRPC allows a caller to send.
func checkMetadataKey(k string) error {
	if strings.HasPrefix(k, "grpc-") {
		return errors.New("grpc- keys are reserved by gRPC")
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("%q is not allowed in a metadata key (a-z, 0-9, -, _ and .)", r)
		}
	}
	return nil
}

// checkHeaderName accepts a header name, or a prefix of one followed by *.
func checkHeaderName(n string) error {
	name := strings.TrimSuffix(n, "*")
	if name == "" {
		return errors.New("empty name")
	}
	return checkMetadataKey(strings.ToLower(name))
}

// headerListMatches reports whether key is in names (case-insensitive; a
// name ending in * matches a prefix).
func headerListMatches(names []string, key string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if len(key) >= len(p) && strings.EqualFold(key[:len(p)], p) {
				return true
			}
		} else if strings.EqualFold(n, key) {
			return true
		}
	}
	return false
}

// maxUpstreamMessageSize is the receive limit of the upstream connection:
// the flag, or else what a response may be (--max-response-bytes; with no
// limit, as large as gRPC allows).
func (c *serveConfig) maxUpstreamMessageSize() int {
	switch {
	case c.maxUpstreamMessage > 0:
		return int(min(c.maxUpstreamMessage, math.MaxInt32))
	case c.maxResponseBytes <= 0:
		return math.MaxInt32
	}
	return int(min(c.maxResponseBytes, math.MaxInt32))
}

// upstreamCallOptions are the options of every call to the upstream: the
// receive limit, and the compressor asked for.
func (c *serveConfig) upstreamCallOptions() []grpc.CallOption {
	opts := []grpc.CallOption{grpc.MaxCallRecvMsgSize(c.maxUpstreamMessageSize())}
	if c.upstreamCompression == "gzip" {
		opts = append(opts, grpc.UseCompressor(gzip.Name))
	}
	return opts
}

// upstreamHeaderSlack is what the upstream connection takes of a response
// header beyond --max-upstream-header-bytes: the gRPC fields (status,
// message, content type) that are not metadata; over it grpc-go refuses
// the header list before the gateway sees it.
const upstreamHeaderSlack = 16 << 10

// upstreamDialOptions are the options of the upstream connection: the
// gateway's receive windows (protorest.BackendDialOptions), and the most
// header bytes it takes, as the flags ask.
func (c *serveConfig) upstreamDialOptions() []grpc.DialOption {
	opts := protorest.BackendDialOptions()
	if c.maxUpstreamHeader <= 0 {
		return opts
	}
	return append(opts, grpc.WithMaxHeaderListSize(uint32(min(c.maxUpstreamHeader+upstreamHeaderSlack, math.MaxUint32))))
}

// gatewayOptions are the library options the flags ask for.
func (c *serveConfig) gatewayOptions() []protorest.Option {
	opts := []protorest.Option{
		protorest.WithMarshalOptions(protojson.MarshalOptions{UseProtoNames: c.protoNames, EmitUnpopulated: !c.omitDefaults, UseEnumNumbers: c.enumNumbers}),
		protorest.WithIgnoredQueryParameters(c.ignoredQuery...),
		protorest.WithMaxRequestBodySize(c.maxBody),
		protorest.WithMaxJSONDepth(c.maxDepth),
		protorest.WithMaxURLBytes(int(min(c.maxURLBytes, math.MaxInt32))),
		protorest.WithMaxHeaders(c.maxHeaders),
		protorest.WithMaxQueryParameters(c.maxQueryParams),
		protorest.WithMaxMetadataBytes(int(min(c.maxMetadataBytes, math.MaxInt32))),
		protorest.WithDefaultTimeout(c.defaultTimeout),
		protorest.WithMaxTimeout(c.maxTimeout),
		protorest.WithReadIdleTimeout(c.readIdleTimeout),
		protorest.WithStreamIdleTimeout(c.streamIdleTimeout),
		protorest.WithOpenAPIInfo(protorest.OpenAPIInfo{Title: c.openapiTitle, Version: c.openapiVersion}),
		protorest.WithMaxResponseBytes(int(c.maxResponseBytes)),
		protorest.WithBufferedResponseWait(c.bufferedRespWait),
		protorest.WithMaxBufferedResponseBytesPerConn(c.bufferedPerConn),
		protorest.WithResponseWriteTimeout(c.respWriteTimeout),
		protorest.WithConcurrencyLimits(c.classCaps().concurrencyLimits()),
	}
	if c.maxBufferedResp >= 0 {
		opts = append(opts, protorest.WithMaxBufferedResponseBytes(c.maxBufferedResp))
	}
	if c.maxDecoding >= 0 {
		opts = append(opts, protorest.WithMaxDecodingBytes(c.maxDecoding))
	}
	if c.autoMap {
		opts = append(opts, protorest.WithAutoMapping())
	}
	if c.validate {
		opts = append(opts, protorest.WithValidation(validateprotorest.New()))
	} else {
		// Not checked, still the upstream's contract: documented.
		opts = append(opts, protorest.WithOpenAPISchemaHook(validateprotorest.New()))
	}
	if c.ignoreUnknown {
		opts = append(opts, protorest.WithDiscardUnknownQueryParameters())
	}
	switch c.unescape {
	case "all-except-reserved":
		opts = append(opts, protorest.WithPathUnescaping(protorest.UnescapeAllExceptReserved))
	case "all":
		opts = append(opts, protorest.WithPathUnescaping(protorest.UnescapeAll))
	}
	if c.literalPlus {
		opts = append(opts, protorest.WithLiteralPlusInQuery())
	}
	if c.strictSlash {
		opts = append(opts, protorest.WithStrictTrailingSlash())
	}
	if !c.slashFallback {
		opts = append(opts, protorest.WithoutEncodedSlashFallback())
	}
	for _, s := range c.successStatus {
		method, code, _ := parseSuccessStatus(s) // checked
		opts = append(opts, protorest.WithSuccessStatus(method, code))
	}
	edge, _ := c.edgeOptions() // checked
	opts = append(opts, edge...)
	if len(c.websocketOrigs) > 0 {
		opts = append(opts, protorest.WithWebSocketOrigins(c.websocketOrigs...))
	}
	if names := c.incomingHeaders; len(names) > 0 {
		opts = append(opts, protorest.WithIncomingHeaderMatcher(func(key string) (string, bool) {
			if headerListMatches(names, key) {
				return strings.ToLower(key), true
			}
			return protorest.DefaultHeaderMatcher(key)
		}))
	}
	if names := c.outgoingHeaders; len(names) > 0 {
		opts = append(opts, protorest.WithOutgoingHeaderMatcher(func(key string) (string, bool) {
			if headerListMatches(names, key) {
				return http.CanonicalHeaderKey(key), true
			}
			return protorest.MetadataHeaderPrefix + key, true
		}))
	}
	if off := c.protocolsOff(); len(off) > 0 {
		opts = append(opts, protorest.WithoutProtocols(off...))
	}
	return opts
}

// protocolsOff are the RPC protocols the flags turn off.
func (c *serveConfig) protocolsOff() []protorest.Protocol {
	var off []protorest.Protocol
	if !c.connect {
		off = append(off, protorest.ProtocolConnect)
	}
	if !c.grpcWeb {
		off = append(off, protorest.ProtocolGRPCWeb)
	}
	if !c.grpc {
		off = append(off, protorest.ProtocolGRPC)
	}
	return off
}

// source is where the descriptors come from, per the flags, and whether
// that is the upstream's server reflection.
func (c *serveConfig) source() (opt protorest.RemoteOption, from string, reflection bool) {
	switch {
	case c.descriptorSet != "":
		return protorest.WithDescriptorSetFile(c.descriptorSet, c.services...), "descriptor set " + c.descriptorSet, false
	case len(c.protos) > 0:
		return protorest.WithProtoFiles(c.importPaths, c.protos, c.services...), "proto files", false
	}
	return protorest.WithReflection(c.services...), "server reflection", true
}
