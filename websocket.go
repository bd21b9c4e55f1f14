package protorest

import (
	"context"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/coder/websocket"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/text"
)

// WebSocket streams. A streaming method's route upgrades to a WebSocket
// when the client asks (GET with Upgrade: websocket, whatever the rule's
// method). Each WebSocket message is one gRPC message: text messages
// carry JSON, binary messages the binary wire format; the first message
// sets the encoding of the connection, responses included (text until the
// client sends binary). An
// empty message ends the client's stream (a half-close); closing the
// WebSocket cancels the call. The close frame carries the outcome: 1000
// for OK, else 4000 plus the gRPC code, with the status message as the
// reason.

// isWebSocket reports whether r asks to upgrade to a WebSocket.
func isWebSocket(r *http.Request) bool {
	return r.Method == http.MethodGet &&
		headerHasToken(r.Header, "Connection", "upgrade") &&
		headerHasToken(r.Header, "Upgrade", "websocket")
}

func headerHasToken(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// matchWebSocket finds the streaming method at path, whatever HTTP method
// its rule has: a WebSocket handshake is always a GET.
func matchWebSocket(t *route.Tree[*endpoint], path string, m *route.Match[*endpoint]) bool {
	if t.Match(http.MethodGet, path, m) && m.Entry.Value.binding != nil && m.Entry.Value.binding.streaming() {
		return true
	}
	for _, method := range t.Allowed(path) {
		if t.Match(method, path, m) && m.Entry.Value.binding != nil && m.Entry.Value.binding.streaming() {
			return true
		}
	}
	return false
}

// serveWebSocket runs a streaming call over a WebSocket.
func (g *Gateway) serveWebSocket(w http.ResponseWriter, r *http.Request, b *binding, m *route.Match[*endpoint]) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: g.cfg.wsOrigins})
	if err != nil {
		return // Accept has answered the handshake with its error
	}
	defer conn.CloseNow()
	defer func() {
		// A bug in the gateway: the connection is hijacked, so the report
		// is a close frame, not a response.
		if v := recover(); v != nil {
			g.cfg.panicHook(b.fullMethod, v, debug.Stack())
			conn.Close(websocket.StatusInternalError, "internal error in the gateway")
		}
	}()
	conn.SetReadLimit(int64(g.maxMessage()))
	// The call ends when the client closes: the reader cancels it.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	r = r.WithContext(ctx)

	sink := &wsSink{g: g, b: b, conn: conn, ctx: ctx}
	ws := &wsReader{conn: conn, ctx: ctx, sink: sink}
	var src messageSource
	switch {
	case b.clientStreams:
		bs := &bodySource{req: request{g: g, r: r, b: b, m: m, in: g.codecs.list[0]}, reader: ws}
		ws.source = bs
		src = bs
	default:
		// A server stream: its request from the URL, and for a rule with a
		// body, from the first message. Later messages are not expected;
		// reading goes on only to see the client close.
		req := request{g: g, r: r, b: b, m: m, in: g.codecs.list[0]}
		if b.body.kind != bodyNone {
			data, err := ws.Next()
			if err != nil && err != io.EOF {
				sink.finish(err, nil, nil)
				return
			}
			req.body = data
			req.in = g.codecs.list[ws.codec]
		}
		src = &singleSource{req: req}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				if _, err := ws.Next(); err != nil && err != io.EOF {
					cancel()
					return
				}
			}
		}()
		defer func() { conn.CloseNow(); <-done }()
	}
	if b.conn != nil {
		g.streamRemote(r, b, src, sink)
	} else {
		g.streamLocal(r, b, src, sink)
	}
}

// wsReader reads the request messages of a WebSocket: one per message; an
// empty message ends the stream.
type wsReader struct {
	conn   *websocket.Conn
	ctx    context.Context
	sink   *wsSink
	source *bodySource           // of a client stream, whose codec follows the messages
	typed  bool                  // the first message has come
	typ    websocket.MessageType // its type
	codec  int                   // 0 for text (JSON), else the binary codec
	ended  bool
}

var errClientClosed = status.Error(codes.Canceled, "the client closed the WebSocket")

func (ws *wsReader) Next() ([]byte, error) {
	if ws.ended {
		return nil, io.EOF
	}
	typ, data, err := ws.conn.Read(ws.ctx)
	if err != nil {
		if websocket.CloseStatus(err) != -1 {
			return nil, errClientClosed
		}
		return nil, err
	}
	if len(data) == 0 {
		ws.ended = true
		return nil, io.EOF
	}
	// The first message sets the encoding of the connection, both ways;
	// it is set before that message is handed on, and never changes.
	if !ws.typed {
		ws.typed, ws.typ = true, typ
		if typ == websocket.MessageBinary {
			ws.codec = ws.sink.g.codecs.binary
			ws.sink.setBinary()
		}
		if ws.source != nil {
			ws.source.req.in = ws.sink.g.codecs.list[ws.codec]
		}
	} else if typ != ws.typ {
		return nil, status.Error(codes.InvalidArgument, "a text and a binary message in one stream: the first message sets the encoding")
	}
	return data, nil
}

// wsSink writes the responses of a call to a WebSocket.
type wsSink struct {
	g    *Gateway
	b    *binding
	conn *websocket.Conn
	ctx  context.Context

	mu       sync.Mutex
	binary   bool // the client sent binary: answer in binary
	finished bool
	response proto.Message // a client stream's one response
}

func (s *wsSink) setBinary() {
	s.mu.Lock()
	s.binary = true
	s.mu.Unlock()
}

func (s *wsSink) sendHeader(metadata.MD) error { return nil } // the handshake is over

func (s *wsSink) send(msg proto.Message, _ metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return errStreamFinished
	}
	if !s.b.serverStreams {
		if s.response != nil {
			return status.Error(codes.Internal, "a second response to a call that is not server-streaming")
		}
		s.response = msg
		return nil
	}
	return s.write(msg)
}

// write sends one message; the caller holds mu.
func (s *wsSink) write(msg proto.Message) error {
	out, typ := 0, websocket.MessageText
	if s.binary || s.b.response.raw != nil {
		out, typ = s.g.codecs.binary, websocket.MessageBinary
	}
	body, _, err := s.g.encodeResponse(s.b, msg, out)
	if err != nil {
		return err
	}
	if err := s.conn.Write(s.ctx, typ, body); err != nil {
		return status.Error(codes.Canceled, "the client went away")
	}
	return nil
}

// finish sends a client stream's response, then closes with the outcome.
func (s *wsSink) finish(err error, _, _ metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return
	}
	s.finished = true
	if err == nil && !s.b.serverStreams {
		if s.response == nil {
			err = status.Error(codes.Internal, "the method returned no response")
		} else {
			err = s.write(s.response)
		}
	}
	if err == nil {
		s.conn.Close(websocket.StatusNormalClosure, "")
		return
	}
	st := toStatus(err)
	s.conn.Close(websocket.StatusCode(4000+int(st.Code())), closeReason(st.Message()))
}

// interruptRead: finish has closed the WebSocket, which ends any read.
func (s *wsSink) interruptRead() func() {
	s.conn.CloseNow()
	return func() {}
}

// closeReason cuts a status message to what a close frame holds (123
// bytes), on a UTF-8 boundary.
func closeReason(msg string) string { return text.Cut(msg, 123) }
