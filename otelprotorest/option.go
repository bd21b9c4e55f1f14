package otelprotorest

import (
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// An Option configures NewHandler, GatewayOption, DialOption,
// ObserveConnectivity and NewReloadCounter.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTracerProvider sets where spans go; by default otel's global
// provider (otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tracerProvider = tp })
}

// WithMeterProvider sets where measurements go; by default otel's global
// provider (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meterProvider = mp })
}

// WithPropagators sets how trace context is read from requests and
// written into calls. The default is W3C trace context and baggage
// (traceparent, tracestate, baggage), not otel's global propagator,
// which ignores them until set.
func WithPropagators(p propagation.TextMapPropagator) Option {
	return optionFunc(func(c *config) { c.propagators = p })
}

// WithServerName sets server.address on spans and metrics; by default the
// host name (os.Hostname). It is never the request's Host header, which
// a client chooses: a label of unbounded cardinality.
func WithServerName(name string) Option {
	return optionFunc(func(c *config) { c.serverName = name })
}

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagators    propagation.TextMapPropagator
	serverName     string
}

func newConfig(opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		o.apply(c)
	}
	if c.tracerProvider == nil {
		c.tracerProvider = otel.GetTracerProvider()
	}
	if c.meterProvider == nil {
		c.meterProvider = otel.GetMeterProvider()
	}
	if c.propagators == nil {
		c.propagators = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	if c.serverName == "" {
		if h, err := os.Hostname(); err == nil && h != "" {
			c.serverName = h
		} else {
			c.serverName = "localhost"
		}
	}
	return c
}

// scope is the instrumentation scope of this package's spans and
// instruments.
const scope = "github.com/protorest/protorest/otelprotorest"

func (c *config) meter() metric.Meter { return c.meterProvider.Meter(scope) }
