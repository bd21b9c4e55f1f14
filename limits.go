package protorest

import (
	"time"

	"github.com/protorest/protorest/internal/config"
)

// WithMaxRequestBodySize limits request bodies to n bytes; a larger one
// gets 413 with a RESOURCE_EXHAUSTED status, and no more than n+1 bytes
// are read. The default is 4 MiB; n <= 0 removes the limit.
func WithMaxRequestBodySize(n int64) Option {
	return optionFunc(func(c *config.Config) { c.Limits.MaxBody = n })
}

// WithMaxDecodingBytes bounds the bytes the request bodies of
// one-message calls hold at once, across requests, from their first byte
// read until the call ends: each its bytes, twelve times them for what
// decoding them holds (a JSON list of google.protobuf.Value takes that),
// a zstd or gzip decoder's state, and 16 KiB. A body that finds no room
// waits (WithBufferedResponseWait), then gets 503 UNAVAILABLE with
// "Retry-After: 1". The default is 128 MiB, or a quarter of the runtime's
// memory limit (GOMEMLIMIT) when that is smaller; n <= 0 removes it.
func WithMaxDecodingBytes(n int64) Option {
	return optionFunc(func(c *config.Config) { c.Limits.MaxDecoding = max(n, 0) })
}

// WithMaxJSONDepth limits the nesting of objects and arrays in a JSON
// request body; deeper input gets 400. The default is 100.
func WithMaxJSONDepth(n int) Option {
	return optionFunc(func(c *config.Config) { c.Limits.MaxJSONDepth = n })
}

// WithMaxURLBytes limits the request target (the escaped path and the
// query) to n bytes; a longer one gets 414 with a RESOURCE_EXHAUSTED
// status. The default is 16 KiB; n <= 0 removes the limit.
func WithMaxURLBytes(n int) Option {
	return optionFunc(func(c *config.Config) { c.Limits.MaxURLBytes = max(n, 0) })
}

// WithMaxHeaders limits a request to n header lines; more get 431 with a
// RESOURCE_EXHAUSTED status. The default is 100; n <= 0 removes the
// limit. (The size of the header is the http.Server's MaxHeaderBytes.)
func WithMaxHeaders(n int) Option {
	return optionFunc(func(c *config.Config) { c.Limits.MaxHeaders = max(n, 0) })
}

// WithMaxQueryParameters limits a request to n query parameters; more get
// 400 INVALID_ARGUMENT before any is parsed. The default is 1,000; n <= 0
// removes the limit.
func WithMaxQueryParameters(n int) Option {
	return optionFunc(func(c *config.Config) { c.Limits.MaxQueryParams = max(n, 0) })
}

// WithMaxMetadataBytes limits the metadata a call forwards to its method
// (keys and values, and 32 bytes for each pair, as HTTP/2 counts a header
// list; gRPC's C and Java servers refuse more than 8 KiB); a request over
// it gets 431 with a RESOURCE_EXHAUSTED status and the method is not
// called. The default is 8 KiB; n <= 0 removes the limit.
func WithMaxMetadataBytes(n int) Option {
	return optionFunc(func(c *config.Config) { c.Headers.MaxMetadataBytes = max(n, 0) })
}

// WithDefaultTimeout sets the deadline of a unary call whose request has
// no Grpc-Timeout header (streams get none: they last as long as their
// client). By default the library sets none; protorest serve sets 30 s
// (--default-timeout), so that a hung upstream cannot hold a request for
// ever. d <= 0 sets none.
func WithDefaultTimeout(d time.Duration) Option {
	return optionFunc(func(c *config.Config) { c.Headers.DefaultTimeout = max(d, 0) })
}

// WithMaxTimeout sets the longest deadline a Grpc-Timeout header may ask
// for; a longer one is cut to it. The default is 5 minutes; d <= 0 takes
// every Grpc-Timeout as it is.
func WithMaxTimeout(d time.Duration) Option {
	return optionFunc(func(c *config.Config) { c.Headers.MaxTimeout = max(d, 0) })
}

// WithReadIdleTimeout sets the longest wait for the next bytes of a
// request body: a read that waits longer fails, the request gets 408
// DEADLINE_EXCEEDED (in-band once a stream's response has started), the
// call is canceled, and an HTTP/1.1 connection is closed. Past d, a body
// must also keep coming at 500 bytes/s on average. A request stream's
// wait between messages is WithStreamIdleTimeout's. The default is 30 s;
// d <= 0 sets none. A middleware between the server and the gateway must
// implement Unwrap: reads are cut with http.ResponseController.
func WithReadIdleTimeout(d time.Duration) Option {
	return optionFunc(func(c *config.Config) { c.Limits.ReadIdleTimeout = max(d, 0) })
}

// WithStreamIdleTimeout ends a streaming call (server, client or
// bidirectional, over HTTP or a WebSocket) that passes no message, either
// way, for d: the call is canceled, and the response ends with a
// DEADLINE_EXCEEDED status: 408 if it has not started, else the stream's
// in-band error, or for a WebSocket the close code 4004 (4000 + the
// code). The default is 5 minutes, Envoy's stream_idle_timeout; d <= 0
// sets none.
func WithStreamIdleTimeout(d time.Duration) Option {
	return optionFunc(func(c *config.Config) { c.Limits.StreamIdleTimeout = max(d, 0) })
}

// WithMaxResponseBytes limits the encoded body of a response, and each
// message of a server stream or a WebSocket, to n bytes: past it the
// client gets 500 INTERNAL "response too large" and none of the body
// (in-band once a stream has started), as with Envoy's
// max_response_body_size: a limit of the server's, which a retry cannot
// fix. A remote backend's messages are held to n bytes of their protobuf
// encoding as they arrive (WithMaxBackendMessageBytes sets another limit
// there). The default is 4 MiB; n <= 0 removes the limit.
func WithMaxResponseBytes(n int) Option {
	return optionFunc(func(c *config.Config) { c.Response.MaxBytes = max(n, 0) })
}

// WithMaxBufferedResponseBytes bounds the bytes the gateway holds at
// once, across requests, to encode responses (for a stream or a
// WebSocket, each message) and write them until the client has taken
// them, 16 KiB a response counted besides its body. A response that finds
// no room waits, in order of arrival, and past WithBufferedResponseWait
// gets 503 UNAVAILABLE with "Retry-After: 1" (a WebSocket, the close
// 4014). The default is 128 MiB, or a quarter of the runtime's memory
// limit (GOMEMLIMIT) when that is smaller; n <= 0 removes the bound.
// docs/reference.md (Limits) says what a response holds, and when.
func WithMaxBufferedResponseBytes(n int64) Option {
	return optionFunc(func(c *config.Config) { c.Response.MaxBuffered = n })
}

// WithMaxBufferedResponseBytesPerConn bounds what one client connection's
// responses hold of WithMaxBufferedResponseBytes, so that a client that
// reads nothing cannot take it all: past it, the connection's responses
// wait for its own to be written, as above, as many at once as it has
// room for 16 KiB (32); more get 503 at once. A connection that holds
// nothing may go past it with one response. It needs the http.Server's
// ConnContext to be NewServer's. The default is 512 KiB; n <= 0 removes it.
func WithMaxBufferedResponseBytesPerConn(n int64) Option {
	return optionFunc(func(c *config.Config) { c.Response.PerConn = max(n, 0) })
}

// WithBufferedResponseWait sets how long a response waits for room under
// WithMaxBufferedResponseBytes before it gets 503 (at most 128 wait; more
// get it at once). The default is 1 s; d <= 0 does not wait.
func WithBufferedResponseWait(d time.Duration) Option {
	return optionFunc(func(c *config.Config) { c.Response.BufferedWait = max(d, 0) })
}

// WithResponseWriteTimeout bounds the time a client may take to read a
// response (for a stream or a WebSocket, each message), errors included:
// past it the write fails, the connection (HTTP/1.1, or a WebSocket's,
// with no close frame) or the stream (HTTP/2) is reset, and the bytes are
// given back. An error response that found no room in the budget has
// 250 ms. The default is 1 minute, which a 4 MiB response passes at
// 70 KB/s; d <= 0 removes the limit.
func WithResponseWriteTimeout(d time.Duration) Option {
	return optionFunc(func(c *config.Config) { c.Response.WriteTimeout = max(d, 0) })
}
