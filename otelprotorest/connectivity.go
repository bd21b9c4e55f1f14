package otelprotorest

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
)

// connectivityStates are the states ObserveConnectivity reports, each a
// series of its own.
var connectivityStates = [...]connectivity.State{
	connectivity.Idle, connectivity.Connecting, connectivity.Ready,
	connectivity.TransientFailure, connectivity.Shutdown,
}

// ObserveConnectivity reports the connectivity state of conn, a remote
// backend's connection, as the gauge protorest.upstream.connectivity:
// one series per state (attribute protorest.upstream.state: IDLE,
// CONNECTING, READY, TRANSIENT_FAILURE, SHUTDOWN), 1 for the state conn
// is in when collected and 0 for the others, with
// protorest.upstream.target: conn's target. Unregister the returned
// registration when conn is closed.
func ObserveConnectivity(conn *grpc.ClientConn, opts ...Option) (metric.Registration, error) {
	m := newConfig(opts).meter()
	gauge, err := m.Int64ObservableGauge("protorest.upstream.connectivity",
		metric.WithDescription("1 for the connectivity state the upstream connection is in, 0 for the others."))
	if err != nil {
		return nil, err
	}
	target := attribute.String("protorest.upstream.target", conn.Target())
	var series [len(connectivityStates)]metric.MeasurementOption
	for i, s := range connectivityStates {
		series[i] = metric.WithAttributeSet(attribute.NewSet(target, attribute.String("protorest.upstream.state", s.String())))
	}
	return m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		now := conn.GetState()
		for i, s := range connectivityStates {
			var v int64
			if s == now {
				v = 1
			}
			o.ObserveInt64(gauge, v, series[i])
		}
		return nil
	}, gauge)
}
