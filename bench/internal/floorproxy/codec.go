package floorproxy

import "fmt"

// rawCodec is a gRPC codec of messages already encoded: it sends a
// *[]byte as it is and receives into one, so that the proxy builds and
// reads the Protobuf bytes itself.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("floorproxy: cannot send a %T", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("floorproxy: cannot receive into a %T", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

// Name is "proto": the backend reads the bytes as the Protobuf they are.
func (rawCodec) Name() string { return "proto" }
