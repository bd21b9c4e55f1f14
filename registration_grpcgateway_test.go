package protorest_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest"
)

// gatewayRulesProto holds rules that google/api/http.proto forbids or
// leaves unsaid but that grpc-gateway v2.32 serves (its generator and
// runtime accept them), one method each. Every method answers its
// request.
const gatewayRulesProto = `syntax = "proto3";
package rules.v1;
import "google/api/annotations.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
message Deep { string v = 1; }
message Inner { string s = 1; Deep d = 2; }
message Msg {
  string name = 1; Inner inner = 2; repeated string tags = 3;
  google.protobuf.Timestamp ts = 4; google.protobuf.StringValue wrapped = 5;
}
service Rules {
  rpc NestedBody(Msg) returns (Msg) { option (google.api.http) = { post: "/v1/body/{name}" body: "inner.d" }; }
  rpc RepeatedPath(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/tags/{tags}" }; }
  rpc WellKnownPath(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/wkt/{ts}/{wrapped}" }; }
  rpc NestedResponseBody(Msg) returns (Msg) {
    option (google.api.http) = {
      get: "/v1/rb/{name}" response_body: "inner.s"
      additional_bindings { get: "/v1/rbd/{name}" response_body: "inner.d" }
      additional_bindings { get: "/v1/rbstar/{name}" response_body: "*" }
    };
  }
  rpc NoPattern(Msg) returns (Msg) { option (google.api.http) = { body: "*" additional_bindings { get: "/v1/extra/{name}" } }; }
  rpc EmptyPath(Msg) returns (Msg) { option (google.api.http) = { get: "" }; }
  rpc ColonInLiteral(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/colon/a:b/{name=c:d}" }; }
  rpc StarInLiteral(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/star/a*b/{name}:*" }; }
  rpc AfterDeep(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/deep/{name=**}/{inner.s}:go" }; }
  rpc BoundTwice(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/twice/{name}/{name}" }; }
  rpc EmptySegment(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/empty//" }; }
  rpc EmptyVerb(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/emptyverb/{name}:" }; }
  rpc EmptyVerbPart(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/verbs/{name}::v" }; }
  rpc LiteralBeforeEmptyVerb(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/verbs/x:a:" }; }
  rpc LiteralEndingInColon(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/verbs/x::a" }; }
  rpc RootVerb(Msg) returns (Msg) { option (google.api.http) = { get: "/:v" }; }
}
`

// TestGRPCGatewayRulesServed: what grpc-gateway serves beyond
// google/api/http.proto is served (MIGRATING.md, "What you keep"), as
// grpc-gateway serves it: a nested field path in body and response_body,
// response_body "*", repeated and well-known path variables, a rule
// without a pattern (its additional bindings only), colons and stars
// inside literals, segments after "**", a field bound twice (the last
// wins), and the templates grpc-gateway's parser reads its own way (an
// empty segment is "*", an empty verb none, a verb split at a variable's
// first colon or a literal's last: "{name}::v" is the verb ":v", "x:a:"
// the literal "x:a", "x::a" the literal "x:" and the verb "a"); the
// OpenAPI document has every route that can match a request (a root
// with a verb matches none, in grpc-gateway too).
func TestGRPCGatewayRulesServed(t *testing.T) {
	t.Parallel()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
		&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"rules/v1/rules.proto": gatewayRulesProto})},
		protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
			fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
			return protocompile.SearchResult{Desc: fd}, err
		}),
	})}
	compiled, err := c.Compile(t.Context(), "rules/v1/rules.proto")
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(compiled[0]); err != nil {
		t.Fatal(err)
	}
	sd := compiled[0].Services().Get(0)
	desc := &grpc.ServiceDesc{ServiceName: string(sd.FullName())}
	for i := range sd.Methods().Len() {
		md := sd.Methods().Get(i)
		desc.Methods = append(desc.Methods, grpc.MethodDesc{
			MethodName: string(md.Name()),
			Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				in := dynamicpb.NewMessage(md.Input())
				if err := dec(in); err != nil {
					return nil, err
				}
				return in, nil
			},
		})
	}
	gw := protorest.NewGateway(protorest.WithFiles(files), protorest.WithMarshalOptions(protojson.MarshalOptions{}))
	if msg := registerPanic(gw, desc); msg != "" {
		t.Fatalf("RegisterService panicked: %s", msg)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)

	for _, tt := range []struct{ name, method, path, body, want string }{
		{"nested body", "POST", "/v1/body/n", `{"v":"x"}`, `{"name":"n","inner":{"d":{"v":"x"}}}`},
		{"repeated path variable, comma-separated", "GET", "/v1/tags/a,b", "", `{"tags":["a","b"]}`},
		{"well-known path variables", "GET", "/v1/wkt/2025-01-02T03:04:05Z/w", "", `{"ts":"2025-01-02T03:04:05Z","wrapped":"w"}`},
		{"nested response_body", "GET", "/v1/rb/n?inner.s=hi", "", `"hi"`},
		{"nested response_body, unset", "GET", "/v1/rb/n", "", `""`},
		{"nested message response_body", "GET", "/v1/rbd/n?inner.d.v=x", "", `{"v":"x"}`},
		{"response_body *", "GET", "/v1/rbstar/n", "", `{"name":"n"}`},
		{"rule without a pattern: its additional binding", "GET", "/v1/extra/n", "", `{"name":"n"}`},
		{"colon in a literal and in a variable", "GET", "/v1/colon/a:b/c:d", "", `{"name":"c:d"}`},
		{"star in a literal and in the verb", "GET", "/v1/star/a*b/n:*", "", `{"name":"n"}`},
		{"variable after a deep variable", "GET", "/v1/deep/a/b/c:go", "", `{"name":"a/b","inner":{"s":"c"}}`},
		{"field bound twice: the last wins", "GET", "/v1/twice/a/b", "", `{"name":"b"}`},
		{"empty last segment is *", "GET", "/v1/empty/anything", "", `{}`},
		{"empty verb is none", "GET", "/v1/emptyverb/n", "", `{"name":"n"}`},
		{"verb with an empty part", "GET", "/v1/verbs/n::v", "", `{"name":"n"}`},
		{"literal before an empty verb", "GET", "/v1/verbs/x:a", "", `{}`},
		{"literal ending in a colon, then a verb", "GET", "/v1/verbs/x::a", "", `{}`},
	} {
		got := fetch(t, tt.method, srv.URL+tt.path, tt.body)
		if got.code != 200 || got.body != tt.want {
			t.Errorf("%s: %s %s: %d %s, want 200 %s", tt.name, tt.method, tt.path, got.code, got.body, tt.want)
		}
	}
	// The rules without a pattern route nothing of their own; nor do the
	// verb's colon and a root with a verb, as in grpc-gateway.
	for _, tt := range []struct{ method, path string }{
		{"POST", "/"}, {"POST", "/v1/extra"}, {"GET", "/v1/verbs/x:a:"}, {"GET", "/v1/verbs/x:"}, {"GET", "/:v"},
	} {
		if got := fetch(t, tt.method, srv.URL+tt.path, "{}"); got.code != 404 {
			t.Errorf("%s %s: %d %s, want 404", tt.method, tt.path, got.code, got.body)
		}
	}
	// The OpenAPI document has every route.
	var doc struct{ Paths map[string]json.RawMessage }
	if err := json.Unmarshal(gw.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/v1/body/{name}", "/v1/colon/a:b/c:d", "/v1/deep/{name}/{inner.s}:go", "/v1/empty/{_segment}",
		"/v1/emptyverb/{name}", "/v1/extra/{name}", "/v1/rb/{name}", "/v1/rbd/{name}", "/v1/rbstar/{name}",
		"/v1/star/a*b/{name}:*", "/v1/tags/{tags}", "/v1/twice/{name}/{name_1}", "/v1/verbs/x::a", "/v1/verbs/x:a",
		"/v1/verbs/{name}::v", "/v1/wkt/{ts}/{wrapped}",
	}
	if got := slices.Sorted(maps.Keys(doc.Paths)); !slices.Equal(got, want) {
		t.Errorf("OpenAPI paths %q\nwant %q", got, want)
	}
}
