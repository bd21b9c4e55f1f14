package protocols

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/bufpool"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/render"
)

var errInternal = errors.New("internal error in the gateway")

// unary makes a unary call: the request's bytes, decoded by the method's
// request plan, go to the invoker; its response and metadata come back
// for connect-go to write.
func (m *method) unary(ctx context.Context, req *connect.Request[inbound]) (*connect.Response[outbound], error) {
	defer req.Msg.release()
	x, c := m.exchange(ctx)
	defer exchange.Put(x)
	setInput(x, c.format)
	x.BindMessage(req.Msg.data)
	return m.callOne(ctx, x, c)
}

// setInput sets x's request format. The query is the protocol's (a
// Connect GET's message), not the request plan's to bind.
func setInput(x *exchange.Exchange, format *negotiate.Format) {
	x.SetInput(format)
	x.Input.RawQuery = ""
}

// callOne calls the method with x's request, for one response, which it
// renders (render.Config.Render: within the response limit, its cost
// taken from the budget until c ends, and its writing timed), in a pooled
// buffer when the plan builds its body (render.Response.Builds): c's,
// given back when c ends.
func (m *method) callOne(ctx context.Context, x *exchange.Exchange, c *call) (*connect.Response[outbound], error) {
	out := &c.one
	x.Sink = out
	x.Invoke()
	if len(out.header)+len(out.trailer) > 0 {
		if info, ok := connect.CallInfoForHandlerContext(ctx); ok {
			writeMetadata(info.ResponseHeader(), out.header)
			writeMetadata(info.ResponseTrailer(), out.trailer)
		}
	}
	if out.err != nil {
		return nil, connectError(out.err)
	}
	if out.msg == nil {
		return nil, connect.NewError(connect.CodeInternal, errors.New("the method sent no response"))
	}
	cfg := &m.s.env.Render
	var dst []byte
	if m.b.Response.Builds() {
		c.buf = bufpool.Get()
		dst = c.buf.AvailableBuffer()
	}
	body, _, cost, err := cfg.Render(ctx, m.b.Response, dst, out.msg, c.format)
	if err != nil {
		if x.Recorder != nil {
			x.Recorder.Ended(err)
		}
		return nil, connectError(err)
	}
	c.cost, c.deadline = cost, render.LimitWrite(c.w, cfg.WriteTimeout)
	c.out.body = body
	c.res = getResponse(&c.out)
	return c.res, nil
}

// one is the exchange.Sink of a call with one response: it keeps what
// the invoker sends for the handler to return.
type one struct {
	msg             proto.Message
	err             error
	header, trailer metadata.MD
}

func (o *one) SendHeader(metadata.MD) error { return nil }

func (o *one) Send(msg proto.Message, _ metadata.MD) error {
	o.msg = msg
	return nil
}

func (o *one) Finish(err error, header, trailer metadata.MD) {
	o.err, o.header, o.trailer = err, header, trailer
}
