package main

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// encoded is a message already encoded, which the helper's upstream
// sends as it is (codec, which runAttacks registers): a reply of 60 MiB
// built once, not allocated and encoded for each call, whose garbage
// would slow the legitimate client that runs in this process too.
type encoded []byte

// codec is protobuf's codec, except that an encoded is sent as it is;
// the attacks register it in place of grpc-go's (encoding.RegisterCodec,
// which grpc.ForceServerCodec would do for one server, but that API is
// experimental).
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if e, ok := v.(encoded); ok {
		return e, nil
	}
	return proto.Marshal(v.(proto.Message))
}

func (codec) Unmarshal(data []byte, v any) error { return proto.Unmarshal(data, v.(proto.Message)) }

func (codec) Name() string { return "proto" }

// zeroReplies holds the encoded google.protobuf.BytesValue of n zero
// bytes, by n.
var zeroReplies sync.Map // int64 -> encoded

// zeros returns the encoded google.protobuf.BytesValue of n zero bytes,
// encoding it the first time.
func zeros(n int64) encoded {
	if e, ok := zeroReplies.Load(n); ok {
		return e.(encoded)
	}
	b, _ := proto.Marshal(wrapperspb.Bytes(make([]byte, n)))
	e, _ := zeroReplies.LoadOrStore(n, encoded(b))
	return e.(encoded)
}
