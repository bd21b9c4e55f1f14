package protorest

import (
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/codec"
)

// A Codec reads and writes messages in one media type. The gateway ships
// codecs for application/json (the proto3 JSON mapping) and for
// application/proto, application/protobuf and application/x-protobuf (the
// binary wire format); WithCodec adds or replaces one.
//
// Unmarshal is given a message that may already hold fields; like
// proto.Unmarshal it should replace what the input sets.
type Codec interface {
	Marshal(m proto.Message) ([]byte, error)
	Unmarshal(data []byte, m proto.Message) error
}

type namedCodec struct {
	mediaType string
	codec     Codec
}

// codecs is the gateway's media-type table: types[i] is served by
// list[i]. Index 0 is always JSON, the fallback.
type codecs struct {
	types []string
	list  []Codec
	json  *codec.JSON // the built-in JSON codec, also used for errors and scalar bodies
	// binary is the index of application/proto, for WebSocket binary
	// messages.
	binary int
}

func newCodecs(c *config, types *resolver) codecs {
	j := &codec.JSON{MarshalOptions: c.marshal, UnmarshalOptions: c.unmarshal, MaxDepth: c.maxDepth}
	if j.MarshalOptions.Resolver == nil {
		j.MarshalOptions.Resolver = types
	}
	if j.UnmarshalOptions.Resolver == nil {
		j.UnmarshalOptions.Resolver = types
	}
	cs := codecs{json: j}
	add := func(mt string, cd Codec) {
		for i, t := range cs.types {
			if t == mt {
				cs.list[i] = cd
				return
			}
		}
		cs.types = append(cs.types, mt)
		cs.list = append(cs.list, cd)
	}
	add(codec.MediaJSON, j)
	cs.binary = len(cs.types)
	for _, mt := range []string{codec.MediaProto, codec.MediaProtobuf, codec.MediaXProtobuf} {
		add(mt, codec.Proto{})
	}
	for _, nc := range c.codecs {
		add(nc.mediaType, nc.codec)
	}
	return cs
}
