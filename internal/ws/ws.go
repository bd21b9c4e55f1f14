// Package ws serves streaming methods over WebSockets. A streaming
// method's route upgrades to a WebSocket when the client asks (GET with
// Upgrade: websocket, whatever the rule's method). Each WebSocket message
// is one gRPC message: text messages carry JSON, binary messages the
// binary wire format; the first message sets the encoding of the
// connection, responses included (text until the client sends binary).
// An empty message ends the client's stream (a half-close); closing the
// WebSocket cancels the call. The close frame carries the outcome: 1000
// for OK, else 4000 plus the gRPC code, with the status message as the
// reason. Messages count against the response budget (render.Config.Budget) as
// a server stream's do: one that finds no room ends the WebSocket with
// 4014, UNAVAILABLE.
package ws

import (
	"context"
	"io"
	"net/http"
	"runtime/debug"

	"github.com/coder/websocket"

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/route"
)

// IsUpgrade reports whether r asks to upgrade to a WebSocket.
func IsUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet &&
		headers.HasToken(r.Header, "Connection", "upgrade") &&
		headers.HasToken(r.Header, "Upgrade", "websocket")
}

// Match finds the streaming method at path, whatever HTTP method its
// rule has: a WebSocket handshake is always a GET.
func Match(t *route.Tree[*exchange.Endpoint], path string, m *route.Match[*exchange.Endpoint]) bool {
	if t.Match(http.MethodGet, path, m) && streaming(m) {
		return true
	}
	for _, method := range t.Allowed(path) {
		if t.Match(method, path, m) && streaming(m) {
			return true
		}
	}
	return false
}

func streaming(m *route.Match[*exchange.Endpoint]) bool {
	b := m.Entry.Value.Binding
	return b != nil && b.Streaming()
}

// Serve runs x's streaming call over a WebSocket: x has its route and
// binding. A rule that serves no request (its request plan's Refusal)
// answers the handshake with that error.
func Serve(x *exchange.Exchange) {
	env, b := x.Env, x.Binding
	if err := checkOrigin(x.R, env.WebSocketOrigins); err != nil {
		x.Fail(err)
		return
	}
	if err := b.Request.Refusal; err != nil {
		x.Fail(err)
		return
	}
	guard := &frameGuard{limit: uint64(env.MaxMessage())}
	conn, err := websocket.Accept(guardedWriter{x.W, guard}, x.R, &websocket.AcceptOptions{OriginPatterns: env.WebSocketOrigins})
	if err != nil {
		return // Accept has answered the handshake with its error
	}
	defer conn.CloseNow()
	defer func() {
		// A bug in the gateway: the connection is hijacked, so the report
		// is a close frame, not a response.
		if v := recover(); v != nil {
			env.PanicHook(b.FullMethod, v, debug.Stack())
			conn.Close(websocket.StatusInternalError, "internal error in the gateway")
		}
	}()
	conn.SetReadLimit(int64(env.MaxMessage()))
	// The call ends when the client closes: the reader cancels it.
	ctx, cancel := context.WithCancel(x.R.Context())
	defer cancel()
	x.R = x.R.WithContext(ctx)
	x.SetInput(env.Formats.JSON)

	sink := &sink{plan: b.Response, formats: env.Formats, serverStreams: b.ServerStreams, conn: conn, ctx: ctx, r: x.R, cfg: &env.Render}
	x.Sink = sink
	rd := &reader{conn: conn, guard: guard, ctx: ctx, x: x, sink: sink}
	if b.ClientStreams {
		x.BindStream(rd, rd)
	} else {
		// A server stream: its request from the URL, and for a rule with a
		// body, from the first message. Later messages are not expected;
		// reading goes on only to see the client close.
		var body []byte
		if b.Request.Body.Kind != bind.BodyNone {
			data, err := rd.Next()
			if err != nil && err != io.EOF {
				sink.Finish(err, nil, nil)
				return
			}
			body = data
		}
		x.BindMessage(body)
		done := make(chan struct{})
		go func() {
			// Read the connection itself, not rd: rd stops at the client's
			// half-close, and the close that may follow must still cancel
			// the call. Nothing read here touches the exchange.
			defer close(done)
			for {
				if _, _, err := conn.Read(ctx); err != nil {
					rd.failed(err)
					cancel()
					return
				}
			}
		}()
		defer func() { conn.CloseNow(); <-done }()
	}
	x.Invoke()
}
