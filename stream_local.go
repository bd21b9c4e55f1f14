package protorest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/invoke"
)

// streamLocal calls an in-process streaming method through the stream
// interceptors, as a grpc.Server would: its grpc.ServerStream reads the
// request messages from src and writes each response to out.
func (g *Gateway) streamLocal(r *http.Request, b *binding, src messageSource, out streamSink) {
	ctx, cancel, ts, err := g.callContext(r, b.fullMethod)
	if cancel != nil {
		defer cancel()
	}
	if err != nil {
		out.finish(err, nil, nil)
		return
	}
	ctx, cancelCall := context.WithCancel(ctx)
	defer cancelCall()
	var pf *prefetch
	if bs, ok := src.(*bodySource); ok {
		// Read ahead, so that a client that goes away cancels the call
		// even while the handler is not reading.
		body := &interruptible{r: bs.reader}
		pf = startPrefetch(body, cancelCall)
		bs.reader = pf
		defer body.cut(out.interruptRead, pf.stop)
	}
	ss := &localStream{ctx: ctx, ts: ts, out: out, src: src}
	err = invoke.Streaming(b.srv, ss, b.streamHandler, g.streamInterceptor, &b.streamInfo, g.cfg.panicHook)
	if err == nil && ctx.Err() != nil {
		err = status.FromContextError(ctx.Err()).Err()
	}
	if bad := ss.sourceError(pf); bad != nil {
		// The client sent what could not be read: that, not what the
		// handler made of it, is the answer.
		err = bad
	}
	header, trailer := ts.Finish()
	out.finish(err, header, trailer)
}

// localStream is the grpc.ServerStream of an in-process call over HTTP.
// Header and trailer metadata go through the same transport stream as
// grpc.SetHeader and grpc.SetTrailer on the context.
type localStream struct {
	ctx context.Context
	ts  *invoke.Stream
	out streamSink
	src messageSource

	recvErr error // the last RecvMsg error; RecvMsg is not called concurrently
}

var _ grpc.ServerStream = (*localStream)(nil)

func (s *localStream) Context() context.Context       { return s.ctx }
func (s *localStream) SetHeader(md metadata.MD) error { return s.ts.SetHeader(md) }
func (s *localStream) SetTrailer(md metadata.MD)      { s.ts.SetTrailer(md) }

func (s *localStream) SendHeader(md metadata.MD) error {
	if err := s.ts.SendHeader(md); err != nil {
		return err
	}
	return s.out.sendHeader(s.ts.Header())
}

// SendMsg writes one response; the first also sends the header.
func (s *localStream) SendMsg(m any) error {
	msg, ok := m.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "SendMsg of %T, not a message", m)
	}
	s.ts.SendHeader(nil) // fails once sent, which is fine
	return s.out.send(msg, s.ts.Header())
}

// RecvMsg reads the next request message; io.EOF after the last.
func (s *localStream) RecvMsg(m any) error {
	msg, ok := m.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "RecvMsg into %T, not a message", m)
	}
	err := s.src.next(msg)
	s.recvErr = err
	return err
}

// sourceError returns why the request stream could not be read, if it
// could not: what RecvMsg said, or what the prefetcher met.
func (s *localStream) sourceError(pf *prefetch) error {
	err := s.recvErr
	if (err == nil || err == io.EOF) && pf != nil {
		if perr := pf.failure(); perr != nil {
			err = s.src.(*bodySource).readError(perr)
		}
	}
	if err == nil || err == io.EOF {
		return nil
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.Canceled {
		return nil
	}
	return err
}

// prefetch reads the frames of a client stream ahead, one at a time, in
// its own goroutine: net/http reports a client that went away only to a
// reader of the body, and a handler may not be reading.
type prefetch struct {
	frames chan frame
	quit   chan struct{}
	done   chan struct{}

	last frame // the error that ended the stream, once Next has seen it

	mu  sync.Mutex
	err error // the read error, io.EOF excepted
}

type frame struct {
	data []byte
	err  error
}

// startPrefetch reads r until it fails; a failure other than the end
// calls gone.
func startPrefetch(r framing.Reader, gone func()) *prefetch {
	p := &prefetch{frames: make(chan frame), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			data, err := r.Next()
			if err != nil && err != io.EOF {
				p.mu.Lock()
				p.err = err
				p.mu.Unlock()
				gone()
			}
			select {
			case p.frames <- frame{bytes.Clone(data), err}:
			case <-p.quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// Next returns the next frame, or the error that ended the stream.
func (p *prefetch) Next() ([]byte, error) {
	if p.last.err != nil {
		return nil, p.last.err
	}
	f := <-p.frames
	if f.err != nil {
		p.last = f
	}
	return f.data, f.err
}

// failure returns the read error that ended the stream early, if any.
func (p *prefetch) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// stop ends the reader and waits for it.
func (p *prefetch) stop() {
	close(p.quit)
	<-p.done
}
