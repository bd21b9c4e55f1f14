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
	"math"

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
	// MaxBytes bounds the buffer Append, AppendWire and AppendField write
	// into, what it held before included: past it they fail with
	// ErrTooLarge. They stop as soon as they see it passed, before each
	// field, list element and map entry, so they write at most one value
	// beyond it; a list or map too large to fit is refused before its
	// entries are gathered and sorted. 0 is no limit.
	MaxBytes int
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
	max   int // opts.MaxBytes, or the largest int for none
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
	max := opts.MaxBytes
	if max <= 0 {
		max = math.MaxInt
	}
	return &Encoder{opts: opts, max: max}
}

// ErrUnsupported is returned for a message the encoder does not compile:
// one that can hold extensions (directly or in a field's type), or a
// MessageSet; protojson writes it.
var ErrUnsupported = errors.New("jsonenc: message type not supported")

// ErrTooLarge is returned when the output passes Options.MaxBytes; what
// was written is not JSON.
var ErrTooLarge = errors.New("jsonenc: output larger than the limit")

// over reports whether b has passed the limit.
func (e *Encoder) over(b []byte) bool { return len(b) > e.max }

// cannotHold reports whether b has passed the limit, or would with n
// more values of at least size bytes each: a list or map that cannot fit
// is refused before its entries are gathered and sorted.
func (e *Encoder) cannotHold(b []byte, n, size int) bool {
	return len(b) > e.max || n > (e.max-len(b))/size
}

// Least bytes of a list element ("0,", the last without its comma) and
// of a map entry (`"":0,`).
const (
	minElement  = 1
	minMapEntry = 4
)

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
	if err == nil && e.over(b) {
		err = ErrTooLarge
	}
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
