package bind

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protopath"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/validation"
)

// TestFieldName names violations' fields as the client wrote them: a path
// variable's name, a query parameter's name as given, the body's JSON or
// proto names, with list indexes, map keys and oneofs.
func TestFieldName(t *testing.T) {
	fx := fixture()
	probe := fx.probe
	field := func(name string) protopath.Step {
		return protopath.FieldAccess(probe.Fields().ByName(protoreflect.Name(name)))
	}
	innerS := protopath.FieldAccess(fx.inner.Fields().ByName("s"))
	root := protopath.Root(probe)
	jsonCodec := &codec.JSON{}
	jsonFormat := &negotiate.Format{JSON: jsonCodec}
	binary := &negotiate.Format{Proto: true}
	cases := []struct {
		name, template, body, query string
		format                      *negotiate.Format
		protoNames                  bool
		path                        protopath.Path
		oneof                       protoreflect.OneofDescriptor
		want                        string
	}{
		{name: "message", template: "/v1/probes", body: "*", path: protopath.Path{root}, want: ""},
		{name: "body json", template: "/v1/probes", body: "*", path: protopath.Path{root, field("display_name")}, want: "displayName"},
		{name: "body proto names", template: "/v1/probes", body: "*", protoNames: true, path: protopath.Path{root, field("display_name")}, want: "display_name"},
		{name: "binary body", template: "/v1/probes", body: "*", format: binary, path: protopath.Path{root, field("display_name")}, want: "display_name"},
		{name: "another codec's body", template: "/v1/probes", body: "*", format: &negotiate.Format{Media: "application/yaml"}, path: protopath.Path{root, field("display_name")}, want: "displayName"},
		{name: "nested", template: "/v1/probes", body: "*", path: protopath.Path{root, field("inner"), innerS}, want: "inner.s"},
		{name: "list", template: "/v1/probes", body: "*", path: protopath.Path{root, field("items"), protopath.ListIndex(2), innerS}, want: "items[2].s"},
		{name: "map", template: "/v1/probes", body: "*", path: protopath.Path{root, field("labels"), protopath.MapIndex(protoreflect.ValueOfString(`a"b`).MapKey())}, want: `labels["a\"b"]`},
		{name: "oneof", template: "/v1/probes", body: "*", path: protopath.Path{root}, oneof: probe.Oneofs().ByName("choice"), want: "choice"},
		{name: "path variable", template: "/v1/probes/{display_name}", body: "*", path: protopath.Path{root, field("display_name")}, want: "display_name"},
		{name: "path variable nested", template: "/v1/n/{inner.s}", path: protopath.Path{root, field("inner"), innerS}, want: "inner.s"},
		{name: "query as given", template: "/v1/probes", query: "x=1&display_name=a", path: protopath.Path{root, field("display_name")}, want: "display_name"},
		{name: "query json", template: "/v1/probes", query: "displayName=a", path: protopath.Path{root, field("display_name")}, want: "displayName"},
		{name: "query escaped", template: "/v1/probes", query: "inner%2Es=a", path: protopath.Path{root, field("inner"), innerS}, want: "inner.s"},
		{name: "query repeated", template: "/v1/probes", query: "tags=a&tags=", path: protopath.Path{root, field("tags"), protopath.ListIndex(1)}, want: "tags[1]"},
		{name: "not from the query", template: "/v1/probes", query: "name=a", path: protopath.Path{root, field("display_name")}, want: "displayName"},
		{name: "body field", template: "/v1/probes", body: "inner", path: protopath.Path{root, field("inner"), innerS}, want: "inner.s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmpl, err := httprule.Parse(c.template)
			if err != nil {
				t.Fatal(err)
			}
			opts := RequestOptions{JSON: &codec.JSON{}}
			opts.JSON.MarshalOptions.UseProtoNames = c.protoNames
			p, err := NewRequest(probe, "POST", tmpl, c.body, opts)
			if err != nil {
				t.Fatal(err)
			}
			format := c.format
			if format == nil {
				format = jsonFormat
			}
			v := &validation.Violation{Field: c.path, Oneof: c.oneof, Rule: "r", Message: "m"}
			if got := p.FieldName(v, &Input{Format: format, RawQuery: c.query}); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestValidate answers a check's failures: violations as INVALID_ARGUMENT
// with the fields named, a status as it is, anything else as INTERNAL.
func TestValidate(t *testing.T) {
	fx := fixture()
	tmpl, _ := httprule.Parse("/v1/probes/{name}")
	p, err := NewRequest(fx.probe, "GET", tmpl, "", RequestOptions{JSON: &codec.JSON{}})
	if err != nil {
		t.Fatal(err)
	}
	name := protopath.Path{protopath.Root(fx.probe), protopath.FieldAccess(fx.probe.Fields().ByName("name"))}
	in := &Input{Format: &negotiate.Format{JSON: &codec.JSON{}}}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&validation.Error{Violations: []validation.Violation{{Field: name, Rule: "string.min_len", Message: "too short"}}},
			"rpc error: code = InvalidArgument desc = invalid request: name: too short"},
		{invalidArgument("own"), "rpc error: code = InvalidArgument desc = own"},
		{errors.New("broke"), "rpc error: code = Internal desc = checking the request: broke"},
	} {
		p.Check = func(proto.Message) error { return c.err }
		got := p.Validate(nil, in)
		if got == nil || got.Error() != c.want {
			t.Errorf("got %v, want %s", got, c.want)
		}
	}
}

// FuzzQueryNameOf finds the parameter of random raw queries that set a
// field. It must not panic, and a name it returns must resolve to the
// start of the path.
func FuzzQueryNameOf(f *testing.F) {
	for _, s := range []string{"", "inner.s=a", "inner%2Es=a&name=b", "tags=a&tags=", "%zz=1&name=%", "&&=&inner.s", "inner.deeper.s=1"} {
		f.Add(s)
	}
	fx := fixture()
	q := NewQuery(fx.probe, nil, false, QueryOptions{})
	inner := fx.probe.Fields().ByName("inner")
	paths := [][]protoreflect.FieldDescriptor{
		{fx.probe.Fields().ByName("name")},
		{inner, fx.inner.Fields().ByName("s")},
		{fx.probe.Fields().ByName("tags")},
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, path := range paths {
			name, n, ok := q.NameOf(raw, path)
			if !ok {
				continue
			}
			plans, err := q.resolve(nil, name)
			if err != nil || len(plans) != n || n > len(path) || !hasPrefix(path, planFields(plans)) {
				t.Fatalf("NameOf(%q) = %q, %d: resolves to %v, %v", raw, name, n, planFields(plans), err)
			}
		}
	})
}
