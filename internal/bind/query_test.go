package bind

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/typepb"
)

// boundPath returns the Field for a dotted path of proto names, accepting
// any leaf, as a rule's body field.
func boundPath(t testing.TB, md protoreflect.MessageDescriptor, dotted string) *Field {
	t.Helper()
	var fds []protoreflect.FieldDescriptor
	cur := md
	for comp := range strings.SplitSeq(dotted, ".") {
		fd := cur.Fields().ByName(protoreflect.Name(comp))
		if fd == nil {
			t.Fatalf("no field %q in %s", comp, cur.FullName())
		}
		fds = append(fds, fd)
		cur = fd.Message()
	}
	f, err := BoundField(md, fds)
	if err != nil {
		t.Fatalf("BoundField(%s): %v", dotted, err)
	}
	return f
}

// checkStatus asserts that err is an InvalidArgument status whose message
// contains want and leaks no Go parser internals.
func checkStatus(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", want)
	}
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.InvalidArgument {
		t.Fatalf("got %v, want an InvalidArgument status", err)
	}
	msg := st.Message()
	if !strings.Contains(msg, want) {
		t.Errorf("error %q does not contain %q", msg, want)
	}
	for _, leak := range []string{"strconv", "parsing", "ParseInt", "ParseFloat", "illegal base64", "proto:"} {
		if strings.Contains(msg, leak) {
			t.Errorf("error %q leaks %q", msg, leak)
		}
	}
}

func TestQueryBind(t *testing.T) {
	t.Parallel()
	fx := fixture()
	tests := []struct {
		name    string
		md      protoreflect.MessageDescriptor // default: conf.v1.Probe
		query   string
		opts    QueryOptions
		bound   []string // dotted proto paths bound by the path or the body
		bodyAll bool
		before  string // the message before Bind, as text (the body)
		want    string // the message after Bind, as text
		wantErr string // a substring of the InvalidArgument message
	}{
		// Names (R29).
		{name: "C075 json name", query: "displayName=x", want: `display_name: "x"`},
		{name: "C075 proto name", query: "display_name=x", want: `display_name: "x"`},
		{name: "custom json name", query: "lname=x", want: `last_name: "x"`},
		{name: "proto name with custom json name", query: "last_name=x", want: `last_name: "x"`},
		{name: "C077 camel of proto name is unknown", query: "lastName=x", wantErr: `unknown query parameter "lastName" for conf.v1.Probe`},
		{name: "nested", query: "inner.s=x&inner.i=3", want: `inner {s: "x" i: 3}`},
		{name: "recursive", query: "inner.deeper.deeper.s=x", want: `inner {deeper {deeper {s: "x"}}}`},
		{name: "percent-encoded name", query: "display%5Fname=x", want: `display_name: "x"`},
		{name: "encoded dot is decoded before the split", query: "inner%2Es=x", want: `inner {s: "x"}`},
		{name: "names are not plus-decoded", query: "display+name=x", wantErr: `unknown query parameter "display+name"`},
		{name: "malformed escape in name", query: "na%zzme=x", wantErr: `malformed percent-encoding in query parameter name "na%zzme"`},
		{name: "trailing dot", query: "inner.=x", wantErr: `unknown query parameter "inner."`},
		{name: "100 components", query: "inner" + strings.Repeat(".deeper", 98) + ".s=x", want: "inner {" + strings.Repeat("deeper {", 98) + `s: "x"` + strings.Repeat("}", 99)},
		{name: "101 components", query: "inner" + strings.Repeat(".deeper", 99) + ".s=x", wantErr: `nests more than 100 fields deep`},
		{name: "unknown nested", query: "inner.x=1", wantErr: `unknown query parameter "inner.x" for conf.v1.Probe`},
		{name: "scalar is not a message", query: "name.x=1", wantErr: `unknown query parameter "name.x"`},
		{name: "well-known type has no fields here", query: "ts.seconds=1", wantErr: `unknown query parameter "ts.seconds"`},

		// Unknown and ignored names (R31).
		{name: "C079 ignore unknown", query: "foo=bar&name=n", opts: QueryOptions{IgnoreUnknown: true}, want: `name: "n"`},
		{name: "ignore unknown nested", query: "inner.zz=1&inner.s=a", opts: QueryOptions{IgnoreUnknown: true}, want: `inner {s: "a"}`},
		{name: "C078 ignored name", query: "api_key=secret&name=n", opts: QueryOptions{Ignored: []string{"api_key", "key"}}, want: `name: "n"`},
		{name: "ignored name matched when decoded", query: "api%5Fkey=secret", opts: QueryOptions{Ignored: []string{"api_key"}}, want: ``},
		{name: "ignored name is exact", query: "API_KEY=secret", opts: QueryOptions{Ignored: []string{"api_key"}}, wantErr: `unknown query parameter "API_KEY"`},
		{name: "ignore unknown does not hide a bad value", query: "i32=x", opts: QueryOptions{IgnoreUnknown: true}, wantErr: `for query parameter "i32"`},

		// Tokenising (R28).
		{name: "empty pieces", query: "&&name=n&", want: `name: "n"`},
		{name: "empty name", query: "=x&name=n", want: `name: "n"`},
		{name: "value keeps later equals", query: "name=a=b", want: `name: "a=b"`},
		{name: "C087 no equals is empty string", query: "name", want: ``},
		{name: "C087 no equals on bool", query: "flag", wantErr: `invalid value "" for query parameter "flag": expected a boolean`},

		// Values (R30).
		{name: "C081 plus is a space", query: "inner.s=a+b%2Bc", want: `inner {s: "a b+c"}`},
		{name: "C081 literal plus", query: "inner.s=a+b%2Bc", opts: QueryOptions{LiteralPlus: true}, want: `inner {s: "a+b+c"}`},
		{name: "utf-8 value", query: "name=%E4%BD%A0", want: `name: "你"`},
		{name: "malformed escape in value", query: "name=%zz", wantErr: `malformed percent-encoding in the value of query parameter "name"`},
		{name: "truncated escape in value", query: "name=a%2", wantErr: `malformed percent-encoding`},
		{name: "invalid utf-8", query: "name=%FF", wantErr: `invalid value "\xff" for query parameter "name": not valid UTF-8`},

		// Repeated fields (R32) and duplicates (R33).
		{name: "C083 repeated", query: "tags=a&tags=b", want: `tags: ["a", "b"]`},
		{name: "no comma split in query", query: "tags=a,b", want: `tags: ["a,b"]`},
		{name: "repeated appends after existing", before: `tags: ["x"]`, query: "tags=q", want: `tags: ["x", "q"]`},
		{name: "repeated ints", query: "nums=1&nums=-2", want: `nums: [1, -2]`},
		{name: "repeated bad element", query: "nums=1&nums=x", wantErr: `invalid value "x" for query parameter "nums": expected an integer (int32)`},
		{name: "repeated enum", query: "colors=RED&colors=2", want: `colors: [RED, GREEN]`},
		{name: "C085 singular twice", query: "i32=1&i32=2", wantErr: `query parameter "i32" given more than once`},
		{name: "singular twice by two names", query: "display_name=a&displayName=b", wantErr: `query parameter "displayName" given more than once; field "display_name" is not repeated`},
		{name: "nested singular twice", query: "inner.s=a&inner.i=1&inner.s=b", wantErr: `query parameter "inner.s" given more than once`},
		{name: "same field at two depths", query: "inner.s=a&inner.deeper.s=b", want: `inner {s: "a" deeper {s: "b"}}`},
		{name: "wrapper twice", query: "wi32=1&wi32=2", wantErr: `given more than once`},
		{name: "many singular fields", query: "name=a&id=1&i32=2&u64=3&flag=1&dbl=1.5&flt=2.5&color=RED&inner.s=s&inner.i=4&ts=2017-01-15T01:30:15Z&dur=1s&wi32=5&wstr=w&val=v&opt_a=o&displayName=d&lname=l&parent=p&i32=9",
			wantErr: `query parameter "i32" given more than once`},

		// Leaf types (R34).
		{name: "C089 empty int", query: "i32=", wantErr: `invalid value "" for query parameter "i32": expected an integer (int32)`},
		{name: "R37 empty string in nested", query: "inner.s=", want: `inner {}`},
		{name: "C091 message leaf", query: "inner=x", wantErr: `cannot set message field "inner" from a query parameter: conf.v1.Inner is a message type with no string form`},
		{name: "C093 map by bracket is unknown", query: "labels[k]=v", wantErr: `unknown query parameter "labels[k]"`},
		{name: "map by dot", query: "labels.k=v", wantErr: `query parameter "labels.k" is not allowed: "labels" is a map field`},
		{name: "map leaf", query: "labels=v", wantErr: `cannot set map field "labels" from a query parameter`},
		{name: "C094 into repeated message", query: "items.s=x", wantErr: `query parameter "items.s" is not allowed: "items" is a repeated field`},
		{name: "C094 ignore unknown keeps repeated message error", query: "items.s=x", opts: QueryOptions{IgnoreUnknown: true}, wantErr: `"items" is a repeated field`},
		{name: "repeated message leaf", query: "items=x", wantErr: `cannot set repeated message field "items"`},
		{name: "struct leaf", query: "attrs=x", wantErr: `cannot set google.protobuf.Struct field "attrs" from a query parameter`},
		{name: "C097 true", query: "flag=true", want: `flag: true`},
		{name: "C097 1", query: "flag=1", want: `flag: true`},
		{name: "C097 TRUE", query: "flag=TRUE", want: `flag: true`},
		{name: "bool t", query: "flag=t", want: `flag: true`},
		{name: "bool False", query: "flag=False", want: ``},
		{name: "bool yes", query: "flag=yes", wantErr: `invalid value "yes" for query parameter "flag"`},
		{name: "bool tRUE", query: "flag=tRUE", wantErr: `expected a boolean`},
		{name: "C099 enum name", query: "color=GREEN", want: `color: GREEN`},
		{name: "C099 enum number", query: "color=2", want: `color: GREEN`},
		{name: "C101 undeclared enum number", query: "color=7", wantErr: `invalid value "7" for query parameter "color": expected a value name or a declared number of enum conf.v1.Color`},
		{name: "enum name is case-sensitive", query: "color=green", wantErr: `enum conf.v1.Color`},
		{name: "enum negative", query: "color=-1", wantErr: `enum conf.v1.Color`},
		{name: "C103 negative uint64", query: "u64=-1", wantErr: `invalid value "-1" for query parameter "u64": expected a non-negative integer (uint64)`},
		{name: "uint64 max", query: "u64=18446744073709551615", want: `u64: 18446744073709551615`},
		{name: "uint64 overflow", query: "u64=18446744073709551616", wantErr: `out of range for uint64`},
		{name: "int64 min", query: "id=-9223372036854775808", want: `id: -9223372036854775808`},
		{name: "int32 overflow", query: "i32=2147483648", wantErr: `invalid value "2147483648" for query parameter "i32": out of range for int32`},
		{name: "int plus sign", query: "i32=%2B5", want: `i32: 5`},
		{name: "int exponent", query: "i32=1e3", wantErr: `expected an integer (int32)`},
		{name: "int space", query: "i32=%205", wantErr: `expected an integer`},
		{name: "int decimal", query: "i32=1.0", wantErr: `expected an integer`},
		{name: "C105 inf", query: "dbl=inf", wantErr: `invalid value "inf" for query parameter "dbl": expected a number (double)`},
		{name: "double +Inf", query: "dbl=%2BInf", wantErr: `expected a number`},
		{name: "double hex", query: "dbl=0x1p-2", wantErr: `expected a number`},
		{name: "double leading dot", query: "dbl=.5", wantErr: `expected a number`},
		{name: "double trailing dot", query: "dbl=1.", wantErr: `expected a number`},
		{name: "double leading zero", query: "dbl=01", wantErr: `expected a number`},
		{name: "double exponent", query: "dbl=-1.5e3", want: `dbl: -1500`},
		{name: "double Infinity", query: "dbl=Infinity", want: `dbl: inf`},
		{name: "double -Infinity", query: "dbl=-Infinity", want: `dbl: -inf`},
		{name: "double NaN", query: "dbl=NaN", want: `dbl: nan`},
		{name: "double out of range", query: "dbl=1e400", wantErr: `out of range for double`},
		{name: "float", query: "flt=2.5", want: `flt: 2.5`},
		{name: "float out of range", query: "flt=3.5e38", wantErr: `invalid value "3.5e38" for query parameter "flt": out of range for float`},
		{name: "C107 raw plus in base64 is a space", query: "blob=aGk+", wantErr: `invalid value "aGk " for query parameter "blob": expected base64`},
		{name: "C107 literal plus", query: "blob=aGk+", opts: QueryOptions{LiteralPlus: true}, want: `blob: "hi>"`},
		{name: "base64 encoded plus", query: "blob=aGk%2B", want: `blob: "hi>"`},
		{name: "base64 url alphabet", query: "blob=aGk-", want: `blob: "hi>"`},
		{name: "base64 unpadded", query: "blob=aGk", want: `blob: "hi"`},
		{name: "base64 padded", query: "blob=aGk%3D", want: `blob: "hi"`},
		{name: "base64 invalid", query: "blob=a", wantErr: `expected base64`},
		{name: "C109 timestamp", query: "ts=2017-01-15T01:30:15.01Z", want: `ts {seconds: 1484443815 nanos: 10000000}`},
		{name: "C111 raw plus offset is a space", query: "ts=2017-01-15T01:30:15+08:00", wantErr: `expected an RFC 3339 timestamp`},
		{name: "C111 literal plus", query: "ts=2017-01-15T01:30:15+08:00", opts: QueryOptions{LiteralPlus: true}, want: `ts {seconds: 1484415015}`},
		{name: "C111 encoded plus", query: "ts=2017-01-15T01:30:15%2B08:00", want: `ts {seconds: 1484415015}`},
		{name: "timestamp ten fraction digits", query: "ts=2017-01-15T01:30:15.0123456789Z", wantErr: `expected an RFC 3339 timestamp`},
		{name: "timestamp date only", query: "ts=2017-01-15", wantErr: `expected an RFC 3339 timestamp`},
		{name: "timestamp year zero", query: "ts=0000-12-31T23:59:59Z", wantErr: `expected an RFC 3339 timestamp`},
		{name: "C113 duration", query: "dur=1.5s", want: `dur {seconds: 1 nanos: 500000000}`},
		{name: "duration negative", query: "dur=-1.5s", want: `dur {seconds: -1 nanos: -500000000}`},
		{name: "duration Go syntax", query: "dur=90m", want: `dur {seconds: 5400}`},
		{name: "duration Go compound", query: "dur=1h30m0.25s", want: `dur {seconds: 5400 nanos: 250000000}`},
		{name: "duration max", query: "dur=315576000000s", want: `dur {seconds: 315576000000}`},
		{name: "duration out of range", query: "dur=315576000001s", wantErr: `expected a duration`},
		{name: "duration no unit", query: "dur=1.5", wantErr: `invalid value "1.5" for query parameter "dur": expected a duration`},
		{name: "C115 field mask", query: "mask=displayName,inner.s", want: `mask {paths: ["display_name", "inner.s"]}`},
		{name: "field mask snake stays", query: "mask=display_name", want: `mask {paths: ["display_name"]}`},
		{name: "field mask empty", query: "mask=", want: `mask {}`},
		{name: "field mask empty path", query: "mask=a,,b", wantErr: `expected comma-separated field paths`},
		{name: "field mask bad path", query: "mask=a.1b", wantErr: `expected comma-separated field paths`},
		{name: "wrapper int32", query: "wi32=5", want: `wi32 {value: 5}`},
		{name: "wrapper int32 zero", query: "wi32=0", want: `wi32 {}`},
		{name: "wrapper bad", query: "wi32=x", wantErr: `invalid value "x" for query parameter "wi32": expected an integer (int32)`},
		{name: "wrapper string empty", query: "wstr=", want: `wstr {}`},
		{name: "C117 value is string_value", query: "val=123", want: `val {string_value: "123"}`},
		{name: "value invalid utf-8", query: "val=%C3", wantErr: `not valid UTF-8`},

		// Oneofs (R35).
		{name: "C095 two oneof members", query: "opt_a=1&opt_b=2", wantErr: `query parameter "opt_b": oneof "choice" already has field "opt_a" set`},
		{name: "oneof member set by the body", before: `opt_a: "x"`, query: "opt_b=2", wantErr: `oneof "choice" already has field "opt_a" set`},
		{name: "oneof member once", query: "opt_b=2", want: `opt_b: "2"`},

		// Bound fields (R27, R36; PROFILE: 400).
		{name: "C086 path-bound field", query: "name=zz", bound: []string{"name"}, wantErr: `query parameter "name" is not allowed: field "name" is bound by the path or the body`},
		{name: "path-bound field by json name", query: "displayName=zz", bound: []string{"display_name"}, wantErr: `field "display_name" is bound`},
		{name: "path-bound other field ok", query: "i32=5", bound: []string{"name"}, want: `i32: 5`},
		{name: "C119 under the body field", query: "inner.s=q", bound: []string{"name", "inner"}, wantErr: `query parameter "inner.s" is not allowed: field "inner" is bound`},
		{name: "C121 under the body field, deeper", query: "inner.deeper.s=q", bound: []string{"inner"}, wantErr: `field "inner" is bound`},
		{name: "prefix of a bound field", query: "inner=x", bound: []string{"inner.s"}, wantErr: `query parameter "inner" is not allowed: field "inner.s" is bound`},
		{name: "sibling of a bound field", query: "inner.i=1&inner.deeper.s=d", bound: []string{"inner.s"}, want: `inner {i: 1 deeper {s: "d"}}`},
		{name: "C123 body star", query: "tags=q", bodyAll: true, wantErr: `unknown query parameter "tags" for conf.v1.Probe: the rule's body is "*"`},
		{name: "body star ignore unknown", query: "tags=q", bodyAll: true, opts: QueryOptions{IgnoreUnknown: true}, want: ``},
		{name: "body star ignored name", query: "key=q", bodyAll: true, opts: QueryOptions{Ignored: []string{"key"}}, want: ``},

		// conf.v1.Extra: Empty, other kinds.
		{name: "empty message", md: fx.extra, query: "e=", want: `e {}`},
		{name: "empty message braces", md: fx.extra, query: "e=%7B%7D", want: `e {}`},
		{name: "empty message raw braces", md: fx.extra, query: "e={}", want: `e {}`},
		{name: "empty message no equals", md: fx.extra, query: "e", want: `e {}`},
		{name: "empty message bad", md: fx.extra, query: "e=x", wantErr: `expected "" or "{}"`},
		{name: "oneof empty", md: fx.extra, query: "oneof_empty=", want: `oneof_empty {}`},
		{name: "oneof empty then message member", md: fx.extra, query: "oneof_empty=&oneof_inner.s=x", wantErr: `query parameter "oneof_inner.s": oneof "pick" already has field "oneof_empty" set`},
		{name: "oneof message member twice", md: fx.extra, query: "oneof_inner.s=x&oneof_inner.i=2", want: `oneof_inner {s: "x" i: 2}`},
		{name: "sint32", md: fx.extra, query: "s32=-7", want: `s32: -7`},
		{name: "fixed64", md: fx.extra, query: "f64=7", want: `f64: 7`},
		{name: "uint32 overflow", md: fx.extra, query: "u32=4294967296", wantErr: `out of range for uint32`},
		{name: "bytes wrapper", md: fx.extra, query: "wbytes=aGk", want: `wbytes {value: "hi"}`},
		{name: "bool wrapper", md: fx.extra, query: "wbool=f", want: `wbool {}`},
		{name: "double wrapper", md: fx.extra, query: "wdbl=-Infinity", want: `wdbl {value: -inf}`},
		{name: "uint64 wrapper", md: fx.extra, query: "wu64=-1", wantErr: `expected a non-negative integer (uint64)`},
		{name: "repeated bytes", md: fx.extra, query: "blobs=aGk&blobs=", want: `blobs: ["hi", ""]`},
		{name: "repeated bools", md: fx.extra, query: "flags=T&flags=0", want: `flags: [true, false]`},
		{name: "repeated timestamp", md: fx.extra, query: "tss=2017-01-15T01:30:15Z", wantErr: `cannot set repeated message field "tss" from a query parameter`},
		{name: "list value", md: fx.extra, query: "lv=x", wantErr: `cannot set google.protobuf.ListValue field "lv"`},
		{name: "any", md: fx.extra, query: "any=x", wantErr: `cannot set google.protobuf.Any field "any"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			md := tt.md
			if md == nil {
				md = fx.probe
			}
			var bound []*Field
			for _, p := range tt.bound {
				bound = append(bound, boundPath(t, md, p))
			}
			q := NewQuery(md, bound, tt.bodyAll, tt.opts)
			m := parseText(t, md, tt.before)
			err := q.Bind(m, tt.query)
			if tt.wantErr != "" {
				checkStatus(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("Bind(%q): %v", tt.query, err)
			}
			checkMessage(t, m, parseText(t, md, tt.want))
		})
	}
}

func TestQueryBindTruncatesQuotes(t *testing.T) {
	t.Parallel()
	q := NewQuery(fixture().probe, nil, false, QueryOptions{})
	long := strings.Repeat("a", 200)
	tests := []struct {
		name  string
		query string
		want  string
	}{
		{name: "value", query: "i32=" + long, want: `invalid value "` + long[:64] + `…" for query parameter "i32"`},
		{name: "name", query: long + "=1", want: `unknown query parameter "` + long[:64] + `…" for conf.v1.Probe`},
		{name: "rune boundary", query: "i32=" + strings.Repeat("a", 63) + "%E4%BD%A0", want: `invalid value "` + strings.Repeat("a", 63) + `…"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := q.Bind(dynamicpb.NewMessage(fixture().probe), tt.query)
			checkStatus(t, err, tt.want)
			if strings.Contains(err.Error(), long[:65]) {
				t.Errorf("error quotes more than 64 bytes: %v", err)
			}
		})
	}
}

// checkMessage fails the test unless got equals want.
func checkMessage(t *testing.T, got, want proto.Message) {
	t.Helper()
	if !proto.Equal(got, want) {
		t.Errorf("got message\n  {%v}\nwant\n  {%v}", prototext.Format(got), prototext.Format(want))
	}
}

// TestQueryBindGenerated binds into a generated message.
func TestQueryBindGenerated(t *testing.T) {
	t.Parallel()
	md := (&apipb.Method{}).ProtoReflect().Descriptor()
	q := NewQuery(md, nil, false, QueryOptions{})
	m := &apipb.Method{}
	if err := q.Bind(m.ProtoReflect(), "name=Get&requestTypeUrl=t&request_streaming=1&syntax=SYNTAX_PROTO3"); err != nil {
		t.Fatal(err)
	}
	want := &apipb.Method{Name: "Get", RequestTypeUrl: "t", RequestStreaming: true, Syntax: typepb.Syntax_SYNTAX_PROTO3}
	checkMessage(t, m, want)
}
