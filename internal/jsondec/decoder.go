// Package jsondec reads protobuf messages from JSON as protojson does, from
// plans compiled once per message type: each field found by name in one
// map lookup, a reader specialised for its kind, the well-known types
// handled apart, strings taken from the input without copying them twice.
//
// It answers exactly as protojson would. Where it is fast it decides by
// itself, and it is made to take only what protojson takes and to build the
// same message (its tests and fuzz targets compare both with proto.Equal);
// everything else, any input it rejects included, it hands to protojson,
// which has the last word and writes the error. So an error always reads as
// protojson's does.
//
// It has two targets: messages (Unmarshal, TryUnmarshal) and protobuf wire
// bytes (AppendWire, wire.go), for a backend that takes the bytes as they
// are, with no message built in between. Both read through the same
// scanner, plans, members loop and scalar and well-known readers, and so
// decide the same input; only where the values go differs.
package jsondec

import (
	"errors"
	"math"
	"reflect"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/protorest/protorest/internal/jsonscan"
	"github.com/protorest/protorest/internal/plancache"
)

// Decoder reads JSON into messages with protojson's options. It is safe
// for concurrent use; plans are built on first use of each message type.
type Decoder struct {
	opts     protojson.UnmarshalOptions
	maxDepth int
	plans    plancache.Cache[*plan]
	pool     sync.Pool // *state
}

// maxPlans bounds the plan cache: descriptors that come and go (a remote
// backend's, reloaded as it changes) must not pile up.
var maxPlans int64 = 1 << 14

// New returns a decoder that reads as opts.Unmarshal does. maxDepth, if
// not 0, bounds the arrays and objects open at once in what the decoder
// decides by itself (see TryUnmarshal).
func New(opts protojson.UnmarshalOptions, maxDepth int) *Decoder {
	if maxDepth <= 0 {
		maxDepth = math.MaxInt
	}
	return &Decoder{opts: opts, maxDepth: maxDepth}
}

// Unmarshal resets m and reads data into it, as protojson's Unmarshal
// with the decoder's options does.
func (d *Decoder) Unmarshal(data []byte, m proto.Message) error {
	if d.TryUnmarshal(data, m) {
		return nil
	}
	return d.Protojson(data, m)
}

// Protojson is Unmarshal by protojson alone, with the decoder's options:
// what TryUnmarshal leaves to it.
func (d *Decoder) Protojson(data []byte, m proto.Message) error {
	return d.opts.Unmarshal(data, m)
}

// TryUnmarshal is Unmarshal without protojson behind it: true when the
// decoder read data into m by itself, false when protojson must decide
// (m is then partly written). Input nested deeper than maxDepth is always
// left to protojson.
func (d *Decoder) TryUnmarshal(data []byte, m proto.Message) bool {
	return d.fast(data, m) == nil
}

// errFallback is the fast path's one error: protojson decides.
var errFallback = errors.New("jsondec: left to protojson")

// fast reads data into m by the plans, or returns errFallback.
func (d *Decoder) fast(data []byte, m proto.Message) error {
	pm := m.ProtoReflect()
	p := d.plan(pm.Descriptor())
	if p.fallback {
		return errFallback
	}
	proto.Reset(m)
	st := d.start(data)
	err := st.message(pm, reflect.Value{}, p)
	if err == nil && !st.end() {
		err = errFallback
	}
	d.release(st)
	if err != nil {
		return err
	}
	if !d.opts.AllowPartial && p.required && proto.CheckInitialized(m) != nil {
		return errFallback
	}
	return nil
}

// start takes a state from the pool, set to read data.
func (d *Decoder) start(data []byte) *state {
	st, _ := d.pool.Get().(*state)
	if st == nil {
		st = new(state)
	}
	limit := d.opts.RecursionLimit
	if limit == 0 {
		limit = protowire.DefaultRecursionLimit
	}
	st.Reset(data, d.maxDepth)
	st.discard, st.limit = d.opts.DiscardUnknown, limit
	st.Space()
	return st
}

// end reports whether only whitespace is left after the value read.
func (st *state) end() bool {
	st.Space()
	return st.AtEnd()
}

// release gives st back to the pool, unless it grew too large to keep
// (one very long string or list must not stay allocated in the pool).
func (d *Decoder) release(st *state) {
	if st.ScratchCap() <= 64<<10 && cap(st.strs) <= 4096 && cap(st.msgs) <= 4096 {
		st.Reset(nil, 0)
		clear(st.strs) // left over by an error: not kept alive by the pool
		clear(st.msgs)
		st.strs, st.msgs = st.strs[:0], st.msgs[:0]
		d.pool.Put(st)
	}
}

// state is one decoding's: the scanner (jsonscan) and what the options
// say.
type state struct {
	jsonscan.Scanner
	discard bool // unknown fields and enum names are skipped
	limit   int  // how many more message levels may open
	// The elements of the lists being read, each list's after its
	// enclosing lists' (see stringList and messageList).
	strs []string
	msgs []reflect.Value
}

// enter counts a message level as protojson does, and reports whether
// the recursion limit allows it.
func (st *state) enter() bool {
	st.limit--
	return st.limit >= 0
}

// leave gives a level back.
func (st *state) leave() { st.limit++ }
