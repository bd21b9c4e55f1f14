// Package codec holds the message codecs protorest speaks: the proto3 JSON
// mapping and the protobuf binary format. Both implement the same two-method
// shape as protorest.Codec, so a user's codec and a built-in one are
// interchangeable.
package codec

import (
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/jsondec"
	"github.com/protorest/protorest/internal/jsonenc"
	"github.com/protorest/protorest/internal/jsonscan"
)

// Media types of the built-in codecs.
const (
	MediaJSON         = "application/json"
	MediaProto        = "application/proto"
	MediaProtobuf     = "application/protobuf"
	MediaXProtobuf    = "application/x-protobuf"
	MediaOctetStream  = "application/octet-stream"
	defaultJSONDepth  = 100
	recursionHeadroom = 10000
)

// ErrTooLarge is the error of an encoding that would pass the limit it
// was given.
var ErrTooLarge = jsonenc.ErrTooLarge

// Codec marshals and unmarshals messages for one media type.
type Codec interface {
	Marshal(m proto.Message) ([]byte, error)
	Unmarshal(data []byte, m proto.Message) error
}

// JSON is the proto3 JSON mapping. It writes with the compiled encoder of
// internal/jsonenc, identical to protojson's output, and falls back to
// protojson for what that does not compile (Multiline output, messages
// with extensions); it reads with the compiled decoder of internal/jsondec,
// which leaves to protojson what it does not decide by itself (errors
// included, so they read as protojson's). MaxDepth bounds the nesting of
// objects and arrays in input (0 means 100); deeper input is rejected
// before protojson sees it. MaxBytes bounds what AppendMarshal,
// AppendWire and AppendField write (0: no limit; see
// jsonenc.Options.MaxBytes): past it they fail with jsonenc.ErrTooLarge,
// the compiled encoder as soon as it passes it, protojson once it is
// done (jsonenc.ErrTooLarge is ErrTooLarge). The options must not change after first use.
type JSON struct {
	MarshalOptions   protojson.MarshalOptions
	UnmarshalOptions protojson.UnmarshalOptions
	MaxDepth         int
	MaxBytes         int

	once      sync.Once
	enc       *jsonenc.Encoder
	fieldOnce sync.Once
	fieldEnc  *jsonenc.Encoder // with EmitUnpopulated, for AppendField
	decOnce   sync.Once
	dec       *jsondec.Decoder
}

func (c *JSON) encoder() *jsonenc.Encoder {
	c.once.Do(func() { c.enc = newEncoder(c.MarshalOptions, c.MaxBytes) })
	return c.enc
}

func newEncoder(o protojson.MarshalOptions, maxBytes int) *jsonenc.Encoder {
	return jsonenc.New(jsonenc.Options{
		UseProtoNames: o.UseProtoNames, UseEnumNumbers: o.UseEnumNumbers,
		EmitUnpopulated: o.EmitUnpopulated, EmitDefaultValues: o.EmitDefaultValues,
		AllowPartial: o.AllowPartial, Resolver: o.Resolver, MaxBytes: maxBytes,
	})
}

// within is out, protojson's output appended to b, or ErrTooLarge when it
// passes MaxBytes.
func (c *JSON) within(out []byte, err error) ([]byte, error) {
	if err == nil && c.MaxBytes > 0 && len(out) > c.MaxBytes {
		return out, jsonenc.ErrTooLarge
	}
	return out, err
}

// AppendField appends the JSON value of field fd of m (a response_body
// that is not a message) as Marshal writes it inside a message of its
// own with EmitUnpopulated set: an unset list is [], an unset scalar its
// default. Only the field is encoded; the compiled encoder writes it where
// it can, else the message is marshalled with protojson and the field's
// value taken from its output.
func (c *JSON) AppendField(b []byte, m proto.Message, fd protoreflect.FieldDescriptor) ([]byte, error) {
	if c.compiled() {
		c.fieldOnce.Do(func() {
			o := c.MarshalOptions
			o.EmitUnpopulated = true
			c.fieldEnc = newEncoder(o, c.MaxBytes)
		})
		out, err := c.fieldEnc.AppendField(b, m, fd)
		if !errors.Is(err, jsonenc.ErrUnsupported) {
			return out, err
		}
	}
	v, err := c.fieldOf(m.ProtoReflect(), fd)
	return c.within(append(b, v...), err)
}

// fieldOf is AppendField through protojson: a message holding only fd,
// marshalled with EmitUnpopulated, and fd's value read from the result.
func (c *JSON) fieldOf(m protoreflect.Message, fd protoreflect.FieldDescriptor) ([]byte, error) {
	tmp := m.New()
	if m.Has(fd) {
		tmp.Set(fd, m.Get(fd))
	}
	opts := c.MarshalOptions
	opts.EmitUnpopulated = true
	whole, err := opts.Marshal(tmp.Interface())
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(jsonscan.Compact(whole), &fields); err != nil {
		return nil, err
	}
	key := fd.JSONName()
	if opts.UseProtoNames {
		key = string(fd.Name())
	}
	return fields[key], nil
}

// AppendMarshal appends the JSON form of m to b, as Marshal writes it.
func (c *JSON) AppendMarshal(b []byte, m proto.Message) ([]byte, error) {
	if c.compiled() {
		out, err := c.encoder().Append(b, m)
		if !errors.Is(err, jsonenc.ErrUnsupported) {
			return out, err
		}
	}
	out, err := c.MarshalOptions.MarshalAppend(b, m)
	if err != nil || c.MarshalOptions.Multiline {
		return c.within(out, err)
	}
	return c.within(append(b, jsonscan.Compact(out[len(b):])...), nil)
}

// compiled reports whether the compiled encoder writes with these
// options: all but Multiline (and Indent) output.
func (c *JSON) compiled() bool {
	return !c.MarshalOptions.Multiline && c.MarshalOptions.Indent == ""
}

// AppendWire appends the JSON form of the message of type md encoded in
// data (see jsonenc.Encoder.AppendWire); jsonenc.ErrUnsupported means
// unmarshal it and use AppendMarshal.
func (c *JSON) AppendWire(b []byte, md protoreflect.MessageDescriptor, data []byte) ([]byte, error) {
	if !c.compiled() {
		return b, jsonenc.ErrUnsupported
	}
	return c.encoder().AppendWire(b, md, data)
}

// Marshal encodes m as JSON. Unless Multiline is set, the output is
// compact: protojson deliberately inserts random spaces to keep callers
// from depending on its bytes, but an HTTP API's bytes are observable, so
// they are taken out again (the compiled encoder writes none).
func (c *JSON) Marshal(m proto.Message) ([]byte, error) {
	return c.AppendMarshal(nil, m)
}

// Unmarshal decodes data into m. An empty or whitespace-only input leaves
// m as it is, as an empty object would.
func (c *JSON) Unmarshal(data []byte, m proto.Message) error {
	if jsonscan.IsBlank(data) {
		return nil
	}
	dec := c.decoder()
	if dec.TryUnmarshal(data, m) {
		return nil // within maxDepth: the decoder checked as it went
	}
	max := c.maxDepth()
	if depth := jsonscan.NestingDepth(data, max); depth > max {
		return &DepthError{Max: max}
	}
	return dec.Protojson(data, m)
}

// AppendProto appends the protobuf wire form of the message of type md
// that data holds in JSON, read as Unmarshal reads it, without building
// the message (see jsondec.Decoder.AppendWire). ok is false when that is
// not done (dst is returned as it was): Unmarshal into a message, and
// marshal it.
func (c *JSON) AppendProto(dst []byte, md protoreflect.MessageDescriptor, data []byte) ([]byte, bool) {
	if jsonscan.IsBlank(data) {
		return dst, false
	}
	return c.decoder().AppendWire(dst, md, data)
}

func (c *JSON) maxDepth() int {
	if c.MaxDepth == 0 {
		return defaultJSONDepth
	}
	return c.MaxDepth
}

func (c *JSON) decoder() *jsondec.Decoder {
	c.decOnce.Do(func() {
		opts := c.UnmarshalOptions
		if opts.RecursionLimit == 0 {
			// The depth limit is the real one; protojson counts message
			// levels (a Struct costs several per JSON level), so it must
			// not reject first.
			opts.RecursionLimit = recursionHeadroom
		}
		c.dec = jsondec.New(opts, c.maxDepth())
	})
	return c.dec
}

// TryUnmarshalField reads data, one JSON value, as the value of field fd
// of m (a request body bound to a field that is not a message), as
// protojson reads it inside an object of m's type: true when the compiled
// decoder decided, false when the caller must use protojson (fd is then
// unset).
func (c *JSON) TryUnmarshalField(data []byte, m proto.Message, fd protoreflect.FieldDescriptor) bool {
	return c.decoder().TryUnmarshalField(data, m, fd)
}

// DepthError reports JSON input nested deeper than the configured limit.
type DepthError struct{ Max int }

func (e *DepthError) Error() string {
	return "JSON nesting exceeds the maximum depth of " + strconv.Itoa(e.Max)
}
