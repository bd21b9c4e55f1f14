package protocols

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/bufpool"
	"github.com/protorest/protorest/internal/negotiate"
)

// inbound is a request message as connect-go hands it over: its bytes,
// undecoded, in the call's format (formatOf), in a pooled buffer. The
// method's request plan decodes them once, into the type the method
// takes (in-process) or straight to the wire (remote), as REST's pooled
// body is. connect-go leaves an empty message's alone (no Unmarshal): no
// bytes.
type inbound struct {
	data []byte
	buf  *bytes.Buffer // holds data; nil before the first message
}

// release gives in's buffer back, once the call is over: its bytes are
// read no more.
func (in *inbound) release() {
	if in.buf != nil {
		bufpool.Put(in.buf)
		in.buf, in.data = nil, nil
	}
}

// outbound is a response message for connect-go to write, already
// encoded by the method's response plan (render.Config.Render).
type outbound struct{ body []byte }

// messageCodec is a connect.Codec for one format: it keeps a request's
// bytes as they are (inbound) and writes a response's as they were
// encoded (outbound).
type messageCodec struct {
	name   string // the codec's name in a Content-Type: "proto", "json"
	format *negotiate.Format
}

func (c *messageCodec) Name() string { return c.name }

func (c *messageCodec) Marshal(v any) ([]byte, error) { return c.MarshalAppend(nil, v) }

// MarshalAppend appends v, an *outbound, to dst; or encodes a message
// of connect-go's own (gRPC's status details), in the codec's format.
func (c *messageCodec) MarshalAppend(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case *outbound:
		return append(dst, v.body...), nil
	case proto.Message:
		if c.format.Proto {
			return proto.MarshalOptions{}.MarshalAppend(dst, v)
		}
		return c.format.JSON.AppendMarshal(dst, v)
	}
	return nil, fmt.Errorf("protorest: cannot encode %T", v)
}

// Unmarshal keeps a copy of data (connect-go reuses its buffer) in v, an
// *inbound, in its pooled buffer.
func (c *messageCodec) Unmarshal(data []byte, v any) error {
	in, ok := v.(*inbound)
	if !ok {
		return fmt.Errorf("protorest: cannot decode into %T", v)
	}
	if in.buf == nil {
		in.buf = bufpool.Get()
	}
	in.buf.Reset()
	in.buf.Write(data)
	in.data = in.buf.Bytes()
	return nil
}
