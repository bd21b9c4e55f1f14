package invoke

import (
	"bytes"
	"context"
	"io"

	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/framing"
)

// prefetch reads the frames of a client stream ahead, one at a time, in
// its own goroutine: net/http reports a client that went away only to a
// reader of the body, and a handler may not be reading.
type prefetch struct {
	ctx    context.Context // the call's: Next returns once it is done
	frames chan frame
	quit   chan struct{}
	done   chan struct{}

	last frame // the error that ended the stream, once Next has seen it
}

type frame struct {
	data []byte
	err  error
}

// startPrefetch reads r until it fails; a failure other than the end
// calls gone. r keeps the failure (exchange.BodySource.Err) before gone
// cancels the call for it: Next may then see the call canceled first.
func startPrefetch(ctx context.Context, r framing.Reader, gone func()) *prefetch {
	p := &prefetch{ctx: ctx, frames: make(chan frame), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			data, err := r.Next()
			if err != nil && err != io.EOF {
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

// Next returns the next frame, or the error that ended the stream; once
// the call is canceled, a CANCELED status, as a grpc.Server's RecvMsg
// returns: the read in progress may never end (a WebSocket, a stalled
// body).
func (p *prefetch) Next() ([]byte, error) {
	if p.last.err != nil {
		return nil, p.last.err
	}
	var f frame
	select {
	case f = <-p.frames:
	case <-p.ctx.Done():
		select {
		case f = <-p.frames: // a frame ready wins
		default:
			return nil, status.FromContextError(p.ctx.Err()).Err()
		}
	}
	if f.err != nil {
		p.last = f
	}
	return f.data, f.err
}

// stop ends the reader and waits for it.
func (p *prefetch) stop() {
	close(p.quit)
	<-p.done
}
