package protorest

import (
	"math"
	"runtime/debug"
	"time"
)

// Limits the gateway applies before routing, by default (see the options
// below): what a client may send costs bounded memory and time.
const (
	defaultMaxURLBytes      = 16 << 10
	defaultMaxHeaders       = 100
	defaultMaxQueryParams   = 1000
	defaultMaxMetadataBytes = 8 << 10
	defaultMaxTimeout       = 5 * time.Minute
	defaultReadIdleTimeout  = 30 * time.Second
	defaultStreamIdle       = 5 * time.Minute

	defaultMaxResponseBytes     = 4 << 20
	defaultMaxBufferedResponses = 256 << 20
	defaultBufferedResponseWait = time.Second
	defaultResponseWriteTimeout = time.Minute
	// freeResponseBytes is the size up to which a response is not counted
	// against WithMaxBufferedResponseBytes.
	freeResponseBytes = 64 << 10
)

// WithMaxURLBytes limits the request target (the escaped path and the
// query) to n bytes; a longer one gets 414 with a RESOURCE_EXHAUSTED
// status. The default is 16 KiB; n <= 0 removes the limit.
func WithMaxURLBytes(n int) Option {
	return optionFunc(func(c *config) { c.env.MaxURLBytes = max(n, 0) })
}

// WithMaxHeaders limits a request to n header lines; more get 431 with a
// RESOURCE_EXHAUSTED status. The default is 100; n <= 0 removes the
// limit. (The size of the header is the http.Server's MaxHeaderBytes.)
func WithMaxHeaders(n int) Option {
	return optionFunc(func(c *config) { c.env.MaxHeaders = max(n, 0) })
}

// WithMaxQueryParameters limits a request to n query parameters; more get
// 400 INVALID_ARGUMENT before any is parsed. The default is 1,000; n <= 0
// removes the limit.
func WithMaxQueryParameters(n int) Option {
	return optionFunc(func(c *config) { c.env.MaxQueryParams = max(n, 0) })
}

// WithMaxMetadataBytes limits the metadata a call forwards to its method
// (keys and values, and 32 bytes for each pair, as HTTP/2 counts a header
// list; gRPC's C and Java servers refuse more than 8 KiB); a request over
// it gets 431 with a RESOURCE_EXHAUSTED status and the method is not
// called. The default is 8 KiB; n <= 0 removes the limit.
func WithMaxMetadataBytes(n int) Option {
	return optionFunc(func(c *config) { c.env.Headers.MaxMetadataBytes = max(n, 0) })
}

// WithDefaultTimeout sets the deadline of a unary call whose request has
// no Grpc-Timeout header (streams get none: they last as long as their
// client). By default the library sets none: a deadline costs four
// allocations on the in-process path, whose handler the program runs
// itself; protorest serve sets 30 s (--default-timeout), so that a hung
// upstream cannot hold a request for ever. d <= 0 sets none.
func WithDefaultTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.env.Headers.DefaultTimeout = max(d, 0) })
}

// WithMaxTimeout sets the longest deadline a Grpc-Timeout header may ask
// for; a longer one is cut to it. The default is 5 minutes; d <= 0 takes
// every Grpc-Timeout as it is.
func WithMaxTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.env.Headers.MaxTimeout = max(d, 0) })
}

// WithReadIdleTimeout sets the longest wait for the next bytes of a
// request body: a read that waits longer fails, the request gets 408
// with a DEADLINE_EXCEEDED status (in-band, for a stream whose response
// has started), the call is canceled, and an HTTP/1.1 connection is
// closed. A body must also keep coming at 500 bytes/s on average once d
// has passed (each byte read gives it 2 ms more), so that a trickle of
// one byte every d-1 cannot hold a connection for years. For a request
// stream, each message is timed from its first byte: the wait between
// messages is the stream idle timeout's (WithStreamIdleTimeout).
//
// The default is 30 s, on in the library too: the timer, kept by the
// pooled per-request state, costs no allocation (a request without a
// body has none to time). d <= 0 sets none. Reads are cut with
// http.ResponseController.SetReadDeadline: a middleware between the
// server and the gateway must implement Unwrap.
func WithReadIdleTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.env.ReadIdleTimeout = max(d, 0) })
}

// WithStreamIdleTimeout ends a streaming call (server, client or
// bidirectional, over HTTP or a WebSocket) that passes no message, either
// way, for d: the call is canceled (in-process, its context; remote, the
// upstream call), and the response ends with a DEADLINE_EXCEEDED status:
// 408 if it has not started, else the stream's in-band error (an error
// record, an SSE error event, Grpc-Status trailers), or for a WebSocket
// the close code 4004 (4000 + the code, as for every outcome). The
// default is 5 minutes, Envoy's stream_idle_timeout; d <= 0 sets none.
func WithStreamIdleTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.env.StreamIdleTimeout = max(d, 0) })
}

// WithMaxResponseBytes limits the encoded body of a response, and each
// message of a server stream or a WebSocket, to n bytes. The built-in
// codecs stop encoding as soon as they pass it; the client gets 500 with
// an INTERNAL status, "response too large", and none of the body (a
// stream's message past it ends the stream with that error, in-band once
// the stream has started). This is Envoy's max_response_body_size: a
// server-side limit the client cannot fix by retrying, so not 429
// RESOURCE_EXHAUSTED. A remote backend's messages are limited to n
// bytes of their protobuf encoding as well, as they arrive, with the
// same 500 past it (see WithMaxBackendMessageBytes, which sets another
// limit there): the gateway holds no more of one. The default is 4 MiB,
// as for requests; n <= 0 removes the limit (and a backend's messages
// get the limit of their connection).
func WithMaxResponseBytes(n int) Option {
	return optionFunc(func(c *config) { c.env.Render.MaxBody = max(n, 0) })
}

// WithMaxBufferedResponseBytes bounds the bytes the gateway holds at
// once, across all requests, to encode responses and write them: a
// response takes, before it is encoded, an estimate of what encoding it
// holds (four times its protobuf size for JSON: the message, the JSON,
// the encoder's work), keeps its encoded size once it is encoded, and
// holds that until the client has taken it, which a slow or stalled
// reader makes last. Responses of up to 64 KiB are not counted (they are
// bounded by the requests in flight, and counting them would cost every
// request a lock); a larger one (or a larger message of a server stream
// or a WebSocket) waits, in order of arrival, for room, holding only its
// message (for a remote method, the backend's bytes) while it waits, and
// past WithBufferedResponseWait gets 503 UNAVAILABLE with "Retry-After:
// 1". A WebSocket's message that finds no room is not sent, and ends the
// WebSocket with close 4014 (4000 + UNAVAILABLE) and the 503's message
// as reason, whatever the method makes of its Send's error.
// The bytes come back when the response is written (a WebSocket's
// message, to the socket), or its write fails: the client left, or
// WithResponseWriteTimeout passed.
// The default is 256 MiB, or a quarter of the runtime's memory limit
// (GOMEMLIMIT, debug.SetMemoryLimit) when that is smaller; n <= 0
// removes the bound.
func WithMaxBufferedResponseBytes(n int64) Option {
	return optionFunc(func(c *config) { c.maxBufferedResponses = n; c.bufferedResponsesSet = true })
}

// WithBufferedResponseWait sets how long a response waits for room
// under WithMaxBufferedResponseBytes before it gets 503. The default is
// 1 s; d <= 0 does not wait.
func WithBufferedResponseWait(d time.Duration) Option {
	return optionFunc(func(c *config) { c.bufferedResponseWait = max(d, 0) })
}

// WithResponseWriteTimeout bounds the time a client may take to read a
// response counted under WithMaxBufferedResponseBytes (more than 64 KiB;
// for a stream or a WebSocket, one such message): past it the write
// fails, the connection (HTTP/1.1, or a WebSocket's, with no close frame)
// or the stream (HTTP/2) is reset, and the bytes are given back. The
// default is 1 minute, which a 4 MiB response passes at 70 KB/s; d <= 0
// removes the limit, leaving a reader that never reads holding its
// response until it disconnects.
func WithResponseWriteTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.env.Render.WriteTimeout = max(d, 0) })
}

// bufferedResponseBudget is the size of WithMaxBufferedResponseBytes:
// the option's, else the default, at most a quarter of the memory limit.
func (c *config) bufferedResponseBudget() int64 {
	if c.bufferedResponsesSet {
		return c.maxBufferedResponses
	}
	n := int64(defaultMaxBufferedResponses)
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		n = min(n, limit/4)
	}
	return n
}
