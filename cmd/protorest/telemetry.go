package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	otelmetric "go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"google.golang.org/grpc"

	"github.com/protorest/protorest/otelprotorest"
)

// telemetry is serve's OpenTelemetry: traces when an OTLP endpoint is
// configured (--otlp-endpoint, or OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), metrics when one is or
// --metrics-listen is (Prometheus). With neither, serve has none: no
// handler, stats handler or instrument is added.
type telemetry struct {
	opts     []otelprotorest.Option   // the providers, for otelprotorest
	meters   otelmetric.MeterProvider // serve's own instruments; nil without metrics
	metrics  http.Handler             // Prometheus exposition; nil without --metrics-listen
	shutdown []func(context.Context) error
}

// otlpConfigured reports whether OTLP export of a signal ("TRACES",
// "METRICS") is asked for by the flag or the environment.
func otlpConfigured(flag, signal string, lookupEnv func(string) (string, bool)) bool {
	if flag != "" {
		return true
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT"} {
		if v, ok := lookupEnv(k); ok && v != "" {
			return true
		}
	}
	return false
}

// newTelemetry sets up the providers the flags and OTEL_* variables ask
// for: the SDK reads OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// OTEL_TRACES_SAMPLER(_ARG), OTEL_EXPORTER_OTLP_* (headers, timeout,
// certificates, …) and OTEL_METRIC_EXPORT_INTERVAL itself.
func newTelemetry(ctx context.Context, c *serveConfig, lookupEnv func(string) (string, bool)) (*telemetry, error) {
	t := &telemetry{}
	if v, _ := lookupEnv("OTEL_SDK_DISABLED"); strings.EqualFold(v, "true") {
		return t, nil
	}
	traces := otlpConfigured(c.otlpEndpoint, "TRACES", lookupEnv)
	otlpMetrics := otlpConfigured(c.otlpEndpoint, "METRICS", lookupEnv)
	if !traces && !otlpMetrics && c.metricsListen == "" {
		return t, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("protorest"), semconv.ServiceVersion(moduleVersion())),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource: %w", err)
	}
	if traces {
		var opts []otlptracegrpc.Option
		if c.otlpEndpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(c.otlpEndpoint))
		}
		exp, err := otlptracegrpc.New(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("--otlp-endpoint: %w", err)
		}
		tp := trace.NewTracerProvider(trace.WithBatcher(exp), trace.WithResource(res))
		t.opts = append(t.opts, otelprotorest.WithTracerProvider(tp))
		t.shutdown = append(t.shutdown, tp.Shutdown)
	}
	var readers []metric.Option
	if otlpMetrics {
		var opts []otlpmetricgrpc.Option
		if c.otlpEndpoint != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(c.otlpEndpoint))
		}
		exp, err := otlpmetricgrpc.New(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("--otlp-endpoint: %w", err)
		}
		readers = append(readers, metric.WithReader(metric.NewPeriodicReader(exp)))
	}
	if c.metricsListen != "" {
		reg := prometheus.NewRegistry()
		exp, err := otelprom.New(otelprom.WithRegisterer(reg),
			// Pinned: the exporter's default is due to change.
			otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes))
		if err != nil {
			return nil, fmt.Errorf("Prometheus exporter: %w", err)
		}
		readers = append(readers, metric.WithReader(exp))
		t.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	if len(readers) > 0 {
		mp := metric.NewMeterProvider(append(readers, metric.WithResource(res))...)
		t.opts = append(t.opts, otelprotorest.WithMeterProvider(mp))
		t.meters = mp
		t.shutdown = append(t.shutdown, mp.Shutdown)
	}
	return t, nil
}

// observeDroppedLines reports the access log lines dropped so far,
// protorest.access_log.dropped (Prometheus:
// protorest_access_log_dropped_total), when there are metrics.
func (t *telemetry) observeDroppedLines(w *logWriter) error {
	if t.meters == nil {
		return nil
	}
	_, err := t.meters.Meter("github.com/protorest/protorest/cmd/protorest").Int64ObservableCounter("protorest.access_log.dropped",
		otelmetric.WithUnit("{line}"),
		otelmetric.WithDescription("Access log lines dropped because the log output was slower than the requests."),
		otelmetric.WithInt64Callback(func(_ context.Context, o otelmetric.Int64Observer) error {
			o.Observe(w.Dropped())
			return nil
		}))
	return err
}

// on reports whether there are traces or metrics to take.
func (t *telemetry) on() bool { return len(t.opts) > 0 }

// dialOptions are the upstream connection's: otelgrpc's client stats
// handler, which puts the request span's context in the calls' metadata.
func (t *telemetry) dialOptions() []grpc.DialOption {
	if !t.on() {
		return nil
	}
	return []grpc.DialOption{otelprotorest.DialOption(t.opts...)}
}

// serveMetrics serves /metrics on addr until ctx ends.
func (t *telemetry) serveMetrics(ctx context.Context, addr string, log *slog.Logger) (net.Addr, error) {
	lis, err := listen("metrics-listen", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", t.metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server", "error", err)
		}
	}()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	return lis.Addr(), nil
}

// close flushes what is buffered to the exporters and stops them.
func (t *telemetry) close(log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, f := range t.shutdown {
		if err := f(ctx); err != nil {
			log.Warn("telemetry shutdown", "error", err)
		}
	}
}
