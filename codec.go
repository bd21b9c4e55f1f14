package protorest

import (
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/config"
	"github.com/protorest/protorest/internal/negotiate"
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

// WithCodec registers c for mediaType (e.g. "application/yaml"), for both
// request bodies (by Content-Type) and responses (by Accept). It replaces
// a built-in codec of the same media type.
func WithCodec(mediaType string, c Codec) Option {
	return optionFunc(func(cfg *config.Config) {
		cfg.Codecs.Extra = append(cfg.Codecs.Extra, negotiate.NamedCodec{Media: mediaType, Codec: c})
	})
}

// WithMarshalOptions sets how responses are written as JSON. The default
// is protojson.MarshalOptions{EmitUnpopulated: true}, grpc-gateway's: every
// field appears, with its default value when unset. Set UseProtoNames for
// proto field names, UseEnumNumbers for enums as numbers, EmitUnpopulated
// false to omit default values. Resolver defaults to the gateway's types
// (WithTypes).
func WithMarshalOptions(o protojson.MarshalOptions) Option {
	return optionFunc(func(c *config.Config) { c.Codecs.Marshal = o })
}

// WithUnmarshalOptions sets how JSON request bodies are read. The default
// is protojson.UnmarshalOptions{DiscardUnknown: true}: unknown fields and
// unknown enum names are ignored. Set DiscardUnknown false to reject them.
func WithUnmarshalOptions(o protojson.UnmarshalOptions) Option {
	return optionFunc(func(c *config.Config) { c.Codecs.Unmarshal = o })
}

// WithTypes sets the types used to resolve google.protobuf.Any values in
// JSON, error details included. The default is protoregistry.GlobalTypes.
func WithTypes(types *protoregistry.Types) Option {
	return optionFunc(func(c *config.Config) { c.Codecs.Types = types })
}
