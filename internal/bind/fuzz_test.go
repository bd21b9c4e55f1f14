package bind

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// FuzzQueryBind binds random raw queries into conf.v1.Probe. Bind must
// not panic, must be deterministic (the same message or the same error),
// must fail only with a clean InvalidArgument status, and must leave a
// message that marshals.
func FuzzQueryBind(f *testing.F) {
	for _, s := range []string{
		"",
		"name=a&id=1&i32=-2&u64=3&flag=t&dbl=1.5e3&flt=NaN&blob=aGk&color=GREEN",
		"tags=a&tags=b&nums=1&nums=2&colors=RED&colors=2",
		"inner.s=a+b%2Bc&inner.deeper.deeper.i=7",
		"ts=2017-01-15T01:30:15.01Z&dur=1h30m&mask=displayName,inner.s&wi32=5&wstr=&val=123",
		"opt_a=1&opt_b=2",
		"i32=1&i32=2",
		"labels[k]=v&items.s=x&attrs=x",
		"displayName=x&lname=y&last_name=z",
		"%zz=1&name=%",
		"name&flag&=x&&",
		"inner%2Es=x&display%5Fname=y",
	} {
		f.Add(s)
	}
	fx := fixture()
	queries := []*Query{
		NewQuery(fx.probe, nil, false, QueryOptions{}),
		NewQuery(fx.probe, []*Field{resolve(f, fx.probe, "name"), boundPath(f, fx.probe, "inner")}, false,
			QueryOptions{IgnoreUnknown: true, LiteralPlus: true, Ignored: []string{"key"}}),
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, q := range queries {
			m1, m2 := dynamicpb.NewMessage(fx.probe), dynamicpb.NewMessage(fx.probe)
			err1, err2 := q.Bind(m1, raw), q.Bind(m2, raw)
			if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
				t.Fatalf("Bind(%q) is not deterministic: %v, then %v", raw, err1, err2)
			}
			if err1 != nil {
				st, ok := status.FromError(err1)
				if !ok || st.Code() != codes.InvalidArgument {
					t.Fatalf("Bind(%q) = %v, want an InvalidArgument status", raw, err1)
				}
				msg := st.Message()
				if strings.Contains(msg, "strconv") || strings.Contains(msg, "parsing") || !utf8.ValidString(msg) || len(msg) > 1024 {
					t.Fatalf("Bind(%q): unclean error message %q", raw, msg)
				}
				continue
			}
			opts := proto.MarshalOptions{Deterministic: true}
			b1, err := opts.Marshal(m1)
			if err != nil {
				t.Fatalf("Bind(%q) left a message that does not marshal: %v", raw, err)
			}
			b2, _ := opts.Marshal(m2)
			if !bytes.Equal(b1, b2) {
				t.Fatalf("Bind(%q) is not deterministic", raw)
			}
			// A FieldMask path such as "a_1" is fine on the wire but has no
			// JSON form; everything else must render as JSON too.
			m1.Clear(fx.probe.Fields().ByName("mask"))
			if _, err := protojson.Marshal(m1); err != nil {
				t.Fatalf("Bind(%q) left a message that does not marshal to JSON: %v", raw, err)
			}
		}
	})
}

// FuzzDeriveFieldMask checks the JSON scanner of DeriveFieldMask against
// encoding/json: a body is accepted exactly when it is valid UTF-8 and
// valid JSON (or blank), and the paths are sorted and distinct.
func FuzzDeriveFieldMask(f *testing.F) {
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `"x"`, `1.5e3`, `null`,
		`{"displayName":"x","inner":{"s":"a","deeper":{"i":1}}}`,
		`{"attrs":{"a":{"b":[1,{"c":null}]},"":{}},"val":{"k":true}}`,
		`{"items":[{"s":"x"}],"labels":{"k":"v"},"nope":{"x":[1,{"y":2}]}}`,
		`{"na\u006de":"x","inner":{"\"":1}}`,
		`{"name":"x"} x`, `{"name":}`, `{"name":01}`, `{"a" "b"}`, `{"a":"\x"}`,
	} {
		f.Add([]byte(s))
	}
	d := NewMaskDeriver(fixture().probe)
	f.Fuzz(func(t *testing.T, body []byte) {
		paths, err := d.Derive(body)
		blank := len(bytes.TrimLeft(body, " \t\r\n")) == 0
		valid := utf8.Valid(body) && (blank || json.Valid(body))
		if (err == nil) != valid {
			t.Fatalf("Derive(%q) error = %v, but valid = %v", body, err, valid)
		}
		if !slices.IsSorted(paths) || len(slices.Compact(slices.Clone(paths))) != len(paths) {
			t.Fatalf("Derive(%q) = %q: not sorted and distinct", body, paths)
		}
	})
}

// FuzzParseDuration checks a query Duration against its two grammars:
// protojson's string form (unless it has no digit: see parseDuration) and
// Go's time.ParseDuration; it is taken exactly when one of them takes it,
// with that one's value (protojson's first).
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"1s", "-1.5s", ".5s", ".s", "-.s", "1.s", "00s", "90m", "-1m0.5s", "0", "315576000001s", "1e3s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		secs, nanos, ok := parseDuration(s)
		var d durationpb.Duration
		q, _ := json.Marshal(s)
		if utf8.ValidString(s) && protojson.Unmarshal(q, &d) == nil && strings.ContainsAny(s, "0123456789") {
			if !ok || secs != d.Seconds || nanos != d.Nanos {
				t.Fatalf("parseDuration(%q) = %d, %d, %v; protojson: %d, %d", s, secs, nanos, ok, d.Seconds, d.Nanos)
			}
			return
		}
		gd, err := time.ParseDuration(s)
		if ok != (err == nil) || ok && (secs != int64(gd/time.Second) || nanos != int32(gd%time.Second)) {
			t.Fatalf("parseDuration(%q) = %d, %d, %v; time.ParseDuration: %v, %v", s, secs, nanos, ok, gd, err)
		}
	})
}
