package exchange

import (
	"bytes"
	"io"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/compress"
	"github.com/protorest/protorest/internal/httperr"
	"github.com/protorest/protorest/internal/jsonscan"
)

// What decoding a message body holds, besides its bytes: for JSON,
// perValue bytes a value (a JSON list of google.protobuf.Value, two bytes
// a value, holds 99 bytes a value decoded, measured in-process); for
// binary protobuf, binaryFactor times its bytes; for the raw bytes of a
// google.api.HttpBody, their copy.
const (
	perValue     = 96
	binaryFactor = 12
)

// growStep is how much more of the decoding budget a body takes each time
// it outgrows what it holds while it is read.
const growStep = 256 << 10

// errDecodingBusy answers a request whose body found no room in the
// decoding budget (Env.Decoding): 503 UNAVAILABLE with Retry-After.
var errDecodingBusy = httperr.Busy("too many request bodies in flight: try again")

// readingCost is what a one-message request body of n bytes holds while
// it is read: its bytes, what decoding its content coding holds (coded
// may be nil), and budget.Overhead.
func readingCost(coded *compress.Body, n int) int64 {
	return budget.Overhead + coded.Holds() + int64(n)
}

// decodingCost is what x's body, read, holds until the call ends: what
// reading it held, and what decoding it holds.
func (x *Exchange) decodingCost() int64 {
	body := x.Input.Body
	c := readingCost(x.coded, len(body))
	switch {
	case x.Binding.Request.Body.Raw != nil:
		c += int64(len(body))
	case x.Input.Format == x.Env.Formats.JSON:
		c += perValue * int64(jsonscan.Values(body))
	default:
		c += binaryFactor * int64(len(body))
	}
	return c
}

// takeDecoding takes, before a one-message request's body is read, what
// it holds while it is read (readingCost), of its declared length if it
// has one within the body limit. The hold is given back when the call
// ends (Put).
func (x *Exchange) takeDecoding() error {
	if x.Env.Decoding == nil {
		return nil
	}
	n := 0
	if cl := x.R.ContentLength; cl > 0 && (x.Env.MaxBody <= 0 || cl <= x.Env.MaxBody) {
		n = int(min(cl, 1<<31-1))
	}
	var err error
	if x.decoding, err = x.Env.Decoding.Take(x.R.Context(), readingCost(x.coded, n)); err != nil {
		return errDecodingBusy
	}
	return nil
}

// setDecoding makes the body's hold n bytes: it gives back what it holds
// beyond, or waits for what it lacks as Take does.
func (x *Exchange) setDecoding(n int64) error {
	if x.Env.Decoding == nil {
		return nil
	}
	if n <= x.decoding.N() {
		x.decoding.Shrink(n)
		return nil
	}
	if x.decoding.Grow(x.R.Context(), n) != nil {
		return errDecodingBusy
	}
	return nil
}

// countedBody is the exchange's body buffer while the body is read, as
// io.Copy's destination: it reads no more than the body holds of the
// decoding budget, and takes growStep more (waiting for room) each time
// the bytes reach it, so that a body without a declared length, or one
// whose coding decodes it to more, is counted as it arrives. A body that
// holds all of the budget reads the rest as it comes: it goes alone.
type countedBody struct {
	x     *Exchange
	limit io.LimitedReader
}

// ReadFrom reads r into the exchange's body.
func (b *countedBody) ReadFrom(r io.Reader) (int64, error) {
	x := b.x
	var total int64
	for {
		room := x.decoding.N() - readingCost(x.coded, x.body.Len())
		if room < bytes.MinRead {
			held := x.decoding.N()
			if err := x.setDecoding(held + growStep); err != nil {
				return total, err
			}
			if x.decoding.N() == held { // all of the budget
				n, err := x.body.ReadFrom(r)
				return total + n, err
			}
			continue
		}
		b.limit = io.LimitedReader{R: r, N: room}
		n, err := x.body.ReadFrom(&b.limit)
		total += n
		if err != nil || b.limit.N > 0 {
			return total, err
		}
	}
}

// Write is for io.Copy's interface; ReadFrom does the work.
func (b *countedBody) Write(p []byte) (int, error) {
	n, err := b.ReadFrom(bytes.NewReader(p))
	return int(n), err
}
