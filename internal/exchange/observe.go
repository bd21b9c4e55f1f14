package exchange

import (
	"context"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// A Recorder is told what becomes of a request whose context holds it
// (protorest.CallInfo): its route, the messages it passed, its outcome.
type Recorder interface {
	// Routed is told the route the request matched.
	Routed(rt *Route)
	// Sent is told of each response message written.
	Sent()
	// Received is told how many request messages were decoded.
	Received(n int)
	// Ended is told the outcome: nil for OK, or the error answered.
	Ended(err error)
}

type recorderKey struct{}

// NewRecorderContext returns ctx holding rec.
func NewRecorderContext(ctx context.Context, rec Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, rec)
}

// RecorderFrom returns the Recorder ctx holds, if any.
func RecorderFrom(ctx context.Context) (Recorder, bool) {
	rec, ok := ctx.Value(recorderKey{}).(Recorder)
	return rec, ok
}

// recordedSink tells the exchange's Recorder what passes to its sink. It
// lives in the exchange: observing a call costs no allocation.
type recordedSink struct {
	Sink
	x *Exchange
}

func (s *recordedSink) Send(msg proto.Message, header metadata.MD) error {
	err := s.Sink.Send(msg, header)
	if err == nil {
		s.x.Recorder.Sent()
	}
	return err
}

func (s *recordedSink) Finish(err error, header, trailer metadata.MD) {
	s.x.Recorder.Ended(err)
	s.x.Recorder.Received(s.x.Received)
	s.Sink.Finish(err, header, trailer)
}
