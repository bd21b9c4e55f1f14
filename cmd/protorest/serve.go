package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/internal/grpcproxy"
)

const serveUsage = `Usage: protorest serve --upstream ADDR [flags]

Serve the gRPC services of an upstream server as HTTP/JSON, following their
google.api.http annotations. Descriptors come from the upstream's server
reflection unless --descriptor-set or --proto says otherwise. gRPC calls
to the same port are proxied to the upstream unchanged.

If the upstream is down at start, protorest serves anyway: requests get
503 UNAVAILABLE until the upstream answers. Routes are reloaded when the
upstream reconnects (it may have restarted with new services), on SIGHUP,
and every --reload-interval. SIGTERM or SIGINT drains requests in flight,
then exits.

Examples:

  protorest serve --upstream localhost:50051
  protorest serve --upstream unix:///run/app.sock --listen :8080
  protorest serve --upstream dns:///app:50051 --descriptor-set app.binpb
  protorest serve --upstream localhost:50051 \
      --import-path proto --proto app/v1/app.proto

Upstream and descriptors:
  --upstream ADDR          gRPC address of the upstream (required): host:port,
                           dns:///name:port (round robin) or unix:///path
  --descriptor-set FILE    read descriptors from a FileDescriptorSet (buf build
                           -o FILE, or protoc --include_imports
                           --descriptor_set_out FILE)
  --proto FILE             compile this .proto file (repeatable); google/api and
                           well-known imports resolve by themselves
  --import-path DIR        where --proto files and their imports resolve
                           (repeatable; default .)
  --service NAME           serve only this service, by full name (repeatable;
                           default all)
  --load-timeout DUR       time limit for loading descriptors (default 10s)
  --reload-interval DUR    also reload the routes this often (default 0: never)

Serving:
  --listen ADDR            HTTP address, for HTTP/1.1 and unencrypted HTTP/2
                           (default :8080)
  --health-path PATH       path of the health report, "" for none
                           (default /healthz)
  --grpc-proxy             proxy gRPC calls on the HTTP port to the upstream
                           (default true; --grpc-proxy=false to turn it off)
  --drain-timeout DUR      how long SIGTERM waits for requests in flight
                           (default 30s)
  --auto-map               also route methods that have no google.api.http
                           rule: POST /package.Service/Method, body "*"

JSON and requests:
  --proto-names            write JSON field names as in the .proto
                           (default lowerCamelCase)
  --omit-defaults          leave fields with default values out of responses
                           (default: emit them)
  --enum-numbers           write enums as numbers
  --ignore-unknown-query   ignore unknown query parameters (default: 400)
  --ignore-query NAME      always ignore this query parameter (repeatable)
  --unescape MODE          decoding of multi-segment path variables:
                           all-except-slash (default), all-except-reserved
                           or all
`

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// serveConfig is the parsed command line of serve.
type serveConfig struct {
	upstream       string
	listen         string
	descriptorSet  string
	protos         stringList
	importPaths    stringList
	services       stringList
	loadTimeout    time.Duration
	reloadInterval time.Duration
	healthPath     string
	grpcProxy      bool
	drainTimeout   time.Duration
	gatewayOptions []protorest.Option
}

func parseServeFlags(args []string, stdout io.Writer) (*serveConfig, error) {
	return parseServeFlagsInto(flag.NewFlagSet("serve", flag.ContinueOnError), args, stdout)
}

// parseServeFlagsInto defines serve's flags in fset and parses args.
func parseServeFlagsInto(fset *flag.FlagSet, args []string, stdout io.Writer) (*serveConfig, error) {
	c := &serveConfig{}
	fset.StringVar(&c.upstream, "upstream", "", "")
	fset.StringVar(&c.listen, "listen", ":8080", "")
	fset.StringVar(&c.descriptorSet, "descriptor-set", "", "")
	fset.Var(&c.protos, "proto", "")
	fset.Var(&c.importPaths, "import-path", "")
	fset.Var(&c.services, "service", "")
	fset.DurationVar(&c.loadTimeout, "load-timeout", 10*time.Second, "")
	fset.DurationVar(&c.reloadInterval, "reload-interval", 0, "")
	fset.StringVar(&c.healthPath, "health-path", "/healthz", "")
	fset.BoolVar(&c.grpcProxy, "grpc-proxy", true, "")
	fset.DurationVar(&c.drainTimeout, "drain-timeout", 30*time.Second, "")
	protoNames := fset.Bool("proto-names", false, "")
	omitDefaults := fset.Bool("omit-defaults", false, "")
	enumNumbers := fset.Bool("enum-numbers", false, "")
	ignoreUnknown := fset.Bool("ignore-unknown-query", false, "")
	var ignored stringList
	fset.Var(&ignored, "ignore-query", "")
	unescape := fset.String("unescape", "all-except-slash", "")
	autoMap := fset.Bool("auto-map", false, "")
	if err := parseFlags(fset, args, serveUsage, stdout); err != nil {
		return nil, err
	}
	switch {
	case c.upstream == "":
		return nil, errors.New("--upstream is required")
	case c.descriptorSet != "" && len(c.protos) > 0:
		return nil, errors.New("--descriptor-set and --proto are alternatives: give one")
	case len(c.importPaths) > 0 && len(c.protos) == 0:
		return nil, errors.New("--import-path needs --proto")
	case c.healthPath != "" && !strings.HasPrefix(c.healthPath, "/"):
		return nil, fmt.Errorf("--health-path %q: must start with /", c.healthPath)
	case c.loadTimeout <= 0:
		return nil, errors.New("--load-timeout must be positive")
	case c.reloadInterval < 0:
		return nil, errors.New("--reload-interval must not be negative")
	}

	c.gatewayOptions = []protorest.Option{
		protorest.WithMarshalOptions(protojson.MarshalOptions{UseProtoNames: *protoNames, EmitUnpopulated: !*omitDefaults, UseEnumNumbers: *enumNumbers}),
		protorest.WithIgnoredQueryParameters(ignored...),
	}
	if *autoMap {
		c.gatewayOptions = append(c.gatewayOptions, protorest.WithAutoMapping())
	}
	if *ignoreUnknown {
		c.gatewayOptions = append(c.gatewayOptions, protorest.WithDiscardUnknownQueryParameters())
	}
	switch *unescape {
	case "all-except-slash":
	case "all-except-reserved":
		c.gatewayOptions = append(c.gatewayOptions, protorest.WithPathUnescaping(protorest.UnescapeAllExceptReserved))
	case "all":
		c.gatewayOptions = append(c.gatewayOptions, protorest.WithPathUnescaping(protorest.UnescapeAll))
	default:
		return nil, fmt.Errorf("--unescape %q: want all-except-slash, all-except-reserved or all", *unescape)
	}
	return c, nil
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

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseServeFlags(args, stdout)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	conn, err := dialUpstream(cfg.upstream)
	if err != nil {
		return fmt.Errorf("--upstream %q: %w", cfg.upstream, err)
	}
	defer conn.Close()

	gw := protorest.NewGateway(cfg.gatewayOptions...)
	up := &upstream{conn: conn, gw: gw, log: log, target: cfg.upstream, loadTimeout: cfg.loadTimeout}
	if cfg.healthPath != "" {
		if err := gw.HandlePath("GET", cfg.healthPath, up.health); err != nil {
			return err
		}
	}
	source, from, reflection := cfg.source()
	if err := up.register(ctx, source, from, reflection); err != nil {
		return err
	}

	var handler http.Handler = gw
	if cfg.grpcProxy {
		handler = sharePort(gw, grpcproxy.New(conn))
	}
	lis, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	log.Info("protorest serving", "listen", lis.Addr().String(), "upstream", cfg.upstream, "descriptors", from)
	fmt.Fprintf(stdout, "protorest: serving %s as HTTP/JSON on %s\n", cfg.upstream, lis.Addr())

	reloads, stopReloads := reloadTriggers(cfg.reloadInterval)
	defer stopReloads()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go up.keepLoaded(watchCtx, reloads)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		log.Info("protorest draining", "timeout", cfg.drainTimeout)
		shutdown, cancel := context.WithTimeout(context.Background(), cfg.drainTimeout)
		defer cancel()
		err = srv.Shutdown(shutdown)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// sharePort sends gRPC calls to grpc and everything else to rest.
func sharePort(rest, grpc http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if grpcproxy.IsGRPC(r) {
			grpc.ServeHTTP(w, r)
			return
		}
		rest.ServeHTTP(w, r)
	})
}

// reloadTriggers returns a channel that receives on SIGHUP and every
// interval (when positive), and a function that stops both.
func reloadTriggers(interval time.Duration) (<-chan string, func()) {
	out := make(chan string, 1)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	var tick <-chan time.Time
	var ticker *time.Ticker
	if interval > 0 {
		ticker = time.NewTicker(interval)
		tick = ticker.C
	}
	done := make(chan struct{})
	go func() {
		for {
			var why string
			select {
			case <-done:
				return
			case <-hup:
				why = "SIGHUP"
			case <-tick:
				why = "interval"
			}
			select {
			case out <- why:
			default: // a reload is already due
			}
		}
	}()
	return out, func() {
		signal.Stop(hup)
		if ticker != nil {
			ticker.Stop()
		}
		close(done)
	}
}
