package bind

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// queryWireSeeds are the seeds of FuzzQueryWire and the cases of
// TestQueryAppendWire, with whether the bytes are appended.
var queryWireSeeds = []struct {
	raw    string
	append bool
}{
	{"", true},
	{"name=a&id=1&i32=-2&u64=3&flag=t&dbl=1.5e3&flt=NaN&blob=aGk&color=GREEN", true},
	{"tags=a&tags=b&nums=1&nums=0&colors=RED&colors=2", true},
	{"inner.s=a+b%2Bc&inner.deeper.deeper.i=7", true},
	{"ts=2017-01-15T01:30:15.01Z&dur=1h30m", true},
	{"ts=2017-01-15T01:30:15.01Z&dur=1h30m&mask=displayName,inner.s", false}, // a FieldMask
	{"wi32=5", false},      // a wrapper
	{"opt_a=1", false},     // a oneof
	{"i32=0", false},       // a zero without presence
	{"i32=1&i32=2", false}, // Bind fails
	{"labels[k]=v", false}, // Bind fails
	{"%zz=1", false},       // Bind fails
	{"displayName=x&lname=y&last_name=z", false},
	{"key=1&unknown=2&name=n", false}, // unknown to the plain rule; ignored by the second
	{"name&flag&=x&&", false},
	{"inner%2Es=x&display%5Fname=y", true},
}

// checkQueryWire checks AppendWire against Bind for raw with q: when it
// appends, Bind succeeds and the bytes decode to the message Bind fills;
// when Bind fails, it does not append.
func checkQueryWire(t *testing.T, q *Query, raw string) (appended bool) {
	t.Helper()
	fx := fixture()
	prefix := []byte{0x08, 0x01}
	b, ok := q.AppendWire(prefix, raw)
	want := dynamicpb.NewMessage(fx.probe)
	bindErr := q.Bind(want, raw)
	if !ok {
		if string(b) != string(prefix) {
			t.Errorf("%q: not appended, but b changed to %x", raw, b)
		}
		return false
	}
	if bindErr != nil {
		t.Fatalf("%q: appended %x, but Bind fails: %v", raw, b[len(prefix):], bindErr)
	}
	got := dynamicpb.NewMessage(fx.probe)
	if err := proto.Unmarshal(b[len(prefix):], got); err != nil {
		t.Fatalf("%q: appended %x, which does not decode: %v", raw, b[len(prefix):], err)
	}
	if !proto.Equal(got, want) || len(got.GetUnknown()) > 0 {
		t.Errorf("%q: appended %x, which decodes to %v; Bind sets %v", raw, b[len(prefix):], got, want)
	}
	return true
}

func queryWireQueries(t testing.TB) []*Query {
	fx := fixture()
	return []*Query{
		NewQuery(fx.probe, nil, false, QueryOptions{}),
		NewQuery(fx.probe, []*Field{resolve(t, fx.probe, "name"), boundPath(t, fx.probe, "inner")}, false,
			QueryOptions{IgnoreUnknown: true, LiteralPlus: true, Ignored: []string{"key"}}),
		NewQuery(fx.probe, nil, true, QueryOptions{Ignored: []string{"key"}}),
	}
}

func TestQueryAppendWire(t *testing.T) {
	qs := queryWireQueries(t)
	for _, c := range queryWireSeeds {
		for _, q := range qs {
			checkQueryWire(t, q, c.raw)
		}
		if got := checkQueryWire(t, qs[0], c.raw); got != c.append {
			t.Errorf("%q: appended %v, want %v", c.raw, got, c.append)
		}
	}
}

// FuzzQueryWire checks AppendWire against Bind on any query, for a
// plain rule, one with bound fields, ignored and unknown names, and one
// whose body is "*".
func FuzzQueryWire(f *testing.F) {
	for _, c := range queryWireSeeds {
		f.Add(c.raw)
	}
	qs := queryWireQueries(f)
	f.Fuzz(func(t *testing.T, raw string) {
		for _, q := range qs {
			checkQueryWire(t, q, raw)
		}
	})
}

func BenchmarkQueryAppendWire(b *testing.B) {
	q := NewQuery(fixture().probe, nil, false, QueryOptions{})
	const raw = "name=Toni%20Morrison&id=200&tags=science&ts=2024-05-01T00:00:00Z&i32=2"
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := q.AppendWire(buf[:0], raw); !ok {
			b.Fatal("not appended")
		}
	}
}
