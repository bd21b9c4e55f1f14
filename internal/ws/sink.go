package ws

import (
	"context"
	"net/http"
	"sync"

	"github.com/coder/websocket"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/text"
)

// sink writes the responses of a call to a WebSocket. Header and trailer
// metadata have no place in a WebSocket after its handshake.
type sink struct {
	plan          *render.Response
	formats       *negotiate.Formats
	serverStreams bool
	conn          *websocket.Conn
	ctx           context.Context
	r             *http.Request
	cfg           *render.Config

	mu       sync.Mutex
	binary   bool        // the client sent binary: answer in binary
	closing  *closeFrame // a protocol failure's, or a lost message's: the close it calls for, whatever the call's outcome
	finished bool
	one      render.One // a client stream's one response
}

var _ exchange.Sink = (*sink)(nil)

func (s *sink) setBinary() {
	s.mu.Lock()
	s.binary = true
	s.mu.Unlock()
}

// closeWith makes f the close frame that ends the connection.
func (s *sink) closeWith(f *closeFrame) {
	s.mu.Lock()
	if s.closing == nil {
		s.closing = f
	}
	s.mu.Unlock()
}

func (s *sink) SendHeader(metadata.MD) error { return nil } // the handshake is over

func (s *sink) Send(msg proto.Message, _ metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || s.closing != nil {
		return render.ErrFinished
	}
	if !s.serverStreams {
		return s.one.Keep(msg)
	}
	err := s.write(msg)
	if err == render.ErrBusy {
		// The client has lost a message: the stream ends with the
		// budget's status, whatever the method makes of the error.
		s.closing = s.statusClose(err)
	}
	return err
}

// write sends one message, rendered within the response budget
// (render.Config.Render): it holds its cost until it is written, which
// the write timeout bounds (past it, the connection is closed). The
// caller holds mu.
func (s *sink) write(msg proto.Message) error {
	f, typ := s.formats.JSON, websocket.MessageText
	if s.binary || s.plan.Raw != nil {
		f, typ = s.formats.Binary, websocket.MessageBinary
	}
	body, _, hold, err := s.cfg.Render(s.ctx, s.plan, nil, msg, f)
	if err != nil {
		return err
	}
	defer hold.Release()
	ctx := s.ctx
	if s.cfg.WriteTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.WriteTimeout)
		defer cancel()
	}
	if err := s.conn.Write(ctx, typ, body); err != nil {
		return render.ErrClientGone
	}
	return nil
}

// Finish sends a client stream's response, then closes with the outcome.
func (s *sink) Finish(err error, _, _ metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return
	}
	s.finished = true
	if f := s.closing; f != nil {
		s.conn.Close(f.code, f.reason)
		return
	}
	if !s.serverStreams {
		var msg proto.Message
		if msg, err = s.one.Outcome(err); err == nil {
			err = s.write(msg)
		}
	}
	if err == nil {
		s.conn.Close(websocket.StatusNormalClosure, "")
		return
	}
	f := s.statusClose(err)
	s.conn.Close(f.code, f.reason)
}

// statusClose is the close that reports err: 4000 plus its gRPC code,
// with its message as the reason.
func (s *sink) statusClose(err error) *closeFrame {
	st := s.cfg.StreamStatus(s.r, err)
	return &closeFrame{websocket.StatusCode(4000 + int(st.Code())), text.Cut(st.Message(), maxCloseReason)}
}

// maxCloseReason is what a close frame's reason holds, in bytes.
const maxCloseReason = 123
