package exchange

import (
	"io"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/framing"
)

// A Source fills request messages, one per call, and returns io.EOF
// after the last. Its errors are statuses (INVALID_ARGUMENT for a bad
// message).
type Source interface {
	Next(msg proto.Message) error
	// Err returns why the request messages could not be read, if they
	// could not: what the client sent that is not valid, too large, or
	// did not arrive in time. It is what a streaming call is answered
	// (Outcome), not what the method made of it. io.EOF and CANCELED (the
	// client left, the call ended) are not failures: they leave the call's
	// own outcome.
	Err() error
}

// one is the source of a request with one message: the exchange's Input,
// decoded by the binding's request plan.
type one struct {
	x    *Exchange
	done bool
	err  error // the decoding's failure
}

func (s *one) Next(msg proto.Message) error {
	if s.done {
		return io.EOF
	}
	s.done = true
	s.err = s.x.decodeInput(msg)
	return s.err
}

// Err returns the failure to decode the message, if Next met one. Next
// and Err are called from the call's goroutine.
func (s *one) Err() error { return s.err }

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
// The reads of each JSON or binary message are timed (timeouts.ReadClock, a
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
