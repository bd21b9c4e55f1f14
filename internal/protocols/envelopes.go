package protocols

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// envelopes writes a stream's messages after its first straight to the
// response, each in the 5-byte envelope connect-go would write it in
// (flags 0, the length), and flushes each as connect-go does. The first
// message goes through connect-go, which writes the response's headers
// and learns that the body has begun (a gRPC-Web call that sends a
// message ends with a trailer frame, not in its headers); the messages
// after it come here only when connect-go compresses none
// (uncompressed), so that every message is what connect-go would write.
type envelopes struct {
	w       http.ResponseWriter
	on      bool   // the messages are written here
	decided bool   // on is decided: the first message was sent
	frame   []byte // the envelope being written, kept for the next (up to maxKeptBuffer)
}

// decide turns the writing on after the first message, unless the
// response's headers (connect-go's, now written) say that messages are
// compressed.
func (e *envelopes) decide(h http.Header) {
	e.decided = true
	e.on = uncompressed(h.Get("Connect-Content-Encoding")) && uncompressed(h.Get("Grpc-Encoding"))
}

// uncompressed reports whether a message encoding header's value says
// that messages are sent as they are.
func uncompressed(encoding string) bool { return encoding == "" || encoding == "identity" }

// write writes body in its envelope and flushes it. A failure is the
// status connect-go would give it: the call's context's end (CANCELED,
// DEADLINE_EXCEEDED) when it has ended, else UNKNOWN.
func (e *envelopes) write(ctx context.Context, body []byte) error {
	e.frame = binary.BigEndian.AppendUint32(append(e.frame[:0], 0), uint32(len(body)))
	e.frame = append(e.frame, body...)
	_, err := e.w.Write(e.frame)
	if cap(e.frame) > maxKeptBuffer {
		e.frame = nil
	} else {
		e.frame = e.frame[:0]
	}
	if f, ok := e.w.(http.Flusher); ok && err == nil {
		f.Flush()
	}
	if err == nil {
		return nil
	}
	code := codes.Unknown
	switch cerr := ctx.Err(); {
	case errors.Is(cerr, context.Canceled):
		code = codes.Canceled
	case errors.Is(cerr, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	}
	return status.Error(code, "write envelope: "+err.Error())
}
