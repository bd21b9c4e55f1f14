package jsondec_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/protorest/protorest/internal/jsondec"
	"github.com/protorest/protorest/internal/protorand"

	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

// seeds are inputs at the edges of what protojson takes: they are the
// fuzz corpus's seeds and TestInputs' cases, checked against every type
// and option set.
var seeds = []string{
	// Syntax.
	``, ` `, `{}`, ` { } `, `{`, `}`, `[]`, `null`, `{}{}`, `{} x`, `{,}`, `{"name":"a",}`, `{"name" "a"}`,
	`{"name":"a" "id":"1"}`, "{\"name\":\"a\"}\x00", "\t{\n\"name\"\r:\"a\"}\n",
	// Strings: escapes, surrogates, UTF-8, control characters.
	`{"name":"a\"b\\c\/d\b\f\n\r\t"}`, `{"name":"\u00e9\u2028"}`, `{"name":"\ud83d\ude00"}`,
	`{"name":"\ud83d"}`, `{"name":"\ude00\ud83d"}`, `{"name":"\ud83d\u0041"}`, `{"name":"\u12"}`, `{"name":"\x"}`,
	`{"name":"\u004G"}`, "{\"name\":\"\xff\"}", "{\"name\":\"\xed\xa0\x80\"}", "{\"name\":\"a\x01\"}", "{\"name\":\"é😀\"}",
	`{"na\u006de":"x"}`, `{"\u0000":1}`,
	// Names: JSON name, proto name, json_name, unknown, duplicates.
	`{"displayName":"x"}`, `{"display_name":"x"}`, `{"displayName":"x","display_name":"y"}`, `{"lname":"x"}`,
	`{"last_name":"x"}`, `{"lastName":"x"}`, `{"name":"a","name":"b"}`, `{"nope":1}`, `{"nope":{"a":[1,{"b":null}]}}`,
	`{"nope":[[[[[[1]]]]]]}`, `{"[ext.x]":1}`, `{"name":null,"name":"a"}`,
	// Integers.
	`{"id":"9223372036854775807"}`, `{"id":"-9223372036854775808"}`, `{"id":"9223372036854775808"}`, `{"id":1}`,
	`{"id":1.0}`, `{"id":1e2}`, `{"id":"1e2"}`, `{"id":-0}`, `{"id":"-0"}`, `{"id":" 1"}`, `{"id":"1 "}`, `{"id":01}`,
	`{"id":"+1"}`, `{"id":true}`, `{"id":null}`, `{"i32":2147483647}`, `{"i32":2147483648}`, `{"i32":-2147483648}`,
	`{"i32":"0x10"}`, `{"i32":1.5}`, `{"u64":"18446744073709551615"}`, `{"u64":-1}`, `{"u64":"-0"}`, `{"u64":0}`,
	`{"explicit":0}`, `{"implicit":0}`, `{"explicit":"7"}`, `{"f32":4294967295}`, `{"f32":4294967296}`, `{"sf64":"-1"}`,
	`{"nums":[1,"2",-3]}`, `{"nums":[1,null]}`, `{"nums":[]}`, `{"nums":{}}`, `{"nums":1}`, `{"packed":[1,2]}`,
	`{"expanded":["-5",6]}`,
	// Floats.
	`{"dbl":1.5}`, `{"dbl":-0}`, `{"dbl":-0.0}`, `{"dbl":1e308}`, `{"dbl":1e309}`, `{"dbl":"NaN"}`, `{"dbl":"Infinity"}`,
	`{"dbl":"-Infinity"}`, `{"dbl":"nan"}`, `{"dbl":"1.5"}`, `{"dbl":" 1.5"}`, `{"dbl":"1.5e3"}`, `{"dbl":.5}`, `{"dbl":1.}`,
	`{"dbl":1e}`, `{"dbl":1E+2}`, `{"flt":3.4e38}`, `{"flt":3.5e38}`, `{"flt":1e-46}`, `{"flt":"-Infinity"}`, `{"ds":[1,"NaN",2.5]}`,
	// Bools, bytes.
	`{"flag":true}`, `{"flag":false}`, `{"flag":"true"}`, `{"flag":1}`, `{"flag":tru}`, `{"flag":truex}`,
	`{"blob":"AAEC/v8="}`, `{"blob":"AAEC_v8"}`, `{"blob":"AAEC-v8="}`, `{"blob":"AAEC/v8"}`, `{"blob":"A"}`, `{"blob":""}`,
	`{"blob":"AA\nEC"}`, `{"blob":"AAEC\r\n/v8="}`, `{"blob":"!!!!"}`, `{"blob":1}`,
	// Enums.
	`{"color":"RED"}`, `{"color":"red"}`, `{"color":"NOPE"}`, `{"color":1}`, `{"color":99}`, `{"color":"1"}`, `{"color":1.0}`,
	`{"color":null}`, `{"colors":["RED","NOPE",2]}`, `{"closed":"C_FIVE"}`, `{"closed":3}`, `{"closeds":["C_ONE","X"]}`,
	`{"byU":{"1":"C_ONE","2":"X"}}`,
	// Messages, lists of messages.
	`{"inner":{}}`, `{"inner":null}`, `{"inner":[]}`, `{"items":[{},{}]}`, `{"items":[null]}`, `{"items":[{},]}`,
	`{"child":{"child":{"child":{"s":"deep"}}}}`, `{"child":{"child":{"child":{"child":{}}}}}`,
	`{"b":{"b":{"a":"x"}}}`,
	// Maps.
	`{"labels":{"a":"1","b":"2"}}`, `{"labels":{"a":"1","a":"2"}}`, `{"labels":{"a":null}}`, `{"labels":{"a":1}}`,
	`{"labels":{"":"x","\u00e9":"y"}}`, `{"labels":[]}`, `{"byId":{"1":"a","-2":"b","+3":"c"}}`, `{"byId":{"1":"a","01":"b"}}`,
	`{"byId":{"x":"a"}}`, `{"byId":{"9223372036854775808":"a"}}`, `{"byFlag":{"true":{},"false":{"s":"x"}}}`,
	`{"byFlag":{"True":{}}}`, `{"byFlag":{"true":null}}`, `{"byU":{"4294967295":"C_ONE"}}`, `{"byU":{"-1":"C_ONE"}}`,
	`{"by_id":{"1":"a"},"byId":{}}`,
	// Oneofs.
	`{"optA":"x"}`, `{"optA":"x","optB":"y"}`, `{"optA":null,"optB":"y"}`, `{"optA":"x","opt_a":"y"}`, `{"a":"x","b":{}}`,
	// Well-known types.
	`{"ts":"2024-01-02T03:04:05Z"}`, `{"ts":"2024-01-02T03:04:05.123456789Z"}`, `{"ts":"2024-01-02T03:04:05.1234567891Z"}`,
	`{"ts":"2024-01-02T03:04:05+01:00"}`, `{"ts":"2024-01-02T03:04:05.5-07:30"}`, `{"ts":"2024-01-02 03:04:05Z"}`,
	`{"ts":"0001-01-01T00:00:00Z"}`, `{"ts":"9999-12-31T23:59:59.999999999Z"}`, `{"ts":"0000-12-31T23:59:59Z"}`,
	`{"ts":"2024-01-02T03:04:05z"}`, `{"ts":"2024-02-30T00:00:00Z"}`, `{"ts":1}`, `{"ts":{}}`, `{"ts":null}`,
	`{"dur":"1.5s"}`, `{"dur":"-1.5s"}`, `{"dur":"+2s"}`, `{"dur":".5s"}`, `{"dur":".s"}`, `{"dur":"0s"}`, `{"dur":"00s"}`,
	`{"dur":"1.0000000001s"}`, `{"dur":"315576000000s"}`, `{"dur":"315576000001s"}`, `{"dur":"-0.000000001s"}`, `{"dur":"1"}`,
	`{"dur":"s"}`, `{"dur":"1.s"}`, `{"dur":" 1s"}`, `{"dur":"1e3s"}`,
	`{"mask":"a,bC.dE"}`, `{"mask":""}`, `{"mask":" "}`, `{"mask":"a_b"}`, `{"mask":"a,,b"}`, `{"mask":"1a"}`, `{"mask":" a , b "}`,
	`{"wi32":5}`, `{"wi32":"5"}`, `{"wi32":null}`, `{"wi32":0}`, `{"wi32":{}}`, `{"wstr":""}`, `{"wstr":1}`,
	`{"val":null}`, `{"val":1.5}`, `{"val":"s"}`, `{"val":true}`, `{"val":[1,"a",null,{"b":[]}]}`, `{"val":{"k":{"k":{}}}}`,
	`{"val":1e400}`, `{"val":-0}`, `{"val":[}`, `{"attrs":{"a":null,"b":[true]}}`, `{"attrs":{"a":1,"a":2}}`, `{"attrs":[]}`,
	`{"attrs":null}`, `{"val":{"a":[[[[{}]]]]}}`,
	`{"payload":{"contentType":"text/plain","data":"aGk="}}`, `{"payload":{"extensions":[{"@type":"x"}]}}`,
	`{"payload":{"extensions":[]}}`,
	// Required fields (ed.v1.Ed), recursion.
	`{"req":1}`, `{"child":{"req":1}}`, `{"req":1,"child":{}}`, `{"byFlag":{"true":{}}}`,
}

// TestInputs checks every seed against every type and option set, and
// that the decoder decides the common, valid forms by itself.
func TestInputs(t *testing.T) {
	types := messageTypes(t)
	for _, o := range unmarshalOptions {
		for _, md := range types {
			for _, s := range seeds {
				agree(t, o, md, []byte(s))
			}
		}
	}
	probe := types[0]
	o := protojson.UnmarshalOptions{DiscardUnknown: true}
	for _, s := range []string{
		`{"name":"a\"b\\c\/d\b\f\n\r\t"}`, `{"name":"\ud83d\ude00"}`, `{"id":"9223372036854775807"}`, `{"dbl":"NaN"}`,
		`{"flt":"-Infinity"}`, `{"blob":"AAEC_v8"}`, `{"color":"NOPE"}`, `{"labels":{"a":"1","b":"2"}}`, `{"optA":null,"optB":"y"}`,
		`{"ts":"2024-01-02T03:04:05.5-07:30"}`, `{"dur":".s"}`, `{"mask":"a,bC.dE"}`, `{"wi32":"5"}`,
		`{"val":[1,"a",null,{"b":[]}]}`, `{"attrs":{"a":null,"b":[true]}}`, `{"nope":{"a":[1,{"b":null}]}}`,
		`{"items":[{},{}]}`, `{"inner":null}`, `{"payload":{"extensions":[]}}`,
	} {
		if decided, _ := agree(t, o, probe, []byte(s)); !decided {
			t.Errorf("decoder left %s to protojson", s)
		}
	}
}

// TestUnmarshalResets checks that Unmarshal, like protojson's, starts
// from an empty message.
func TestUnmarshalResets(t *testing.T) {
	m := &confv1.Probe{Name: "old", Tags: []string{"old"}}
	dec := jsondecNew()
	if err := dec.Unmarshal([]byte(`{"tags":["new"]}`), m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "" || len(m.Tags) != 1 || m.Tags[0] != "new" {
		t.Fatalf("got %v, want only tags [new]", m)
	}
}

func jsondecNew() *jsondec.Decoder {
	return jsondec.New(protojson.UnmarshalOptions{DiscardUnknown: true}, 0)
}

// TestMaxDepth checks that input nested deeper than the decoder's maximum
// is left to protojson, in known and skipped fields alike.
func TestMaxDepth(t *testing.T) {
	dec := jsondec.New(protojson.UnmarshalOptions{DiscardUnknown: true}, 3)
	for _, c := range []struct {
		json string
		want bool
	}{
		{`{"inner":{}}`, true},
		{`{"items":[{}]}`, true},
		{`{"items":[{"x":{}}]}`, false},
		{`{"val":{"a":[]}}`, true},
		{`{"val":{"a":[[]]}}`, false},
		{`{"nope":[{}]}`, true},
		{`{"nope":[{"a":1}]}`, true},
		{`{"nope":[[{}]]}`, false},
		{`{"attrs":{"a":{"b":1}}}`, true},
		{`{"attrs":{"a":{"b":{}}}}`, false},
	} {
		if got := dec.TryUnmarshal([]byte(c.json), &confv1.Probe{}); got != c.want {
			t.Errorf("TryUnmarshal(%s) at depth 3 = %v, want %v", c.json, got, c.want)
		}
	}
}

// TestIntegerLimits checks the integer kinds at and past their limits.
func TestIntegerLimits(t *testing.T) {
	fd, err := protorand.Editions()
	if err != nil {
		t.Fatal(err)
	}
	ed2 := fd.Messages().ByName("Ed2")
	probe := (&confv1.Probe{}).ProtoReflect().Descriptor()
	o := protojson.UnmarshalOptions{}
	for _, v := range []string{"0", "1", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "100000000000000000000", "-0", "00", "1e1"} {
		for _, name := range []string{"i32", "id", "u64"} {
			agree(t, o, probe, []byte(`{"`+name+`":`+v+`}`))
			agree(t, o, probe, []byte(`{"`+name+`":"`+v+`"}`))
		}
		for _, name := range []string{"explicit", "f32", "sf64", "expanded"} {
			j := v
			if name == "expanded" {
				j = "[" + v + "]"
			}
			agree(t, o, ed2, []byte(`{"`+name+`":`+j+`}`))
		}
		agree(t, o, probe, []byte(`{"color":`+v+`}`))
	}
}
