package exchange

import (
	"errors"
	"io"
	"math"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/text"
)

// A Source fills request messages, one per call, and returns io.EOF
// after the last. Its errors are statuses (INVALID_ARGUMENT for a bad
// message).
type Source interface {
	Next(msg proto.Message) error
}

// one is the source of a request with one message: the exchange's Input,
// decoded by the binding's request plan.
type one struct {
	x    *Exchange
	done bool
}

func (s *one) Next(msg proto.Message) error {
	if s.done {
		return io.EOF
	}
	s.done = true
	return s.x.decodeInput(msg)
}

// maxChunk is the largest piece of a streamed google.api.HttpBody request
// sent as one message.
const maxChunk = 1 << 20

// MaxMessage is the size limit of one message of a request stream: the
// request body limit, which does not bound the stream as a whole.
func (e *Env) MaxMessage() int {
	if e.MaxBody <= 0 || e.MaxBody > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(e.MaxBody)
}

// bodyReader returns the reader of a client stream's messages in the
// request body: JSON values, length-delimited binary messages, or for a
// google.api.HttpBody request, chunks of raw bytes.
// The reads of each JSON or binary message are timed (readClock, a
// framing.Clock), not the wait between messages; a google.api.HttpBody
// stream is an upload whose every read is timed.
func (x *Exchange) bodyReader() framing.Reader {
	body := x.timedBody()
	switch {
	case x.Binding.Request.Body.Raw != nil:
		return framing.NewChunkReader(body, maxChunk)
	case x.Input.Format == x.Env.Formats.JSON:
		return framing.NewJSONReader(body, x.Env.MaxMessage())
	}
	return framing.NewDelimitedReader(body, x.Env.MaxMessage())
}

// BodySource reads the request messages of a client stream as they
// arrive, from Reader. Every message gets the path and query bindings,
// except that later google.api.HttpBody chunks carry only their data (as
// in Envoy's transcoder).
type BodySource struct {
	// Reader gives the encoded messages. An invoker may wrap it (to read
	// ahead, or to cut a read short) before the first Next.
	Reader framing.Reader

	x   *Exchange
	n   int
	err error // the first failure, which ends the stream
}

// newBodySource returns the source of x's request stream, read from r.
func newBodySource(x *Exchange, r framing.Reader) *BodySource {
	return &BodySource{Reader: r, x: x}
}

func (s *BodySource) Next(msg proto.Message) error {
	if s.err != nil {
		return s.err
	}
	plan := s.x.Binding.Request
	if plan.Body.Kind == bind.BodyNone {
		// A client stream whose rule has no body gets no messages.
		s.err = io.EOF
		return s.err
	}
	frame, err := s.Reader.Next()
	if err != nil {
		s.err = s.ReadError(err)
		return s.err
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
			err = status.Errorf(codes.InvalidArgument, "message %d of the request stream: %s", s.n, st.Message())
		}
		s.err = err
		return err
	}
	return nil
}

// ReadError is the status of a failure to read the request stream.
func (s *BodySource) ReadError(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	var own interface{ GRPCStatus() *status.Status }
	if errors.As(err, &own) {
		return own.(error) // the gateway's own: a read timed out, the call ended
	}
	var tl *framing.TooLargeError
	var mbe *http.MaxBytesError // a middleware's http.MaxBytesReader
	if errors.As(err, &tl) || errors.As(err, &mbe) {
		return httperr.TooLargeMessage(err.Error())
	}
	if errors.Is(err, http.ErrBodyReadAfterClose) {
		return status.Error(codes.Canceled, "request body closed")
	}
	return status.Errorf(codes.InvalidArgument, "invalid request stream: message %d: %v", s.n+1, text.CleanError(err))
}
