// Package jsonenc writes protobuf messages as JSON exactly as protojson
// does (compact, without protojson's random spaces), from plans compiled
// once per message type: the field order, each field's pre-encoded key and
// a writer specialised for its kind, with the well-known types handled
// apart. It appends into the caller's buffer.
//
// What it does not compile it leaves to protojson: Multiline output, and
// messages that can hold extensions or are MessageSets (Append returns
// ErrUnsupported).
// Its equivalence with protojson is what its tests are about.
package jsonenc

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protorest/protorest/internal/plancache"
)

// Options are protojson.MarshalOptions' options that change the output.
type Options struct {
	UseProtoNames     bool
	UseEnumNumbers    bool
	EmitUnpopulated   bool
	EmitDefaultValues bool
	AllowPartial      bool
	// Resolver finds the types of google.protobuf.Any values; nil means
	// protoregistry.GlobalTypes.
	Resolver interface {
		protoregistry.MessageTypeResolver
		protoregistry.ExtensionTypeResolver
	}
}

// Encoder writes messages as JSON. It is safe for concurrent use; plans
// are built on first use of each message type and kept.
type Encoder struct {
	opts  Options
	plans plancache.Cache[*plan]
}

// maxPlans bounds the plan cache: descriptors that come and go (a remote
// backend's, reloaded as it changes) must not pile up. Past it the cache
// starts over, and plans are built again as they are used.
var maxPlans int64 = 1 << 14

// New returns an encoder with opts.
func New(opts Options) *Encoder {
	if opts.Resolver == nil {
		opts.Resolver = protoregistry.GlobalTypes
	}
	return &Encoder{opts: opts}
}

// ErrUnsupported is returned for a message the encoder does not compile:
// one that can hold extensions (directly or in a field's type), or a
// MessageSet; protojson writes it.
var ErrUnsupported = errors.New("jsonenc: message type not supported")

// Append appends the JSON form of m to b. When b has less room than
// recent messages of m's type needed, it is grown once, to that size,
// before anything is written (see sizeHint).
func (e *Encoder) Append(b []byte, m proto.Message) ([]byte, error) {
	if m == nil {
		return append(b, '{', '}'), nil
	}
	pm := m.ProtoReflect()
	p := e.plan(pm.Descriptor())
	if !p.supported {
		return b, ErrUnsupported
	}
	b = p.size.grow(b)
	start := len(b)
	b, err := e.appendMessage(b, pm, p, "")
	if err != nil {
		return b, err
	}
	p.size.observe(len(b) - start)
	if !e.opts.AllowPartial && p.required {
		if err := proto.CheckInitialized(m); err != nil {
			return b, err
		}
	}
	return b, nil
}

// errInvalidUTF8 is protojson's error for a string that is not UTF-8.
func errInvalidUTF8(name protoreflect.FullName) error {
	return fmt.Errorf("field %v contains invalid UTF-8", name)
}
