package ws

import (
	"context"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/coder/websocket"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/httperr"
)

// reader reads the request messages of a WebSocket: one per message; an
// empty message ends the stream.
type reader struct {
	conn  *websocket.Conn
	guard *frameGuard
	ctx   context.Context
	x     *exchange.Exchange
	sink  *sink
	typed bool                  // the first message has come
	typ   websocket.MessageType // its type
	ended bool
}

var errClientClosed = status.Error(codes.Canceled, "the client closed the WebSocket")

// failed returns the status of a failed read, and has the sink close with
// the code a protocol failure calls for: the guard's (1002, 1009), or
// 1009 for a message past the read limit (coder/websocket has sent that
// close already).
func (rd *reader) failed(err error) error {
	switch {
	case rd.guard.fail != nil:
		f := rd.guard.fail
		rd.sink.closeWith(f)
		if f.code == websocket.StatusMessageTooBig {
			return httperr.TooLargeMessage(f.reason)
		}
		return status.Error(codes.InvalidArgument, f.reason)
	case errors.Is(err, websocket.ErrMessageTooBig):
		rd.sink.closeWith(&closeFrame{websocket.StatusMessageTooBig, "message larger than the limit"})
		return httperr.TooLargeMessage(err.Error())
	case websocket.CloseStatus(err) != -1:
		return errClientClosed
	}
	return err
}

func (rd *reader) Next() ([]byte, error) {
	if rd.ended {
		return nil, io.EOF
	}
	typ, data, err := rd.conn.Read(rd.ctx)
	if err != nil {
		return nil, rd.failed(err)
	}
	if typ == websocket.MessageText && !utf8.Valid(data) {
		// RFC 6455 §8.1: the connection fails, with 1007.
		const reason = "a text message that is not UTF-8"
		rd.sink.closeWith(&closeFrame{websocket.StatusInvalidFramePayloadData, reason})
		return nil, status.Error(codes.InvalidArgument, reason)
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

// InterruptRead closes the WebSocket, which ends any read; the call has
// ended, and the sink has sent its close frame.
func (rd *reader) InterruptRead() (restore func()) {
	rd.conn.CloseNow()
	return func() {}
}
