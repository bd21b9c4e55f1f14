// Package framing puts the messages of a stream into an HTTP body, and
// takes them out again: the response framings of server streams
// (grpc-gateway's envelope, Server-Sent Events, NDJSON, length-delimited
// binary, raw HttpBody chunks) and the request framings of client streams
// (a sequence of JSON values, length-delimited binary).
//
// It works on encoded messages: what a message is, and how it is encoded,
// is the caller's business.
package framing

import (
	"bytes"
	"encoding/binary"
	"strconv"
)

// Kind is a response framing.
type Kind int

const (
	// Envelope is grpc-gateway's: {"result":<message>} per line, and a
	// final {"error":<google.rpc.Status>} line when the stream fails.
	Envelope Kind = iota
	// SSE is Server-Sent Events: an "id:" and "data:" per message, then an
	// "end" event with the OK Status, or an "error" event with the Status
	// when the stream fails.
	SSE
	// NDJSON is bare messages, one per line.
	NDJSON
	// Delimited is binary messages, each after its length as a varint.
	Delimited
	// Raw is the data of google.api.HttpBody messages, concatenated.
	Raw
)

func (k Kind) String() string {
	switch k {
	case Envelope:
		return "envelope"
	case SSE:
		return "sse"
	case NDJSON:
		return "ndjson"
	case Delimited:
		return "delimited"
	case Raw:
		return "raw"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Media types of the framings that have their own.
const (
	MediaSSE    = "text/event-stream"
	MediaNDJSON = "application/x-ndjson"
)

// AppendMessage appends message number seq (from 1), encoded as msg, in
// framing k.
func AppendMessage(dst []byte, k Kind, seq int, msg []byte) []byte {
	switch k {
	case Envelope:
		dst = append(dst, `{"result":`...)
		dst = append(dst, msg...)
		return append(dst, "}\n"...)
	case SSE:
		dst = append(dst, "id: "...)
		dst = strconv.AppendInt(dst, int64(seq), 10)
		dst = append(dst, '\n')
		dst = appendData(dst, msg)
		return append(dst, '\n')
	case NDJSON:
		dst = append(dst, msg...)
		return append(dst, '\n')
	case Delimited:
		dst = binary.AppendUvarint(dst, uint64(len(msg)))
		return append(dst, msg...)
	}
	return append(dst, msg...)
}

// AppendError appends the in-band error record of framing k, with status
// the google.rpc.Status as JSON. It reports false for framings that have
// none (NDJSON, Delimited, Raw): their errors travel in HTTP trailers.
func AppendError(dst []byte, k Kind, status []byte) ([]byte, bool) {
	switch k {
	case Envelope:
		dst = append(dst, `{"error":`...)
		dst = append(dst, status...)
		return append(dst, "}\n"...), true
	case SSE:
		dst = append(dst, "event: error\n"...)
		dst = appendData(dst, status)
		return append(dst, '\n'), true
	}
	return dst, false
}

// AppendEnd appends the end-of-stream record of framing k, with status
// the OK google.rpc.Status as JSON: an "end" event for SSE, whose clients
// (EventSource) otherwise reconnect when a stream ends. It reports false
// for framings that need none.
func AppendEnd(dst []byte, k Kind, status []byte) ([]byte, bool) {
	if k != SSE {
		return dst, false
	}
	dst = append(dst, "event: end\n"...)
	dst = appendData(dst, status)
	return append(dst, '\n'), true
}

// appendData appends SSE data lines: one per line of msg (SSE ends a
// line at CR, LF or CRLF), so that a message with a newline arrives whole,
// its line breaks as LF.
func appendData(dst, msg []byte) []byte {
	for {
		i := bytes.IndexAny(msg, "\r\n")
		dst = append(dst, "data: "...)
		if i < 0 {
			dst = append(dst, msg...)
			return append(dst, '\n')
		}
		dst = append(dst, msg[:i]...)
		dst = append(dst, '\n')
		if msg[i] == '\r' && i+1 < len(msg) && msg[i+1] == '\n' {
			i++
		}
		msg = msg[i+1:]
	}
}
