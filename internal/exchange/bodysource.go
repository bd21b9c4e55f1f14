package exchange

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/text"
)

// BodySource reads the request messages of a client stream as they
// arrive: from the request body, or from a WebSocket. Every message gets
// the path and query bindings, except that later google.api.HttpBody
// chunks carry only their data (as in Envoy's transcoder).
//
// It is the one owner of what happens to the client's stream: the first
// failure to read it (Err), which is what the call is answered, and the
// end of its reading when the call ends (Stop). Invokers, in-process and
// remote, only ask.
type BodySource struct {
	// Reader gives Next the encoded messages: at first the client's, as
	// they arrive. An invoker may put a read-ahead of it in its place
	// before the first Next; the read-ahead reads the Reader it replaces.
	Reader framing.Reader

	x         *Exchange
	client    framing.Reader  // the client's frames
	interrupt ReadInterrupter // cuts a read of client short

	// Next's side, in the call's order of messages.
	n      int          // messages given
	end    error        // what ended the stream (io.EOF, a failure); Next's goroutine only
	failed firstFailure // what of end is a failure, for Err

	// The client's side, which a read-ahead may run a message past Next,
	// from its own goroutine.
	frames int          // frames read; the reading goroutine only
	unread firstFailure // a read failure, perhaps of a message Next has not reached

	mu      sync.Mutex
	reading bool // a read of client is in progress
	stopped bool // Stop has been called: no more reads
}

// A ReadInterrupter cuts a read of a request stream in progress short.
type ReadInterrupter interface {
	// InterruptRead makes a read in progress fail at once, and returns
	// what undoes that for later requests (on a connection that outlives
	// the call).
	InterruptRead() (restore func())
}

// newBodySource returns the source of x's request stream, read from r,
// whose reads in progress interrupt cuts short.
func newBodySource(x *Exchange, r framing.Reader, interrupt ReadInterrupter) *BodySource {
	s := &BodySource{x: x, client: r, interrupt: interrupt}
	s.Reader = (*clientFrames)(s)
	return s
}

func (s *BodySource) Next(msg proto.Message) error {
	if s.end != nil {
		return s.end
	}
	plan := s.x.Binding.Request
	if plan.Body.Kind == bind.BodyNone {
		// A client stream whose rule has no body gets no messages.
		s.end = io.EOF
		return s.end
	}
	frame, err := s.Reader.Next()
	if err != nil {
		return s.ended(err)
	}
	s.x.idle.Touch()
	s.n++
	if s.n > 1 && plan.Body.Raw != nil {
		plan.SetChunk(msg, frame)
		s.x.Received++
		return nil
	}
	s.x.Input.Body = frame
	if err := s.x.decodeInput(msg); err != nil {
		if st, ok := status.FromError(err); ok && st.Code() == codes.InvalidArgument {
			sp := st.Proto() // a copy: its details (a BadRequest) stay
			sp.Message = "message " + strconv.Itoa(s.n) + " of the request stream: " + sp.Message
			err = status.FromProto(sp).Err()
		}
		return s.ended(err)
	}
	return nil
}

// ended ends Next's stream with err, and keeps it if it is a failure
// (before Next returns it, and so before the call can be canceled for it).
func (s *BodySource) ended(err error) error {
	s.end = err
	s.failed.keep(err)
	return err
}

// Err returns why the client's stream could not be read, if it could not
// (so far): the first failure Next returned (a message that is not valid,
// a read that failed or timed out, the call's deadline passing while a
// read-ahead waited), or else the reader's, met on a message Next has not
// reached (read ahead while the method was not reading: too large, not
// JSON, the client gone). In the order of the stream, Next's comes first.
// It may be called from any goroutine.
func (s *BodySource) Err() error {
	if err := s.failed.get(); err != nil {
		return err
	}
	return s.unread.get()
}

// Stop ends the reading of the client's stream: the request may not be
// read once the handler returns. Later reads fail with CANCELED; a read
// in progress is interrupted until wait, which returns once the reader
// has, returns. A read cut short this way is not the client's failure.
func (s *BodySource) Stop(wait func()) {
	s.mu.Lock()
	s.stopped = true
	reading := s.reading
	s.mu.Unlock()
	if reading {
		defer s.interrupt.InterruptRead()()
	}
	wait()
}

var errStopped = status.Error(codes.Canceled, "the call has ended")

// clientFrames is a BodySource's first Reader: the client's frames, read
// until Stop, each failure as its status, the first kept.
type clientFrames BodySource

func (c *clientFrames) Next() ([]byte, error) {
	s := (*BodySource)(c)
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil, errStopped
	}
	s.reading = true
	s.mu.Unlock()
	frame, err := s.client.Next()
	s.mu.Lock()
	s.reading = false
	stopped := s.stopped
	s.mu.Unlock()
	if err == nil {
		s.frames++
		return frame, nil
	}
	if stopped {
		return nil, errStopped
	}
	err = s.readError(err)
	s.unread.keep(err)
	return nil, err
}

// readError is the status of a failure to read the next frame.
func (s *BodySource) readError(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	var own interface{ GRPCStatus() *status.Status }
	if errors.As(err, &own) {
		return own.(error) // the gateway's own: a read timed out, a WebSocket's
	}
	var tl *framing.TooLargeError
	var mbe *http.MaxBytesError // a middleware's http.MaxBytesReader
	if errors.As(err, &tl) || errors.As(err, &mbe) {
		return httperr.TooLargeMessage(err.Error())
	}
	if errors.Is(err, http.ErrBodyReadAfterClose) {
		return status.Error(codes.Canceled, "request body closed")
	}
	return status.Errorf(codes.InvalidArgument, "invalid request stream: message %d: %v", s.frames+1, text.CleanError(err))
}

// firstFailure keeps the first failure it is given, for any goroutine:
// io.EOF ends a stream well, and CANCELED says the call ended, not that
// the client sent what could not be read.
type firstFailure struct{ p atomic.Pointer[error] }

func (f *firstFailure) keep(err error) {
	if err == nil || err == io.EOF || status.Code(err) == codes.Canceled {
		return
	}
	kept := err
	f.p.CompareAndSwap(nil, &kept)
}

func (f *firstFailure) get() error {
	if p := f.p.Load(); p != nil {
		return *p
	}
	return nil
}
