package framing

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A TooLargeError is a message longer than the reader's limit.
type TooLargeError struct{ Max int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("a message in the stream is larger than %d bytes", e.Max)
}

// A Reader returns the messages of a request body one at a time. Next
// returns io.EOF after the last one; the bytes it returns are valid until
// the next call.
type Reader interface {
	Next() ([]byte, error)
}

// A Clock times the reads of a body. When the body a JSONReader or a
// DelimitedReader reads is a Clock, it is told when the reader waits for
// a message's first byte and when a message has begun: a stream's wait
// between messages may be long (a chat waits for its user), the rest of a
// message should not be.
type Clock interface {
	Await() // the reads that follow wait for a message
	Begin() // a message has begun
}

// clockOf returns r as a Clock, or a Clock that does nothing.
func clockOf(r io.Reader) Clock {
	if c, ok := r.(Clock); ok {
		return c
	}
	return noClock{}
}

type noClock struct{}

func (noClock) Await() {}
func (noClock) Begin() {}

// JSONReader splits a body into JSON values: newline-delimited,
// concatenated, or separated by any JSON whitespace. It finds where each
// value ends without parsing it (the codec does that), holding one value
// at a time.
type JSONReader struct {
	r     *bufio.Reader
	clock Clock
	max   int
	buf   []byte
}

// NewJSONReader returns a reader of the JSON values in r, each at most
// max bytes.
func NewJSONReader(r io.Reader, max int) *JSONReader {
	return &JSONReader{r: bufio.NewReader(r), clock: clockOf(r), max: max}
}

var errTruncated = errors.New("the stream ends inside a JSON value")

// Next returns the next JSON value.
func (j *JSONReader) Next() ([]byte, error) {
	j.buf = j.buf[:0]
	j.clock.Await()
	c, err := j.skipSpace()
	if err != nil {
		return nil, err
	}
	j.clock.Begin()
	if err := j.add(c); err != nil {
		return nil, err
	}
	switch c {
	case '{', '[':
		err = j.composite()
	case '"':
		err = j.str()
	default:
		err = j.scalar()
	}
	if err != nil {
		return nil, err
	}
	return j.buf, nil
}

func (j *JSONReader) add(c byte) error {
	if len(j.buf) >= j.max {
		return &TooLargeError{Max: j.max}
	}
	j.buf = append(j.buf, c)
	return nil
}

func (j *JSONReader) skipSpace() (byte, error) {
	for {
		c, err := j.r.ReadByte()
		if err != nil {
			return 0, err // io.EOF between values ends the stream
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, nil
	}
}

// next reads a byte inside a value, where the end of the body is an error.
func (j *JSONReader) next() (byte, error) {
	c, err := j.r.ReadByte()
	if err == io.EOF {
		return 0, errTruncated
	}
	if err != nil {
		return 0, err
	}
	return c, j.add(c)
}

// composite reads an object or array after its opening bracket, to the
// bracket that closes it, skipping brackets inside strings.
func (j *JSONReader) composite() error {
	depth := 1
	for depth > 0 {
		c, err := j.next()
		if err != nil {
			return err
		}
		switch c {
		case '"':
			if err := j.str(); err != nil {
				return err
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return nil
}

// str reads a string after its opening quote, through the closing one.
func (j *JSONReader) str() error {
	for {
		c, err := j.next()
		if err != nil {
			return err
		}
		switch c {
		case '\\':
			if _, err := j.next(); err != nil {
				return err
			}
		case '"':
			return nil
		}
	}
}

// scalar reads a number, true, false or null (or anything else, which the
// codec rejects) up to whitespace, the start of another value, or the end.
func (j *JSONReader) scalar() error {
	for {
		b, err := j.r.Peek(1)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch b[0] {
		case ' ', '\t', '\n', '\r', '{', '[', '"':
			return nil
		}
		c, _ := j.r.ReadByte()
		if err := j.add(c); err != nil {
			return err
		}
	}
}

// DelimitedReader reads binary messages, each after its length as a
// varint (protobuf's writeDelimitedTo).
type DelimitedReader struct {
	r     *bufio.Reader
	clock Clock
	max   int
	buf   []byte
}

// NewDelimitedReader returns a reader of the length-delimited messages in
// r, each at most max bytes.
func NewDelimitedReader(r io.Reader, max int) *DelimitedReader {
	return &DelimitedReader{r: bufio.NewReader(r), clock: clockOf(r), max: max}
}

// Next returns the next message.
func (d *DelimitedReader) Next() ([]byte, error) {
	d.clock.Await()
	if _, err := d.r.Peek(1); err == nil {
		d.clock.Begin()
	}
	n, err := binary.ReadUvarint(d.r)
	switch {
	case err == io.EOF:
		return nil, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, errors.New("the stream ends inside a message length")
	case err != nil:
		return nil, fmt.Errorf("invalid message length: %w", err)
	case n > uint64(d.max):
		return nil, &TooLargeError{Max: d.max}
	}
	if cap(d.buf) < int(n) {
		d.buf = make([]byte, n)
	}
	d.buf = d.buf[:n]
	if _, err := io.ReadFull(d.r, d.buf); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("the stream ends inside a message of %d bytes", n)
		}
		return nil, err
	}
	return d.buf, nil
}

// ChunkReader returns the body as it arrives, in pieces of at most size
// bytes: each becomes the data of one google.api.HttpBody message.
type ChunkReader struct {
	r   io.Reader
	buf []byte
}

// NewChunkReader returns a reader of r in pieces of at most size bytes.
func NewChunkReader(r io.Reader, size int) *ChunkReader {
	return &ChunkReader{r: r, buf: make([]byte, size)}
}

// Next returns the next piece.
func (c *ChunkReader) Next() ([]byte, error) {
	for {
		n, err := c.r.Read(c.buf)
		if n > 0 {
			return c.buf[:n], nil // an error comes again on the next call
		}
		if err != nil {
			return nil, err
		}
	}
}
