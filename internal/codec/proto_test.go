package codec

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// vtMessage gives a generated message the methods vtprotobuf generates,
// written with proto as the generated code behaves (MarshalToSizedBufferVT
// fills its buffer from the end, UnmarshalVT merges), and counts the
// calls: the core module cannot depend on vtprotobuf, so this stands in
// for its generated code. bench/vtproto_test.go runs Proto on the real
// generated code.
type vtMessage struct {
	proto.Message // the generated message, whose ProtoReflect it promotes
	calls         *vtCalls
}

type vtCalls struct {
	marshal, sized, unmarshal int
	err                       error // when set, every method fails with it
	overcount                 int   // added to SizeVT's answer
}

func newVT(m proto.Message) (vtMessage, *vtCalls) {
	c := &vtCalls{}
	return vtMessage{m, c}, c
}

func (m vtMessage) MarshalVT() ([]byte, error) {
	m.calls.marshal++
	if m.calls.err != nil {
		return nil, m.calls.err
	}
	return proto.Marshal(m.Message)
}

func (m vtMessage) SizeVT() int { return proto.Size(m.Message) + m.calls.overcount }

func (m vtMessage) MarshalToSizedBufferVT(b []byte) (int, error) {
	m.calls.sized++
	if m.calls.err != nil {
		return 0, m.calls.err
	}
	n := proto.Size(m.Message)
	tail := b[len(b)-n : len(b)-n : len(b)] // room for exactly the message: no allocation
	out, err := proto.MarshalOptions{}.MarshalAppend(tail, m.Message)
	if len(out) != n || (n > 0 && &out[0] != &b[len(b)-n]) {
		panic("MarshalAppend did not write in place")
	}
	return n, err
}

func (m vtMessage) UnmarshalVT(b []byte) error {
	m.calls.unmarshal++
	if m.calls.err != nil {
		return m.calls.err
	}
	return proto.UnmarshalOptions{Merge: true}.Unmarshal(b, m.Message)
}

// probe has a field of most kinds, and no map (whose order proto does
// not fix), so that two encodings of it can be compared byte for byte.
func probe() *confv1.Probe {
	return &confv1.Probe{
		Name: "shelves/1/books/2", Id: -7, U64: 1 << 60, Flag: true, Dbl: 2.5, Blob: []byte{0, 1, 2},
		Color: confv1.Color_RED, Tags: []string{"a", "b"}, Nums: []int32{1, -2, 3},
		Inner: &confv1.Inner{S: "in", Deeper: &confv1.Inner{I: 4}}, Items: []*confv1.Inner{{S: "x"}, {}},
		Ts: timestamppb.New(timestamppb.Now().AsTime()), Wstr: wrapperspb.String("w"),
		Val: structpb.NewStringValue("v"), Choice: &confv1.Probe_OptB{OptB: "b"},
	}
}

func TestProtoMarshalUsesVT(t *testing.T) {
	t.Parallel()
	msg := probe()
	want, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	vt, calls := newVT(msg)
	got, err := Proto{}.Marshal(vt)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("Marshal(vt) = %x, %v; want %x", got, err, want)
	}
	if calls.marshal != 1 || calls.sized != 0 {
		t.Errorf("Marshal called MarshalVT %d times and MarshalToSizedBufferVT %d, want once and never", calls.marshal, calls.sized)
	}
	if got, err := (Proto{}).Marshal(msg); err != nil || !bytes.Equal(got, want) {
		t.Errorf("Marshal(plain) = %x, %v; want %x", got, err, want)
	}
}

// TestProtoAppendMarshal is not parallel: it counts allocations.
func TestProtoAppendMarshal(t *testing.T) {
	msg := probe()
	wire := mustMarshal(t, msg)
	tests := []struct {
		name         string
		msg          proto.Message
		wrap         func(proto.Message, *vtCalls) proto.Message // nil for the message as it is
		overcount    int
		sized, whole int // calls of MarshalToSizedBufferVT and MarshalVT
	}{
		{name: "proto", msg: msg},
		{name: "vt", msg: msg, wrap: wrapVT, sized: 1},
		// The generated code writes from the end: too large a size leaves
		// a gap at the front, which must not reach the output.
		{name: "vt size overcounted", msg: msg, wrap: wrapVT, overcount: 5, sized: 1},
		{name: "vt empty message", msg: &confv1.Inner{}, wrap: wrapVT, sized: 1},
		{name: "MarshalVT alone", msg: msg, wrap: func(m proto.Message, c *vtCalls) proto.Message {
			return struct {
				proto.Message
				vtMarshaler
			}{m, vtMessage{m, c}}
		}, whole: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := mustMarshal(t, tt.msg)
			if tt.msg == msg && !bytes.Equal(want, wire) {
				t.Fatal("proto.Marshal(probe) is not stable") // probe has no map
			}
			m, calls := tt.msg, &vtCalls{overcount: tt.overcount}
			if tt.wrap != nil {
				m = tt.wrap(m, calls)
			}
			prefix := []byte("prefix")
			got, err := Proto{}.AppendMarshal(slices.Clip(prefix), m)
			if err != nil || !bytes.Equal(got, append(prefix, want...)) {
				t.Errorf("AppendMarshal = %x, %v; want %x after the prefix", got, err, want)
			}
			if calls.sized != tt.sized || calls.marshal != tt.whole {
				t.Errorf("MarshalToSizedBufferVT called %d times, MarshalVT %d; want %d and %d", calls.sized, calls.marshal, tt.sized, tt.whole)
			}

			// Into a buffer with room, it appends in place.
			buf := make([]byte, 3, 3+len(want)+tt.overcount)
			got, _ = Proto{}.AppendMarshal(buf, m)
			if !bytes.Equal(got[3:], want) || &got[0] != &buf[0] {
				t.Errorf("AppendMarshal into a large enough buffer: %x, not in place", got)
			}
			if tt.whole > 0 {
				return // it copies MarshalVT's output
			}
			if allocs := testing.AllocsPerRun(20, func() { Proto{}.AppendMarshal(buf, m) }); allocs != 0 {
				t.Errorf("AppendMarshal into a large enough buffer: %v allocations, want 0", allocs)
			}
		})
	}
}

func wrapVT(m proto.Message, c *vtCalls) proto.Message { return vtMessage{m, c} }

// TestProtoUnmarshalMerges: Proto reads into what the message holds, as
// proto.UnmarshalOptions{Merge: true} does, whether or not the message
// has UnmarshalVT (which merges: vtprotobuf's README, and
// bench/vtproto_test.go on the generated code), as it did before: a
// codec may be given a message that holds fields already (protorest.Codec).
func TestProtoUnmarshalMerges(t *testing.T) {
	t.Parallel()
	held := func() *confv1.Probe {
		return &confv1.Probe{Name: "kept", Tags: []string{"a"}, Inner: &confv1.Inner{S: "s"}, Choice: &confv1.Probe_OptA{OptA: "a"}}
	}
	data, err := proto.Marshal(&confv1.Probe{Id: 7, Tags: []string{"b"}, Inner: &confv1.Inner{I: 3}, Choice: &confv1.Probe_OptB{OptB: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	want := &confv1.Probe{Name: "kept", Id: 7, Tags: []string{"a", "b"}, Inner: &confv1.Inner{S: "s", I: 3}, Choice: &confv1.Probe_OptB{OptB: "b"}}

	plain := held()
	if err := (Proto{}).Unmarshal(data, plain); err != nil || !proto.Equal(plain, want) {
		t.Errorf("Unmarshal(plain) = %v, %v; want %v", plain, err, want)
	}
	m := held()
	vt, calls := newVT(m)
	if err := (Proto{}).Unmarshal(data, vt); err != nil || !proto.Equal(m, want) {
		t.Errorf("Unmarshal(vt) = %v, %v; want %v", m, err, want)
	}
	if calls.unmarshal != 1 {
		t.Errorf("UnmarshalVT called %d times, want once", calls.unmarshal)
	}
}

func TestProtoVTErrors(t *testing.T) {
	t.Parallel()
	errVT := errors.New("vt failed")
	vt, calls := newVT(probe())
	calls.err = errVT
	if _, err := (Proto{}).Marshal(vt); !errors.Is(err, errVT) {
		t.Errorf("Marshal: err = %v, want %v", err, errVT)
	}
	if _, err := (Proto{}).AppendMarshal(nil, vt); !errors.Is(err, errVT) {
		t.Errorf("AppendMarshal: err = %v, want %v", err, errVT)
	}
	if err := (Proto{}).Unmarshal([]byte{}, vt); !errors.Is(err, errVT) {
		t.Errorf("Unmarshal: err = %v, want %v", err, errVT)
	}
	if calls.marshal != 1 || calls.sized != 1 || calls.unmarshal != 1 {
		t.Errorf("calls %+v, want one of each", *calls)
	}
}

// nested is the wire form of an Inner nested depth levels deep through
// its field deeper.
func nested(depth int) []byte {
	var rev []byte // built back to front
	for range depth {
		size := protowire.AppendVarint(nil, uint64(len(rev)))
		slices.Reverse(size)
		rev = append(rev, size...)
		rev = protowire.AppendTag(rev, 3, protowire.BytesType) // one byte
	}
	slices.Reverse(rev)
	return rev
}

// TestProtoUnmarshalRecursion: the generated UnmarshalVT has no recursion
// limit, so a type that nests without bound is read with proto once the
// input could nest deeper than proto allows.
func TestProtoUnmarshalRecursion(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxBoundedLen)
	atBound := mustMarshal(t, &confv1.Inner{S: long[4:]}) // a tag, a 3-byte length
	if len(atBound) != maxBoundedLen {
		t.Fatalf("%d bytes, want %d", len(atBound), maxBoundedLen)
	}
	tests := []struct {
		name    string
		msg     proto.Message
		data    []byte
		vt      bool // read with UnmarshalVT
		wantErr bool
	}{
		{"recursive, short and deep", &confv1.Inner{}, nested(1000), true, false},
		{"recursive, as long as the bound", &confv1.Inner{}, atBound, true, false},
		{"recursive, long and shallow", &confv1.Inner{}, mustMarshal(t, &confv1.Inner{S: long}), false, false},
		{"recursive, too deep", &confv1.Inner{}, nested(protowire.DefaultRecursionLimit + 10), false, true},
		{"recursive through a field", &confv1.Probe{}, mustMarshal(t, &confv1.Probe{Name: long}), false, false},
		{"bounded, long", &httpbody.HttpBody{}, mustMarshal(t, &httpbody.HttpBody{Data: []byte(long)}), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vt, calls := newVT(tt.msg)
			err := Proto{}.Unmarshal(tt.data, vt)
			if (err != nil) != tt.wantErr {
				t.Errorf("Unmarshal: err = %v, want an error: %t", err, tt.wantErr)
			}
			if got := calls.unmarshal == 1; got != tt.vt {
				t.Errorf("read with UnmarshalVT: %t, want %t", got, tt.vt)
			}
		})
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNestsWithoutBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg  proto.Message
		want bool
	}{
		{&confv1.Inner{}, true},            // Inner.deeper
		{&confv1.Probe{}, true},            // through Inner, and Struct
		{&structpb.Struct{}, true},         // a map of Values holding Structs
		{&confv1.Page{}, false},            // HttpBody, Any
		{&wrapperspb.StringValue{}, false}, // no message fields
		{&timestamppb.Timestamp{}, false},
	}
	for _, tt := range tests {
		md := tt.msg.ProtoReflect().Descriptor()
		for range 2 { // computed, then cached
			if got := nestsWithoutBound(md); got != tt.want {
				t.Errorf("nestsWithoutBound(%s) = %t, want %t", md.FullName(), got, tt.want)
			}
		}
	}
}

// TestProtoAppendMarshalWithin: an encoding that fits is AppendMarshal's;
// one a byte over the limit fails with ErrTooLarge before the generated
// code, or the proto package, writes it.
func TestProtoAppendMarshalWithin(t *testing.T) {
	t.Parallel()
	base := probe() // one timestamp for every encoding
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	n := len(want)
	for _, tt := range []struct {
		name string
		msg  func() (proto.Message, *vtCalls)
	}{
		{"proto", func() (proto.Message, *vtCalls) { return proto.Clone(base), nil }},
		{"vtprotobuf", func() (proto.Message, *vtCalls) { m, c := newVT(proto.Clone(base)); return m, c }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, max := range []int{0, n, n + 1} {
				m, _ := tt.msg()
				got, err := Proto{}.AppendMarshalWithin(nil, m, max)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("max %d (%d bytes): %x, %v", max, n, got, err)
				}
			}
			m, calls := tt.msg()
			got, err := Proto{}.AppendMarshalWithin([]byte("x"), m, n-1)
			if !errors.Is(err, ErrTooLarge) || string(got) != "x" {
				t.Errorf("max %d (%d bytes): %q, %v; want ErrTooLarge, nothing appended", n-1, n, got, err)
			}
			if calls != nil && calls.sized+calls.marshal != 0 {
				t.Errorf("the generated code marshalled a message over the limit: %+v", *calls)
			}
		})
	}
}

// mapProbe is probe with a map, whose measuring allocates.
func mapProbe() *confv1.Probe {
	p := probe()
	p.Labels = map[string]string{"color": "red"}
	return p
}

// TestProtoAppendMarshalSized: after Size, AppendMarshalSized writes what
// AppendMarshalWithin writes, within the same limit.
func TestProtoAppendMarshalSized(t *testing.T) {
	t.Parallel()
	base := mapProbe()
	want, err := proto.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	n := len(want)
	for _, tt := range []struct {
		name string
		msg  func() proto.Message
	}{
		{"proto", func() proto.Message { return proto.Clone(base) }},
		{"vtprotobuf", func() proto.Message { m, _ := newVT(proto.Clone(base)); return m }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, max := range []int{0, n, n + 1} {
				m := tt.msg()
				if got := (Proto{}).Size(m); got != n {
					t.Errorf("Size = %d, want %d", got, n)
				}
				got, err := Proto{}.AppendMarshalSized([]byte("x"), m, max)
				if err != nil || string(got) != "x"+string(want) {
					t.Errorf("max %d (%d bytes): %x, %v", max, n, got, err)
				}
			}
			m := tt.msg()
			Proto{}.Size(m)
			got, err := Proto{}.AppendMarshalSized([]byte("x"), m, n-1)
			if !errors.Is(err, ErrTooLarge) || string(got) != "x" {
				t.Errorf("max %d (%d bytes): %q, %v; want ErrTooLarge, nothing appended", n-1, n, got, err)
			}
		})
	}
}

// TestProtoAppendMarshalSizedMeasuresOnce: a message with a map, measured
// by Size, is not measured again (fewer allocations than
// AppendMarshalWithin). Not parallel: testing.AllocsPerRun.
func TestProtoAppendMarshalSizedMeasuresOnce(t *testing.T) {
	m := mapProbe()
	buf := make([]byte, 0, 2*proto.Size(m))
	sized := testing.AllocsPerRun(20, func() {
		Proto{}.Size(m)
		Proto{}.AppendMarshalSized(buf[:0], m, 0)
	})
	within := testing.AllocsPerRun(20, func() {
		Proto{}.Size(m)
		Proto{}.AppendMarshalWithin(buf[:0], m, 0)
	})
	if sized >= within {
		t.Errorf("Size and AppendMarshalSized: %v allocations, not fewer than AppendMarshalWithin's %v", sized, within)
	}
}
