package protorest_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
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
  rpc IntoWellKnown(Msg) returns (Msg) { option (google.api.http) = { get: "/v1/wktpart/{ts.seconds}/{wrapped.value}" }; }
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
	files, desc := echoService(t, "rules/v1/rules.proto", gatewayRulesProto, nil)
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
		{"path variables into well-known types", "GET", "/v1/wktpart/5/w", "", `{"ts":"1970-01-01T00:00:05Z","wrapped":"w"}`},
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
	// A query parameter never overrides what the path binds, also when
	// it names the well-known type the path goes into.
	for _, q := range []string{"ts=2025-01-02T03:04:05Z", "ts.seconds=9", "ts.nanos=7", "wrapped=x"} {
		if got := fetch(t, "GET", srv.URL+"/v1/wktpart/5/w?"+q, ""); got.code != 400 || !strings.Contains(got.body, "is bound by the path") {
			t.Errorf("?%s on a path into a well-known type: %d %s, want 400", q, got.code, got.body)
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
		"/v1/verbs/{name}::v", "/v1/wkt/{ts}/{wrapped}", "/v1/wktpart/{ts.seconds}/{wrapped.value}",
	}
	if got := slices.Sorted(maps.Keys(doc.Paths)); !slices.Equal(got, want) {
		t.Errorf("OpenAPI paths %q\nwant %q", got, want)
	}
}

// echoService compiles src, a .proto file named path that holds one
// service, and returns its files and a ServiceDesc whose unary methods
// answer their request and whose server streams send it once; calls, if
// not nil, counts the calls.
func echoService(t *testing.T, path, src string, calls *atomic.Int32) (*protoregistry.Files, *grpc.ServiceDesc) {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
		&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{path: src})},
		protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
			fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
			return protocompile.SearchResult{Desc: fd}, err
		}),
	})}
	compiled, err := c.Compile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(compiled[0]); err != nil {
		t.Fatal(err)
	}
	count := func() {
		if calls != nil {
			calls.Add(1)
		}
	}
	sd := compiled[0].Services().Get(0)
	desc := &grpc.ServiceDesc{ServiceName: string(sd.FullName())}
	for i := range sd.Methods().Len() {
		md := sd.Methods().Get(i)
		if md.IsStreamingServer() {
			desc.Streams = append(desc.Streams, grpc.StreamDesc{
				StreamName:    string(md.Name()),
				ServerStreams: true,
				Handler: func(_ any, stream grpc.ServerStream) error {
					count()
					in := dynamicpb.NewMessage(md.Input())
					if err := stream.RecvMsg(in); err != nil {
						return err
					}
					return stream.SendMsg(in)
				},
			})
			continue
		}
		desc.Methods = append(desc.Methods, grpc.MethodDesc{
			MethodName: string(md.Name()),
			Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				count()
				in := dynamicpb.NewMessage(md.Input())
				if err := dec(in); err != nil {
					return nil, err
				}
				return in, nil
			},
		})
	}
	return files, desc
}

// throughProto has path variables through a repeated and a map field,
// which google/api/http.proto forbids and grpc-gateway generates routes
// for, answering their every request 400 "invalid path" (runtime/query.go,
// populateFieldValueFromPath).
const throughProto = `syntax = "proto3";
package through.v1;
import "google/api/annotations.proto";
message Item { string name = 1; }
message Req { string id = 1; repeated Item items = 2; map<string, string> labels = 3; }
service Through {
  rpc Get(Req) returns (Req) {
    option (google.api.http) = {
      get: "/v1/items/{items.name}"
      additional_bindings { get: "/v1/labels/{labels.value}" }
      additional_bindings { post: "/v1/reqs/{id}" body: "*" }
    };
  }
  rpc Watch(Req) returns (stream Req) { option (google.api.http) = { get: "/v1/watch/{items.name}" }; }
}
`

// TestGRPCGatewayPathThroughRepeated: a path variable through a repeated
// or map field is served as grpc-gateway serves it: registration
// succeeds and the method's other rules work, the route exists (another
// method gets 405), and every request to it gets 400 INVALID_ARGUMENT
// saying why, without the method being called, over HTTP and WebSocket
// alike; the OpenAPI document says so.
func TestGRPCGatewayPathThroughRepeated(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	files, desc := echoService(t, "through/v1/through.proto", throughProto, &calls)
	gw := protorest.NewGateway(protorest.WithFiles(files))
	if msg := registerPanic(gw, desc); msg != "" {
		t.Fatalf("RegisterService panicked: %s", msg)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)

	const repeated = `path variable \"items.name\" binds a field through the repeated field \"items\", which google/api/http.proto does not allow`
	const mapped = `path variable \"labels.value\" binds a field through the map field \"labels\", which google/api/http.proto does not allow`
	for _, tt := range []struct {
		name, method, path, body string
		headers                  []string
		code                     int
		want                     string
	}{
		{"through a repeated field", "GET", "/v1/items/x", "", nil, 400, `{"code":3,"message":"` + repeated + `","details":[]}`},
		{"through a map field", "GET", "/v1/labels/x", "", nil, 400, `{"code":3,"message":"` + mapped + `","details":[]}`},
		{"with a body and a query", "GET", "/v1/items/x?id=1", "{}", nil, 400, `{"code":3,"message":"` + repeated + `","details":[]}`},
		{"a server stream", "GET", "/v1/watch/x", "", nil, 400, `{"code":3,"message":"` + repeated + `","details":[]}`},
		{"a server stream over WebSocket", "GET", "/v1/watch/x", "", []string{
			"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==",
		}, 400, `{"code":3,"message":"` + repeated + `","details":[]}`},
		{"the route exists: another method", "POST", "/v1/items/x", "{}", nil, 405, `{"code":12,"message":"Method Not Allowed","details":[]}`},
		{"the method's other rule", "POST", "/v1/reqs/7", "{}", nil, 200, `{"id":"7","items":[],"labels":{}}`},
	} {
		got := fetch(t, tt.method, srv.URL+tt.path, tt.body, tt.headers...)
		if got.code != tt.code || got.body != tt.want {
			t.Errorf("%s: %s %s: %d %s, want %d %s", tt.name, tt.method, tt.path, got.code, got.body, tt.code, tt.want)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the methods were called %d times, want once (the other rule)", n)
	}

	var doc struct {
		Paths map[string]map[string]struct {
			Description string
			Parameters  []struct {
				Name, Description string
				Schema            struct{ Type string }
			}
		}
	}
	if err := json.Unmarshal(gw.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	for path, name := range map[string]string{"/v1/items/{items.name}": "items.name", "/v1/labels/{labels.value}": "labels.value"} {
		op := doc.Paths[path]["get"]
		if !strings.Contains(op.Description, "Every request gets 400 INVALID_ARGUMENT") {
			t.Errorf("OpenAPI %s: description %q", path, op.Description)
		}
		if len(op.Parameters) == 0 || op.Parameters[0].Name != name || op.Parameters[0].Schema.Type != "string" ||
			!strings.Contains(op.Parameters[0].Description, "does not allow") {
			t.Errorf("OpenAPI %s: parameters %+v, want the path parameter %s first, a string whose description says why", path, op.Parameters, name)
		}
	}
}
