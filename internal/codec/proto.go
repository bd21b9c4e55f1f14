package codec

import "google.golang.org/protobuf/proto"

// Proto is the protobuf binary format.
type Proto struct{}

// Marshal encodes m in the binary wire format.
func (Proto) Marshal(m proto.Message) ([]byte, error) { return proto.Marshal(m) }

// Unmarshal decodes the binary wire format into m.
func (Proto) Unmarshal(data []byte, m proto.Message) error {
	return proto.UnmarshalOptions{Merge: true}.Unmarshal(data, m)
}
