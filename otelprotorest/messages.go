package otelprotorest

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/stats"
)

// messageEvents adds an "rpc.message" event to a call's span for every
// message, sent or received, with its type, sequence number and size (the
// event of OpenTelemetry's RPC conventions, which otelgrpc v0.72 no longer
// records): a stream's span shows each of its messages. It wraps otelgrpc's
// stats handler, whose TagRPC starts the span.
type messageEvents struct {
	stats.Handler
}

// messageCount numbers a call's messages, each way.
type messageCount struct {
	sent, received atomic.Int64
}

type messageCountKey struct{}

var (
	messageSent     = attribute.String("rpc.message.type", "SENT")
	messageReceived = attribute.String("rpc.message.type", "RECEIVED")
)

func (m messageEvents) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	ctx = m.Handler.TagRPC(ctx, info)
	return context.WithValue(ctx, messageCountKey{}, new(messageCount))
}

func (m messageEvents) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if n, ok := ctx.Value(messageCountKey{}).(*messageCount); ok {
		switch p := s.(type) {
		case *stats.InPayload:
			messageEvent(ctx, messageReceived, n.received.Add(1), p.Length)
		case *stats.OutPayload:
			messageEvent(ctx, messageSent, n.sent.Add(1), p.Length)
		}
	}
	m.Handler.HandleRPC(ctx, s)
}

func messageEvent(ctx context.Context, kind attribute.KeyValue, id int64, size int) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.AddEvent("rpc.message", trace.WithAttributes(kind,
		attribute.Int64("rpc.message.id", id),
		attribute.Int("rpc.message.uncompressed_size", size)))
}
