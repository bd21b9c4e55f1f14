package protocols

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/negotiate"
)

// inbound is a request message as connect-go hands it over: its bytes,
// undecoded, in the call's format (formatOf). The method's request plan
// decodes them once, into the type the method takes (in-process) or
// straight to the wire (remote). connect-go leaves an empty message's
// alone (no Unmarshal): no bytes.
type inbound struct{ data []byte }

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
// *inbound.
func (c *messageCodec) Unmarshal(data []byte, v any) error {
	in, ok := v.(*inbound)
	if !ok {
		return fmt.Errorf("protorest: cannot decode into %T", v)
	}
	in.data = append(in.data[:0], data...)
	return nil
}
