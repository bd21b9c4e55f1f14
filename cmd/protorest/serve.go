package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/otelprotorest"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseServeFlags(args, os.LookupEnv, stdout)
	if err != nil {
		return withUnknownVariables(err, os.Environ())
	}
	stopProfiles, err := startProfiles(os.LookupEnv)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfiles()) }()
	logOut := newLogWriter(stderr)
	defer logOut.Close() // last: the lines of the requests drained
	log := newLogger(logOut, cfg.logFormat, cfg.logLevel)
	logOut.warnWith(log)
	logUnknownVariables(log, os.Environ())
	tlsConfig, err := cfg.listenerTLS(log)
	if err != nil {
		return err
	}
	creds, err := cfg.upstreamCredentials()
	if err != nil {
		return err
	}
	tel, err := newTelemetry(ctx, cfg, os.LookupEnv)
	if err != nil {
		return err
	}
	defer tel.close(log)
	if err := tel.observeDroppedLines(logOut); err != nil {
		return err
	}
	md, _ := upstreamMetadata(cfg.upstreamHeaders) // checked
	pool, err := dialUpstream(cfg.upstream, cfg.poolSize(), creds, cfg.upstreamCallOptions(), md, append(cfg.upstreamDialOptions(), tel.dialOptions()...)...)
	if err != nil {
		return fmt.Errorf("--upstream %q: %w", cfg.upstream, err)
	}
	defer pool.Close()

	if limit := cfg.setMemoryLimit(os.LookupEnv); limit > 0 {
		log.Info("memory limit", "go_runtime_mib", limit>>20)
	}
	gw := protorest.NewGateway(cfg.gatewayOptions()...)
	up := &upstream{pool: pool, conn: pool.Conns()[0], gw: gw, log: log, target: cfg.upstream, loadTimeout: cfg.loadTimeout, maxMessage: cfg.maxUpstreamMessageSize(),
		maxHeader: int(min(cfg.maxUpstreamHeader, math.MaxInt32))}
	if tel.on() {
		if err := up.observe(tel.opts); err != nil {
			return err
		}
	}
	for _, p := range []struct {
		path string
		h    http.HandlerFunc
	}{{cfg.healthPath, up.health}, {cfg.livezPath, livez}, {cfg.readyzPath, up.readyz}} {
		if p.path == "" {
			continue
		}
		if err := gw.HandlePath("GET", p.path, p.h); err != nil {
			return err
		}
	}
	if cfg.openapi {
		if err := mountOpenAPI(gw, cfg.openapiPath); err != nil {
			return err
		}
		if cfg.docs {
			if err := mountDocs(gw, cfg.docsPath, cfg.openapiPath+".json"); err != nil {
				return err
			}
		}
	}
	source, from, reflection := cfg.source()
	if err := up.register(ctx, source, from, reflection); err != nil {
		return err
	}

	var handler http.Handler = gw
	if cfg.grpcProxy && cfg.grpc {
		handler = gw.GRPCPassThrough(pool)
	}
	if cfg.accessLog {
		al := newAccessLogger(logOut, cfg.logFormat, cfg.logLevel)
		al.traced = tel.on()
		handler = accessLog(al, handler, cfg.probePaths(), cfg.accessLogProbes)
	}
	if tel.on() {
		handler = otelprotorest.NewHandler(handler, tel.opts...)
	}
	if tel.metrics != nil {
		addr, err := tel.serveMetrics(ctx, cfg.metricsListen, log)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "protorest: metrics on http://%s/metrics\n", addr)
	}
	lis, err := listen("listen", cfg.listen)
	if err != nil {
		return err
	}
	srv, lis := cfg.httpServer(handler, tlsConfig, lis)
	if cfg.accessLog {
		srv.ConnContext = accessConnContext(srv.ConnContext)
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	log.Info("protorest serving", "listen", lis.Addr().String(), "scheme", scheme, "upstream", cfg.upstream,
		"upstream_tls", cfg.upstreamTLSOn(), "descriptors", from, "max_connections", cfg.maxConnections,
		"upstream_connections", cfg.upstreamConns, "upstream_max_streams", cfg.upstreamMaxStreams)
	fmt.Fprintf(stdout, "protorest: serving %s as HTTP/JSON on %s (%s)\n", cfg.upstream, lis.Addr(), scheme)

	reloads, stopReloads := reloadTriggers(cfg.reloadInterval)
	defer stopReloads()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go up.keepLoaded(watchCtx, reloads)
	go cfg.returnMemory(watchCtx, log)

	errc := make(chan error, 1)
	go func() {
		// With TLS, the certificate comes from TLSConfig.GetCertificate;
		// protorest.Serve follows the HTTP/1.x requests for NewServer's
		// check of their framing.
		errc <- protorest.Serve(srv, lis)
	}()
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

// httpServer is the server of the flags, with lis limited to
// --max-connections (the listener to serve).
func (c *serveConfig) httpServer(handler http.Handler, tlsConfig *tls.Config, lis net.Listener) (*http.Server, net.Listener) {
	srv := protorest.NewServer(c.listen, handler)
	srv.ReadHeaderTimeout = c.readHeaderTimeout
	srv.IdleTimeout = c.idleTimeout
	srv.MaxHeaderBytes = int(c.maxHeaderBytes)
	srv.HTTP2.MaxConcurrentStreams = c.maxStreams
	srv.TLSConfig = tlsConfig
	if c.maxConnections > 0 {
		limited := newLimitListener(lis, c.maxConnections)
		srv.ConnState = limited.ConnState
		lis = limited
	}
	return srv, lis
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
