package framing

import (
	"encoding/binary"
	"errors"
	"io"
	"sync"
)

// EnvelopePrefix is the size of an enveloped message's prefix (gRPC's
// Length-Prefixed-Message, Connect's and gRPC-Web's envelopes): a flags
// byte, then the message's length, 4 bytes big-endian.
const EnvelopePrefix = 5

// errFollowerStopped is what a read returns once the follower is stopped.
var errFollowerStopped = errors.New("framing: the body is no longer read")

// An EnvelopeFollower passes a request body of enveloped messages
// through unchanged, for a reader that decodes them itself (grpc-go),
// and follows their prefixes to know where each message begins and ends:
//
//   - in a stream, it tells the body's Clock when the reads wait for a
//     message (Await) and when one has begun (Begin); a request of one
//     message is timed whole, as the clock began it;
//   - a message longer than max is a TooLargeError at its prefix, before
//     any of it is read;
//   - no read goes past the end of a message's prefix or of the message,
//     and a read that would begin a message waits until the consumer has
//     taken every message read whole (Consumed): a consumer that stops
//     taking messages stops the reads after the messages it holds and one
//     more, and HTTP/2 flow control holds the client back. The wait is
//     not timed: it is the consumer's, not the client's.
//
// Read is called by one goroutine; Consumed and Stop by any.
type EnvelopeFollower struct {
	body   io.Reader
	clock  Clock
	max    int
	stream bool

	// Read by the reading goroutine only.
	prefix [EnvelopePrefix]byte
	have   int    // bytes of the prefix read
	left   uint32 // bytes of the message still to read, once its prefix is whole
	inBody bool   // the prefix is whole: the message's bytes are being read
	err    error  // the error every read returns from now on

	mu       sync.Mutex
	cond     sync.Cond
	read     int64 // messages read whole
	consumed int64 // messages the consumer took
	stopped  bool
	tooLarge error // the TooLargeError a read returned, for Failure
}

// NewEnvelopeFollower returns a follower of the enveloped messages of
// body, each at most max bytes (0: no limit), timed by body's Clock if it
// is one; stream says whether the body is a stream (see
// EnvelopeFollower).
func NewEnvelopeFollower(body io.Reader, max int, stream bool) *EnvelopeFollower {
	f := new(EnvelopeFollower)
	f.Init(body, max, stream)
	return f
}

// Init makes f, a zero EnvelopeFollower, what NewEnvelopeFollower
// returns, in an allocation of the caller's.
func (f *EnvelopeFollower) Init(body io.Reader, max int, stream bool) {
	f.body, f.clock, f.max, f.stream = body, clockOf(body), max, stream
	f.cond.L = &f.mu
}

// Read reads the body; see EnvelopeFollower.
func (f *EnvelopeFollower) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.atBoundary() {
		if err := f.awaitConsumer(); err != nil {
			f.err = err
			return 0, err
		}
		if f.stream {
			f.clock.Await()
		}
	}
	p = p[:f.within(len(p))]
	n, err := f.body.Read(p)
	if ferr := f.follow(p[:n]); ferr != nil {
		f.err = ferr
		f.mu.Lock()
		f.tooLarge = ferr
		f.mu.Unlock()
		return n, ferr
	}
	return n, err
}

// within caps a read of n bytes at the end of the message's prefix, or
// of the message, in progress: a read that ran past a message's end
// would begin the next one without waiting for the consumer.
func (f *EnvelopeFollower) within(n int) int {
	if f.inBody {
		return int(min(uint32(n), f.left))
	}
	return min(n, EnvelopePrefix-f.have)
}

// atBoundary reports whether the next byte begins a message.
func (f *EnvelopeFollower) atBoundary() bool { return !f.inBody && f.have == 0 }

// awaitConsumer waits until the consumer has taken every message read,
// or the follower is stopped.
func (f *EnvelopeFollower) awaitConsumer() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.read > f.consumed && !f.stopped {
		f.cond.Wait()
	}
	if f.stopped {
		return errFollowerStopped
	}
	return nil
}

// follow moves past the bytes b, which the body just gave.
func (f *EnvelopeFollower) follow(b []byte) error {
	for len(b) > 0 {
		if f.inBody {
			k := int(min(uint32(len(b)), f.left))
			f.left -= uint32(k)
			b = b[k:]
		} else {
			if f.have == 0 && f.stream {
				f.clock.Begin()
			}
			k := copy(f.prefix[f.have:], b)
			f.have += k
			b = b[k:]
			if f.have < EnvelopePrefix {
				continue
			}
			f.left = binary.BigEndian.Uint32(f.prefix[1:])
			if f.max > 0 && f.left > uint32(f.max) {
				return &TooLargeError{Max: f.max}
			}
			f.inBody = true
		}
		if f.inBody && f.left == 0 {
			f.inBody, f.have = false, 0
			f.mu.Lock()
			f.read++
			f.mu.Unlock()
		}
	}
	return nil
}

// Consumed says that the consumer took a message.
func (f *EnvelopeFollower) Consumed() {
	f.mu.Lock()
	f.consumed++
	f.mu.Unlock()
	f.cond.Signal()
}

// Failure returns the TooLargeError a read returned, or nil. It may be
// called from any goroutine.
func (f *EnvelopeFollower) Failure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tooLarge
}

// Stop ends the reads: a read waiting for the consumer, and every read
// after, returns an error. It does not interrupt a read of the body in
// progress (closing the body does).
func (f *EnvelopeFollower) Stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	f.cond.Broadcast()
}
