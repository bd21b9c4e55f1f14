package grpcproxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/timeouts"
)

// A call is what the forwarding of one call needs from its HTTP request,
// made before grpc-go reads it: the request, what is known of the method
// (see MethodKind), the metadata to forward (or why there is none), and
// the request body's clock and follower.
type call struct {
	r          *http.Request
	oneRequest bool // the method is known to take one request message
	unary      bool // and to send one response
	md         metadata.MD
	mdErr      error
	clock      *timeouts.ReadClock // nil without a read idle timeout
	body       *body
	failed     failure      // why grpc-go could not read the client's messages
	out        clientWriter // the response
	sent       int64        // messages sent to the client (forward's)

	mu     sync.Mutex
	isCut  bool                    // the body was cut short
	cancel context.CancelCauseFunc // forward's, once it has one
}

type callKey struct{}

// errCut cancels a call whose request body was cut short: the outcome
// says why.
var errCut = errors.New("grpcproxy: the request body was cut short")

// newCall makes r's call, puts its body in r.Body, and its response
// writer in c.out.
func (p *proxy) newCall(w http.ResponseWriter, r *http.Request) *call {
	c := &call{r: r, out: clientWriter{ResponseWriter: w, timeout: p.s.WriteTimeout, flushed: make(chan struct{}, 1)}}
	if p.s.Method != nil {
		m := p.s.Method(r.URL.Path)
		c.oneRequest = m.Known && !m.ClientStreams
		c.unary = c.oneRequest && !m.ServerStreams
	}
	c.md, c.mdErr = p.s.Headers.GRPCMetadata(r)
	var src io.Reader = r.Body
	if p.s.ReadIdleTimeout > 0 {
		c.clock = new(timeouts.ReadClock)
		c.clock.Reset(r.Body, w, p.s.ReadIdleTimeout)
		src = c.clock
	}
	c.body = &body{c: c, follower: framing.NewEnvelopeFollower(src, p.s.MaxRecv, !c.oneRequest), closer: r.Body, closed: make(chan struct{})}
	r.Body = c.body
	return c
}

// callFrom returns the call of a stream's context.
func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// watch gives the call forward's cancel function, which a cut calls.
func (c *call) watch(cancel context.CancelCauseFunc) {
	c.mu.Lock()
	c.cancel = cancel
	cut := c.isCut
	c.mu.Unlock()
	if cut {
		cancel(errCut)
	}
}

// cut ends the call for a failure of its request body: forward's context
// is canceled, now or as soon as it has one.
func (c *call) cut() {
	c.mu.Lock()
	c.isCut = true
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel(errCut)
	}
}

// bodyFailure returns why the request body was cut short, as the status
// REST answers it with: a read that timed out (408 DEADLINE_EXCEEDED), a
// message over the limit at its prefix (413 RESOURCE_EXHAUSTED); or nil.
func (c *call) bodyFailure() error {
	if c.clock != nil {
		if cause := c.clock.Failure(); cause != nil {
			return cause
		}
	}
	if tooLarge := c.body.follower.Failure(); tooLarge != nil {
		return httperr.TooLargeMessage(tooLarge.Error())
	}
	return nil
}

// recv reads the client's next message into m, noting a failure that is
// not the end of the stream (see outcome), and telling the follower that
// the message was taken.
func (c *call) recv(ss grpc.ServerStream, m any) error {
	err := ss.RecvMsg(m)
	switch {
	case err == nil:
		c.body.follower.Consumed()
	case err != io.EOF:
		c.failed.set(err)
	}
	return err
}

// outcome is what answers a call that ended with err. In order: a body
// cut short (see bodyFailure); the stream idle timeout; what grpc-go
// could not read of the client's messages (a message that inflates past
// the limit, a client that left); else err. Each of the first ones
// cancels the call, which the upstream may report first, as CANCELLED.
func (c *call) outcome(err error, idle *timeouts.IdleWatch) error {
	if cause := c.bodyFailure(); cause != nil {
		return cause
	}
	if cause := idle.Stop(); cause != nil {
		return cause
	}
	if bad := c.failed.get(); bad != nil {
		return bad
	}
	return err
}

// body is the request body grpc-go reads, through the follower. A read
// the gateway cuts short (see bodyFailure) does not return: it cuts the
// call, and waits for the call's end (Close). grpc-go answers a failed
// read with a status of its own (UNAVAILABLE), before the handler can;
// the handler answers instead.
type body struct {
	c        *call
	follower *framing.EnvelopeFollower
	closer   io.Closer
	once     sync.Once
	closed   chan struct{}
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.follower.Read(p)
	if err != nil && b.c.bodyFailure() != nil {
		b.c.cut()
		<-b.closed
		return 0, err
	}
	return n, err
}

// Close stops the follower and ends a read waiting for the call's end,
// then closes the request's body; it may be called more than once.
func (b *body) Close() error {
	var err error
	b.once.Do(func() {
		b.follower.Stop()
		close(b.closed)
		err = b.closer.Close()
	})
	return err
}

// failure holds the first error set, for another goroutine.
type failure struct {
	mu  sync.Mutex
	err error
}

func (f *failure) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *failure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
