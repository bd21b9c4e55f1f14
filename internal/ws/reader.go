package ws

import (
	"context"
	"io"

	"github.com/coder/websocket"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/exchange"
)

// reader reads the request messages of a WebSocket: one per message; an
// empty message ends the stream.
type reader struct {
	conn  *websocket.Conn
	ctx   context.Context
	x     *exchange.Exchange
	sink  *sink
	typed bool                  // the first message has come
	typ   websocket.MessageType // its type
	ended bool
}

var errClientClosed = status.Error(codes.Canceled, "the client closed the WebSocket")

func (rd *reader) Next() ([]byte, error) {
	if rd.ended {
		return nil, io.EOF
	}
	typ, data, err := rd.conn.Read(rd.ctx)
	if err != nil {
		if websocket.CloseStatus(err) != -1 {
			return nil, errClientClosed
		}
		return nil, err
	}
	if len(data) == 0 {
		rd.ended = true
		return nil, io.EOF
	}
	// The first message sets the encoding of the connection, both ways;
	// it is set before that message is handed on, and never changes.
	if !rd.typed {
		rd.typed, rd.typ = true, typ
		if typ == websocket.MessageBinary {
			rd.x.Input.Format = rd.x.Env.Formats.Binary
			rd.sink.setBinary()
		}
	} else if typ != rd.typ {
		return nil, status.Error(codes.InvalidArgument, "a text and a binary message in one stream: the first message sets the encoding")
	}
	return data, nil
}
