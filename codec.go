package protorest

import "google.golang.org/protobuf/proto"

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
