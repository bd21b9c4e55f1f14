package jsondec_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest/internal/jsondec"
)

// agreeWire transcodes data to wire bytes for md. When the decoder
// decides, protojson must take the input and proto.Unmarshal of the bytes
// must build the message protojson builds; when it does not, dst must
// come back as it was. And the decoder must decide whatever TryUnmarshal
// decides, but for the inputs the wire target leaves to protojson on
// purpose: types with a required field (ed.v1.Ed).
func agreeWire(t *testing.T, o protojson.UnmarshalOptions, md protoreflect.MessageDescriptor, data []byte) (decided bool) {
	t.Helper()
	dec := jsondec.New(o, 0)
	want := dynamicpb.NewMessage(md)
	werr := o.Unmarshal(data, want)

	prefix := []byte("prefix")
	wire, decided := dec.AppendWire(prefix[:len(prefix):len(prefix)], md, data)
	if !bytes.HasPrefix(wire, prefix) {
		t.Fatalf("options %+v, %s, input %q: AppendWire lost dst: %q", o, md.FullName(), data, wire)
	}
	if !decided {
		if len(wire) != len(prefix) {
			t.Fatalf("options %+v, %s, input %q: AppendWire left it but appended %q", o, md.FullName(), data, wire)
		}
		if werr == nil && dec.TryUnmarshal(data, newMessage(md)) && !wireLeftOut(md) {
			t.Fatalf("options %+v, %s, input %q: TryUnmarshal decides, AppendWire does not", o, md.FullName(), data)
		}
		return false
	}
	if werr != nil {
		t.Fatalf("options %+v, %s:\nAppendWire took %q, protojson refused: %v", o, md.FullName(), data, werr)
	}
	got := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{AllowPartial: o.AllowPartial}).Unmarshal(wire[len(prefix):], got); err != nil {
		t.Fatalf("options %+v, %s, input %q: wire %x does not unmarshal: %v", o, md.FullName(), data, wire[len(prefix):], err)
	}
	if !proto.Equal(got, want) {
		t.Fatalf("options %+v, %s, input %q:\nwire:      %v\nprotojson: %v", o, md.FullName(), data, got, want)
	}
	return true
}

// wireLeftOut reports the types AppendWire leaves to protojson on
// purpose (see agreeWire).
func wireLeftOut(md protoreflect.MessageDescriptor) bool {
	return hasRequired(md, map[protoreflect.FullName]bool{})
}

func hasRequired(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		if fd.Cardinality() == protoreflect.Required {
			return true
		}
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() != nil && hasRequired(fd.Message(), seen) {
			return true
		}
	}
	return false
}

// TestWireInputs checks every seed against every type and option set,
// and that the common, valid forms are decided.
func TestWireInputs(t *testing.T) {
	types := messageTypes(t)
	for _, o := range unmarshalOptions {
		for _, md := range types {
			for _, s := range seeds {
				agreeWire(t, o, md, []byte(s))
			}
		}
	}
	probe, ed2 := types[0], types[1]
	o := protojson.UnmarshalOptions{DiscardUnknown: true}
	for _, c := range []struct {
		md   protoreflect.MessageDescriptor
		json string
	}{
		{probe, `{"name":"a\"b\\c\/d\b\f\n\r\t"}`}, {probe, `{"id":"9223372036854775807"}`}, {probe, `{"dbl":"NaN"}`},
		{probe, `{"blob":"AAEC_v8"}`}, {probe, `{"color":"NOPE"}`}, {probe, `{"labels":{"a":"1","b":"2"}}`},
		{probe, `{"optA":null,"optB":"y"}`}, {probe, `{"ts":"2024-01-02T03:04:05.5-07:30"}`}, {probe, `{"dur":".s"}`},
		{probe, `{"mask":"a,bC.dE"}`}, {probe, `{"wi32":"5"}`}, {probe, `{"wi32":0}`}, {probe, `{"val":[1,"a",null,{"b":[]}]}`},
		{probe, `{"attrs":{"a":null,"b":[true]}}`}, {probe, `{"items":[{},{}]}`}, {probe, `{"payload":{"extensions":[]}}`},
		{probe, `{"i32":-1}`}, {probe, `{"val":null}`}, {probe, `{"val":0}`}, {probe, `{"val":""}`}, {probe, `{"val":false}`},
		{ed2, `{"explicit":0}`}, {ed2, `{"implicit":0}`}, {ed2, `{"packed":[1,-2,300]}`}, {ed2, `{"expanded":["-5",6]}`},
		{ed2, `{"byId":{"1":"a","-2":"b"}}`}, {ed2, `{"byFlag":{"true":{},"false":{"s":"x"}}}`}, {ed2, `{"byU":{"1":"C_ONE","2":"X"}}`},
		{ed2, `{"closeds":["C_ONE","X","C_FIVE"]}`}, {ed2, `{"f32":4294967295}`}, {ed2, `{"sf64":"-1"}`}, {ed2, `{"a":""}`},
		{ed2, `{"b":{}}`}, {ed2, `{"ds":[1,"NaN",-0]}`}, {ed2, `{"closed":"C_ZERO"}`}, {ed2, `{"closeds":["X"]}`},
	} {
		if !agreeWire(t, o, c.md, []byte(c.json)) {
			t.Errorf("AppendWire left %s to protojson", c.json)
		}
	}
}

// TestWireLeftOut checks what the wire target leaves to protojson on
// purpose.
func TestWireLeftOut(t *testing.T) {
	types := messageTypes(t)
	dec := jsondec.New(protojson.UnmarshalOptions{}, 0)
	for _, c := range []struct {
		md   protoreflect.MessageDescriptor
		json string
	}{
		{types[2], `{"req":1}`},                                  // a required field
		{types[0], `{"payload":{"extensions":[{"@type":"x"}]}}`}, // Any
	} {
		if _, ok := dec.AppendWire(nil, c.md, []byte(c.json)); ok {
			t.Errorf("AppendWire(%s, %s) decided", c.md.FullName(), c.json)
		}
	}
}

// TestWireForm checks the bytes written where the form is a choice:
// lengths past one byte, sign extension, packed and expanded lists, and
// maps past the linear duplicate check.
func TestWireForm(t *testing.T) {
	types := messageTypes(t)
	probe, ed2 := types[0], types[1]
	o := protojson.UnmarshalOptions{}
	dec := jsondec.New(o, 0)
	for _, c := range []struct {
		md   protoreflect.MessageDescriptor
		json string
		want []byte // nil: only checked by agreeWire
	}{
		{ed2, `{"explicit":-1}`, []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{ed2, `{"explicit":0}`, []byte{0x08, 0x00}},
		{ed2, `{"implicit":0}`, []byte{}},
		{ed2, `{"packed":[1,2]}`, []byte{0x22, 0x02, 0x01, 0x02}},
		{ed2, `{"packed":[]}`, []byte{}},
		{ed2, `{"expanded":[-1,1]}`, []byte{0x70, 0x01, 0x70, 0x02}},
		{ed2, `{"closed":3}`, []byte{0x48, 0x03}}, // undeclared, as proto.Marshal writes it
		{ed2, `{"s":"` + strings.Repeat("x", 200) + `"}`, nil},
		{ed2, `{"child":{"s":"` + strings.Repeat("x", 20000) + `"}}`, nil},
		{ed2, `{"child":{"child":{"child":{"s":"` + strings.Repeat("y", 130) + `"}},"s":"z"}}`, nil},
		{probe, `{"val":{"a":[` + strings.Repeat(`"`+strings.Repeat("v", 40)+`",`, 500) + `1]}}`, nil},
	} {
		if !agreeWire(t, o, c.md, []byte(c.json)) {
			t.Errorf("AppendWire left %.60s to protojson", c.json)
			continue
		}
		got, _ := dec.AppendWire(nil, c.md, []byte(c.json))
		if c.want != nil && !bytes.Equal(got, c.want) {
			t.Errorf("AppendWire(%s) = %x, want %x", c.json, got, c.want)
		}
	}
	// Maps of every size around linearKeys, with a duplicate key first,
	// last, or not at all.
	for n := 1; n <= 40; n++ {
		for _, dup := range []int{-1, 0, n - 1} {
			var b strings.Builder
			b.WriteString(`{"byId":{`)
			for i := range n {
				fmt.Fprintf(&b, `"%d":"v%d",`, i*7-3, i)
			}
			if dup >= 0 {
				fmt.Fprintf(&b, `"%d":"again",`, dup*7-3)
			}
			b.WriteString(`"-100":"last"}}`)
			decided := agreeWire(t, o, ed2, []byte(b.String()))
			if decided != (dup < 0) {
				t.Errorf("n=%d dup=%d: decided %v", n, dup, decided)
			}
		}
	}
}

// FuzzAppendWire feeds arbitrary bytes to the wire target (see agreeWire).
func FuzzAppendWire(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	types := messageTypes(f)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		md := types[int(which)%len(types)]
		o := unmarshalOptions[int(which/8)%len(unmarshalOptions)]
		agreeWire(t, o, md, data)
	})
}

// TestWireAllocs checks that the wire target allocates nothing into a
// buffer large enough, for input without FieldMasks or large maps.
func TestWireAllocs(t *testing.T) {
	types := messageTypes(t)
	dec := jsondec.New(protojson.UnmarshalOptions{DiscardUnknown: true}, 0)
	for _, c := range []struct {
		md   protoreflect.MessageDescriptor
		json string
	}{
		{types[1], `{"explicit":-1,"s":"` + strings.Repeat("x", 300) + `","packed":[1,2,3],"child":{"byId":{"1":"a","2":"b"},` +
			`"ts":"2024-01-02T03:04:05.5Z","closeds":["C_ONE","NOPE"]},"byFlag":{"true":{"b":{"s":"\u00e9"}}},"ds":[1.5,"NaN"]}`},
		{types[0], `{"blob":"AAEC_v8","val":[1.5,"a",null,{"b":[true]}],"attrs":{"a":{}},"wi32":"5","dur":"-1.5s",` +
			`"labels":{"a":"1"},"items":[{},{"name":"x"}],"color":"NOPE","nope":[1]}`},
	} {
		buf, data := make([]byte, 0, 4096), []byte(c.json)
		if _, ok := dec.AppendWire(buf, c.md, data); !ok {
			t.Fatalf("AppendWire left %s to protojson", c.json)
		}
		if n := testing.AllocsPerRun(100, func() { dec.AppendWire(buf, c.md, data) }); n != 0 {
			t.Errorf("AppendWire(%.40s...) allocates %v times", c.json, n)
		}
	}
}
