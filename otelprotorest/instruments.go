package otelprotorest

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// instruments are NewHandler's own; otelhttp records the request
// duration and body sizes.
type instruments struct {
	active                         metric.Int64UpDownCounter
	messagesReceived, messagesSent metric.Int64Counter
}

func newInstruments(m metric.Meter) *instruments {
	var in instruments
	var err error
	in.active, err = m.Int64UpDownCounter("http.server.active_requests",
		metric.WithUnit("{request}"), metric.WithDescription("Number of active HTTP server requests."))
	handle(err)
	in.messagesReceived, err = m.Int64Counter("protorest.stream.messages.received",
		metric.WithUnit("{message}"), metric.WithDescription("Request messages of streaming calls, decoded by the gateway."))
	handle(err)
	in.messagesSent, err = m.Int64Counter("protorest.stream.messages.sent",
		metric.WithUnit("{message}"), metric.WithDescription("Response messages of streaming calls, written by the gateway."))
	handle(err)
	return &in
}

// handle reports an instrument that could not be made to otel's error
// handler, as otelhttp does; the instrument returned is a no-op one.
func handle(err error) {
	if err != nil {
		otel.Handle(err)
	}
}
