package otelprotorest

import (
	"context"

	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"google.golang.org/grpc/status"
)

// A ReloadCounter counts a gateway's route reloads (Gateway.Reload, which
// only its owner calls: protorest serve on reconnect, SIGHUP and
// --reload-interval) as protorest.reloads, with error.type, the gRPC code
// of the error (UNAVAILABLE, …), on those that failed.
type ReloadCounter struct {
	reloads metric.Int64Counter
}

// NewReloadCounter makes the counter's instrument.
func NewReloadCounter(opts ...Option) (*ReloadCounter, error) {
	c, err := newConfig(opts).meter().Int64Counter("protorest.reloads",
		metric.WithUnit("{reload}"),
		metric.WithDescription("Route reloads of the gateway; error.type is set on those that failed."))
	if err != nil {
		return nil, err
	}
	return &ReloadCounter{reloads: c}, nil
}

// Add counts a reload whose outcome is err (nil: it succeeded).
func (c *ReloadCounter) Add(ctx context.Context, err error) {
	if err == nil {
		c.reloads.Add(ctx, 1)
		return
	}
	c.reloads.Add(ctx, 1, metric.WithAttributes(semconv.ErrorTypeKey.String(StatusCodeName(status.Code(err)))))
}
