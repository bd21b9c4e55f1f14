package protorest

import "time"

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
)

// WithMaxURLBytes limits the request target (the escaped path and the
// query) to n bytes; a longer one gets 414 with a RESOURCE_EXHAUSTED
// status. The default is 16 KiB; n <= 0 removes the limit.
func WithMaxURLBytes(n int) Option {
	return optionFunc(func(c *config) { c.maxURLBytes = n })
}

// WithMaxHeaders limits a request to n header lines; more get 431 with a
// RESOURCE_EXHAUSTED status. The default is 100; n <= 0 removes the
// limit. (The size of the header is the http.Server's MaxHeaderBytes.)
func WithMaxHeaders(n int) Option {
	return optionFunc(func(c *config) { c.maxHeaders = n })
}

// WithMaxQueryParameters limits a request to n query parameters; more get
// 400 INVALID_ARGUMENT before any is parsed. The default is 1,000; n <= 0
// removes the limit.
func WithMaxQueryParameters(n int) Option {
	return optionFunc(func(c *config) { c.maxQueryParams = n })
}

// WithMaxMetadataBytes limits the metadata a call forwards to its method
// (keys and values, and 32 bytes for each pair, as HTTP/2 counts a header
// list; gRPC's C and Java servers refuse more than 8 KiB); a request over
// it gets 431 with a RESOURCE_EXHAUSTED status and the method is not
// called. The default is 8 KiB; n <= 0 removes the limit.
func WithMaxMetadataBytes(n int) Option {
	return optionFunc(func(c *config) { c.maxMetadataBytes = n })
}

// WithDefaultTimeout sets the deadline of a unary call whose request has
// no Grpc-Timeout header (streams get none: they last as long as their
// client). By default the library sets none: a deadline costs four
// allocations on the in-process path, whose handler the program runs
// itself; protorest serve sets 30 s (--default-timeout), so that a hung
// upstream cannot hold a request for ever. d <= 0 sets none.
func WithDefaultTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.defaultTimeout = max(d, 0) })
}

// WithMaxTimeout sets the longest deadline a Grpc-Timeout header may ask
// for; a longer one is cut to it. The default is 5 minutes; d <= 0 takes
// every Grpc-Timeout as it is.
func WithMaxTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.maxTimeout = max(d, 0) })
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
	return optionFunc(func(c *config) { c.readIdleTimeout = max(d, 0) })
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
	return optionFunc(func(c *config) { c.streamIdle = max(d, 0) })
}
