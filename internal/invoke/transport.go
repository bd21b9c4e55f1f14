// Package invoke calls gRPC method handlers in-process, the way
// grpc.Server would: with the server transport stream in the context (so
// grpc.SetHeader, grpc.SendHeader, grpc.SetTrailer and grpc.Method work),
// and through the chained interceptors.
//
// With internal/grpcproxy (grpc.Server.ServeHTTP), it is the only package
// of protorest that touches grpc-go's experimental APIs
// (grpc.NewContextWithServerTransportStream, and grpc.ForceCodecV2 for
// the backend connections' WireCodec); a hygiene test keeps it that
// way.
package invoke

import (
	"context"
	"errors"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// errHeaderSent is what grpc.Server returns for SetHeader after the header
// has been sent.
var errHeaderSent = errors.New("transport: the stream is done or WriteHeader was already called")

// errStreamDone is what SetTrailer returns after the call has ended.
var errStreamDone = errors.New("transport: the stream is done")

// Stream is the grpc.ServerTransportStream of one HTTP request. It
// collects header and trailer metadata for the response.
type Stream struct {
	method string

	mu         sync.Mutex
	header     metadata.MD
	trailer    metadata.MD
	headerSent bool
	done       bool
}

var _ grpc.ServerTransportStream = (*Stream)(nil)

// NewStream returns a stream for the full method name "/pkg.Svc/Method".
func NewStream(fullMethod string) *Stream { return &Stream{method: fullMethod} }

// Init makes s, a zero Stream, a stream for fullMethod: for a Stream kept
// inside a larger allocation.
func (s *Stream) Init(fullMethod string) { s.method = fullMethod }

// Method returns the full method name.
func (s *Stream) Method() string { return s.method }

// SetHeader merges md into the header metadata.
func (s *Stream) SetHeader(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.headerSent {
		return errHeaderSent
	}
	s.header = merge(s.header, md)
	return nil
}

// SendHeader merges md into the header metadata and marks the header
// sent; the HTTP response writes it with the body.
func (s *Stream) SendHeader(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.headerSent {
		return errHeaderSent
	}
	s.header = merge(s.header, md)
	s.headerSent = true
	return nil
}

// SetTrailer merges md into the trailer metadata. It fails once the call
// has finished, as on a grpc.Server.
func (s *Stream) SetTrailer(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return errStreamDone
	}
	s.trailer = merge(s.trailer, md)
	return nil
}

// Header returns the header metadata once it has been sent (SendHeader,
// or Finish); before that it returns nil, as the header may still change.
func (s *Stream) Header() metadata.MD {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.headerSent {
		return nil
	}
	return s.header
}

// Finish ends the call and returns the collected metadata. Every later
// SetHeader, SendHeader and SetTrailer fails (a goroutine the handler
// left behind cannot reach the response), so the returned maps are no
// longer written to.
func (s *Stream) Finish() (header, trailer metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.headerSent = true
	s.done = true
	return s.header, s.trailer
}

func merge(dst, src metadata.MD) metadata.MD {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = metadata.MD{}
	}
	for k, v := range src {
		dst[k] = append(dst[k], v...)
	}
	return dst
}

// NewContext returns ctx carrying s as its server transport stream.
func NewContext(ctx context.Context, s *Stream) context.Context {
	return grpc.NewContextWithServerTransportStream(ctx, s)
}
