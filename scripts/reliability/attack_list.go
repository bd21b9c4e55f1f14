package main

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
)

// largeReply is the upstream reply of the large-reply attacks: 60 MiB,
// under the 64 MiB serve's --max-upstream-message-size defaulted to
// before it followed --max-response-bytes (4 MiB).
const largeReply = 60 << 20

// unaryPath is a unary GET whose answer is 58 KB of JSON (43,000 bytes,
// base64), under the 64 KiB that the response budget once left out.
const unaryPath = "/v1/bytes?value=43000"

// attackList is issue 22's attacks at sizes z.
func attackList(z attackSizes) []attack {
	held := []grpc.ServerOption{grpc.MaxConcurrentStreams(uint32(z.held))}
	return []attack{
		{name: "gzip-bomb", desc: fmt.Sprintf("gzip bomb through the gRPC pass-through: %d calls at once, each one gzipped message that inflates to %s, again as soon as they are answered, for %s", z.bombCalls, mib(int64(z.bombBytes)/1024), z.hold),
			run: func(ctx context.Context, e *attackEnv) string {
				return gzipBomb(ctx, e, z.bombCalls, z.bombBytes, z.hold)
			}},
		{name: "zero-window-unary", desc: fmt.Sprintf("HTTP/2 readers that never open their window (SETTINGS_INITIAL_WINDOW_SIZE 0): %d streams, 100 a connection, each a 58 KB unary answer, held %s", z.windowStreams, z.hold),
			run: func(ctx context.Context, e *attackEnv) string {
				return zeroWindow(ctx, e, z.windowStreams, unaryPath, z.hold)
			}},
		{name: "zero-window-streams", desc: fmt.Sprintf("the same on server streams: %d streams of 64 KiB messages sent as fast as taken, held %s", z.floodStreams, z.hold),
			run: func(ctx context.Context, e *attackEnv) string {
				return zeroWindow(ctx, e, z.floodStreams, "/v1/flood?value=65536", z.hold)
			}},
		{name: "slow-readers", desc: fmt.Sprintf("slow HTTP/1.1 readers: %d connections (4 KiB receive buffers), each a 58 KB unary answer read at 100 bytes/s for %s", z.slowReaders, z.hold),
			run: func(ctx context.Context, e *attackEnv) string { return slowReaders(ctx, e, z.slowReaders, z.hold) }},
		{name: "large-reply", desc: fmt.Sprintf("one 60 MiB upstream reply (a response may be 4 MiB), one after the other for %s", z.hold),
			run: func(ctx context.Context, e *attackEnv) string { return largeReplies(ctx, e, 1, z.hold) }},
		{name: "large-replies", desc: fmt.Sprintf("%d 60 MiB upstream replies at once, again as soon as they are answered, for %s", z.largeBatch, z.hold),
			run: func(ctx context.Context, e *attackEnv) string { return largeReplies(ctx, e, z.largeBatch, z.hold) }},
		{name: "decoding-bomb", desc: fmt.Sprintf("%d JSON bodies at once, each a list of %d zeros (4 MB) that decode to as many google.protobuf.Value, again as soon as they are answered, for %s", z.decodeBodies, decodeValues, z.hold),
			run: func(ctx context.Context, e *attackEnv) string { return decodingBomb(ctx, e, z.decodeBodies, z.hold) }},
		{name: "held-passthrough", upstream: held, desc: fmt.Sprintf("an upstream that allows %d concurrent streams a connection, and %d gRPC pass-through server streams held (over one h2c connection to serve), for %s", z.held, z.held, z.hold),
			run: func(ctx context.Context, e *attackEnv) string { return holdPassThrough(ctx, e, z.held, z.hold) }},
		{name: "held-streams", upstream: held, desc: fmt.Sprintf("the same, %d REST server streams held (GET /v1/hold, HTTP/1.1)", z.held),
			run: func(ctx context.Context, e *attackEnv) string { return holdREST(ctx, e, "/v1/hold", z.held, z.hold) }},
		{name: "held-client-streams", upstream: held, desc: fmt.Sprintf("the same, %d REST client streams held (POST /v1/collect, HTTP/1.1, one message and the body left open)", z.held),
			run: func(ctx context.Context, e *attackEnv) string {
				return holdBodies(ctx, e, "/v1/collect", z.held, z.hold)
			}},
		{name: "held-bidi-streams", upstream: held, desc: fmt.Sprintf("the same, %d REST bidirectional streams held (POST /v1/talk, HTTP/1.1, one message and the body left open)", z.held),
			run: func(ctx context.Context, e *attackEnv) string { return holdBodies(ctx, e, "/v1/talk", z.held, z.hold) }},
		{name: "held-websockets", upstream: held, desc: fmt.Sprintf("the same, %d WebSockets held (on GET /v1/hold, a server stream)", z.held),
			run: func(ctx context.Context, e *attackEnv) string {
				return holdWebSockets(ctx, e, "/v1/hold", z.held, z.hold)
			}},
		{name: "held-unary", upstream: held, desc: fmt.Sprintf("the same, %d slow unary calls held (GET /v1/sleep, HTTP/1.1)", z.slowUnary),
			run: func(ctx context.Context, e *attackEnv) string {
				return holdREST(ctx, e, "/v1/sleep", z.slowUnary, z.hold)
			}},
		{name: "cl-te", desc: fmt.Sprintf("Content-Length with Transfer-Encoding: %d requests, each on a connection of its own with a GET pipelined behind it", z.framing),
			run: func(ctx context.Context, e *attackEnv) string { return clte(ctx, e, z.framing) }},
	}
}
