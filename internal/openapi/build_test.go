package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	_ "google.golang.org/genproto/googleapis/api/httpbody" // google/api/httpbody.proto

	"github.com/protorest/protorest/internal/bind"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/render"
)

// shop.proto exercises the mapping: comments, field_behavior, oneofs,
// maps, 64-bit integers, enums, streams, HttpBody, response_body, custom
// methods, additional bindings.
const shopProto = `syntax = "proto3";
package shop.v1;
import "google/api/annotations.proto";
import "google/api/field_behavior.proto";
import "google/api/httpbody.proto";
import "google/protobuf/timestamp.proto";

// Shop sells items.
service Shop {
  // GetItem returns an item. It fails with NOT_FOUND.
  //
  // (-- api-linter: core::0131=disabled --)
  rpc GetItem(GetItemRequest) returns (Item) {
    option (google.api.http) = {
      get: "/v1/{name=shops/*/items/*}"
      additional_bindings {get: "/v1/items/{name}"}
    };
  }
  // UpdateItem updates an item.
  rpc UpdateItem(UpdateItemRequest) returns (Item) {
    option (google.api.http) = {patch: "/v1/{item.name=shops/*/items/*}" body: "item"};
  }
  // CreateItem adds an item.
  rpc CreateItem(Item) returns (Item) {
    option (google.api.http) = {post: "/v1/{name=shops/*}/items" body: "*"};
  }
  rpc DeleteItem(GetItemRequest) returns (Item) {
    option deprecated = true;
    option (google.api.http) = {delete: "/v1/{name=shops/*/items/*}"};
  }
  rpc Picture(GetItemRequest) returns (google.api.HttpBody) {
    option (google.api.http) = {get: "/v1/{name=shops/*/items/*}:picture"};
  }
  rpc Tags(GetItemRequest) returns (Item) {
    option (google.api.http) = {get: "/v1/{name=shops/*/items/*}:tags" response_body: "tags"};
  }
  rpc Watch(GetItemRequest) returns (stream Item) {
    option (google.api.http) = {get: "/v1/{name=shops/*/items/*}:watch"};
  }
  rpc Anything(GetItemRequest) returns (Item) {
    option (google.api.http) = {custom: {kind: "*" path: "/v1/any/{name}"}};
  }
  rpc Purge(GetItemRequest) returns (Item) {
    option (google.api.http) = {custom: {kind: "PURGE" path: "/v1/purge/{name}"}};
  }
}

// An Item is for sale.
message Item {
  // The item's name.
  string name = 1 [(google.api.field_behavior) = IDENTIFIER];
  // Its title.
  string title = 2 [(google.api.field_behavior) = REQUIRED];
  int64 price_cents = 3;
  google.protobuf.Timestamp create_time = 4 [(google.api.field_behavior) = OUTPUT_ONLY];
  map<int32, string> notes = 5;
  map<bool, Item> related = 6;
  oneof discount {
    int32 percent = 7;
    int64 amount = 8;
    string code = 9;
  }
  optional string color = 10;
  repeated string tags = 11;
  // Kind is what an item is.
  enum Kind {
    KIND_UNSPECIFIED = 0;
    // A book.
    BOOK = 1;
  }
  Kind kind = 12;
  string secret = 13 [(google.api.field_behavior) = INPUT_ONLY, deprecated = true];
}

message GetItemRequest {
  string name = 1;
  bool with_notes = 2;
  map<string, string> filters = 3;
  repeated Item examples = 4;
}

message UpdateItemRequest {
  Item item = 1;
  string request_id = 2;
}
`

// shopRoutes compiles shop.proto and plans its rules as the gateway does,
// with status for some methods' successes.
func shopRoutes(t testing.TB, status map[string]int) []Route {
	t.Helper()
	return shopRoutesIn(t, "shop.v1", status)
}

// shopRoutesIn is shopRoutes with the shop's file in package pkg: its
// own descriptors, services and messages.
func shopRoutesIn(t testing.TB, pkg string, status map[string]int) []Route {
	t.Helper()
	src := strings.Replace(shopProto, "\npackage shop.v1;\n", "\npackage "+pkg+";\n", 1)
	// Through bytes, as the gateway's descriptor sources do, so that the
	// options are the generated types (protocompile's are dynamic).
	fd := throughBytes(t, compileProto(t, "shop.proto", src), protoregistry.GlobalTypes)
	return fileRoutes(t, fd, status)
}

// compileProto compiles the file name, whose source is src, with
// protocompile, as protorest openapi --proto does: its options are
// dynamic messages.
func compileProto(t testing.TB, name, src string) protoreflect.FileDescriptor {
	t.Helper()
	compiler := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{
				Accessor: protocompile.SourceAccessorFromMap(map[string]string{name: src}),
			},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path) // google/api
				return protocompile.SearchResult{Desc: fd}, err
			}),
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := compiler.Compile(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return files[0]
}

// throughBytes is fd written and read again, as the gateway's descriptor
// sources read files, with the options' extensions resolved by types: as
// the generated types with protoregistry.GlobalTypes, as unknown fields
// with an empty resolver.
func throughBytes(t testing.TB, fd protoreflect.FileDescriptor, types *protoregistry.Types) protoreflect.FileDescriptor {
	t.Helper()
	data, err := proto.Marshal(protodesc.ToFileDescriptorProto(fd))
	if err != nil {
		t.Fatal(err)
	}
	fdp := new(descriptorpb.FileDescriptorProto)
	if err := (proto.UnmarshalOptions{Resolver: types}).Unmarshal(data, fdp); err != nil {
		t.Fatal(err)
	}
	out, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fileRoutes plans the rules of the first service of fd as the gateway
// does, with status for some methods' successes.
func fileRoutes(t testing.TB, fd protoreflect.FileDescriptor, status map[string]int) []Route {
	t.Helper()
	sd := fd.Services().Get(0)
	json := &codec.JSON{}
	var routes []Route
	for i := range sd.Methods().Len() {
		md := sd.Methods().Get(i)
		rule, err := httprule.FromMethod(md)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...) {
			method, path := rulePattern(r)
			tmpl, err := httprule.Parse(path)
			if err != nil {
				t.Fatal(err)
			}
			req, err := bind.NewRequest(md.Input(), method, tmpl, r.GetBody(), bind.RequestOptions{JSON: json})
			if err != nil {
				t.Fatalf("%s: %v", md.Name(), err)
			}
			var body []protoreflect.FieldDescriptor
			if rb := r.GetResponseBody(); rb != "" {
				body = append(body, md.Output().Fields().ByName(protoreflect.Name(rb)))
			}
			code := status[string(md.Name())]
			if code == 0 {
				code = 200
			}
			routes = append(routes, Route{Method: method, Template: tmpl, Rule: &Rule{
				Method: md, FullMethod: "/" + string(sd.FullName()) + "/" + string(md.Name()), Binding: j, Request: req, Response: render.NewResponse(md.Output(), body, code, false, json),
			}})
		}
	}
	return routes
}

func rulePattern(r *annotations.HttpRule) (method, path string) {
	switch p := r.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return "GET", p.Get
	case *annotations.HttpRule_Put:
		return "PUT", p.Put
	case *annotations.HttpRule_Post:
		return "POST", p.Post
	case *annotations.HttpRule_Delete:
		return "DELETE", p.Delete
	case *annotations.HttpRule_Patch:
		return "PATCH", p.Patch
	case *annotations.HttpRule_Custom:
		return p.Custom.GetKind(), p.Custom.GetPath()
	}
	return "", ""
}

// at returns the value at a JSON pointer ("/paths/~1v1~1x/get"), or nil.
func at(doc any, pointer string) any {
	cur := doc
	for _, tok := range strings.Split(pointer, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

func decode(t testing.TB, data []byte) any {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return doc
}

func TestBuild(t *testing.T) {
	t.Parallel()
	routes := shopRoutes(t, map[string]int{"CreateItem": 201, "DeleteItem": 204})
	routes = append(routes, Route{Method: "GET", Template: mustParse(t, "/files/{id}"), Summary: "A file.", Description: "As it is."},
		Route{Method: "GET", Template: mustParse(t, "/healthz")})
	doc := decode(t, Build(routes, Options{Title: "Shop", Version: "1.2.3", Servers: []string{"/api"}, JSON: protojson.MarshalOptions{EmitUnpopulated: true}}))
	item := "/paths/~1v1~1shops~1{shop}~1items~1{item}"
	tests := []struct {
		pointer string
		want    string // the value as JSON
	}{
		{"/openapi", `"3.1.0"`},
		{"/info", `{"title":"Shop","version":"1.2.3"}`},
		{"/servers", `[{"url":"/api"}]`},
		{"/tags", `[{"description":"Shop sells items.","name":"shop.v1.Shop"}]`},

		// Operations: IDs, comments (the AIP-192 part removed), the gRPC method.
		{item + "/get/operationId", `"Shop_GetItem"`},
		{item + "/get/summary", `"GetItem returns an item."`},
		{item + "/get/description", `"It fails with NOT_FOUND."`},
		{item + "/get/x-grpc-method", `"shop.v1.Shop/GetItem"`},
		{item + "/get/tags", `["shop.v1.Shop"]`},
		{"/paths/~1v1~1items~1{name}/get/operationId", `"Shop_GetItem_1"`},
		{item + "/delete/deprecated", `true`},
		// A template of the same shape takes the first one's names.
		{item + "/patch/parameters/0", `{"name":"shop","in":"path","required":true,"description":"` + "A segment of `item.name`, which is `shops/{shop}/items/{item}`." + `","schema":{"type":"string"}}`},

		// Query parameters: what the binder takes (no map, no repeated message).
		{item + "/get/parameters/2", `{"name":"withNotes","in":"query","schema":{"type":"boolean"}}`},
		{item + "/get/parameters/3", `null`},
		{item + "/patch/parameters/2", `{"name":"requestId","in":"query","schema":{"type":"string"}}`},
		{item + "/patch/parameters/3", `null`},

		// Bodies: a field; "*" less what the path sets; none.
		{item + "/patch/requestBody", `{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/shop.v1.Item"}}}}`},
		{"/paths/~1v1~1shops~1{shop}~1items/post/requestBody/content/application~1json/schema/properties/name", `null`},
		{"/paths/~1v1~1shops~1{shop}~1items/post/requestBody/content/application~1json/schema/properties/title/description", `"Its title."`},
		{"/paths/~1v1~1shops~1{shop}~1items/post/requestBody/content/application~1json/schema/required", `["title"]`},
		{item + "/get/requestBody", `null`},

		// Responses: the success status, google.rpc.Status for errors.
		{"/paths/~1v1~1shops~1{shop}~1items/post/responses/201/content/application~1json/schema", `{"$ref":"#/components/schemas/shop.v1.Item"}`},
		{item + "/delete/responses/204", `{"description":"No Content"}`},
		{item + "/get/responses/default", `{"$ref":"#/components/responses/Error"}`},
		{"/components/responses/Error/content/application~1json/schema", `{"$ref":"#/components/schemas/google.rpc.Status"}`},
		{"/paths/~1v1~1shops~1{shop}~1items~1{item}:picture/get/responses/200/content", `{"*/*":{}}`},
		{"/paths/~1v1~1shops~1{shop}~1items~1{item}:tags/get/responses/200/content/application~1json/schema", `{"type":"array","items":{"type":"string"}}`},

		// A server stream: one schema per framing.
		{"/paths/~1v1~1shops~1{shop}~1items~1{item}:watch/get/x-protorest-streaming", `"server"`},
		{"/paths/~1v1~1shops~1{shop}~1items~1{item}:watch/get/responses/200/content/application~1json/schema/properties/result", `{"$ref":"#/components/schemas/shop.v1.Item"}`},
		{"/paths/~1v1~1shops~1{shop}~1items~1{item}:watch/get/responses/200/content/application~1x-ndjson/schema", `{"$ref":"#/components/schemas/shop.v1.Item"}`},

		// Any method: the five API methods; a custom method: an extension.
		{"/paths/~1v1~1any~1{name}/put/operationId", `"Shop_Anything_put"`},
		{"/paths/~1v1~1purge~1{name}/x-protorest-other-methods/PURGE/operationId", `"Shop_Purge"`},

		// Custom routes.
		{"/paths/~1files~1{id}/get", `{"summary":"A file.","description":"As it is.","operationId":"get_files_id","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"default":{"description":"What the route's handler writes."}}}`},
		{"/paths/~1healthz/get/summary", `"A custom route."`},

		// Schemas.
		{"/components/schemas/shop.v1.Item/description", `"An Item is for sale."`},
		{"/components/schemas/shop.v1.Item/required", `["title"]`},
		{"/components/schemas/shop.v1.Item/properties/name/description", "\"The item's name.\\n\\nIdentifier: the resource's name.\""},
		{"/components/schemas/shop.v1.Item/properties/priceCents", `{"type":"string","format":"int64"}`},
		{"/components/schemas/shop.v1.Item/properties/createTime", `{"anyOf":[{"type":"string","format":"date-time"},{"type":"null"}],"readOnly":true}`},
		{"/components/schemas/shop.v1.Item/properties/notes", `{"type":"object","additionalProperties":{"type":"string"},"propertyNames":{"pattern":"^-?[0-9]+$"}}`},
		{"/components/schemas/shop.v1.Item/properties/related/propertyNames", `{"enum":["true","false"]}`},
		{"/components/schemas/shop.v1.Item/properties/secret", `{"type":"string","writeOnly":true,"deprecated":true}`},
		{"/components/schemas/shop.v1.Item/properties/kind", `{"$ref":"#/components/schemas/shop.v1.Item.Kind"}`},
		{"/components/schemas/shop.v1.Item/x-oneof", `{"discount":["percent","amount","code"]}`},
		{"/components/schemas/shop.v1.Item/dependentSchemas/percent", `{"not":{"anyOf":[{"required":["amount"]},{"required":["code"]}]}}`},
		{"/components/schemas/shop.v1.Item.Kind", `{"type":"string","description":"Kind is what an item is.\n\n- BOOK (1): A book.","enum":["KIND_UNSPECIFIED","BOOK"]}`},
		{"/components/schemas/google.rpc.Status/properties/details/items/required", `["@type"]`},
	}
	for _, tt := range tests {
		got := at(doc, tt.pointer)
		if !jsonEqual(t, got, tt.want) {
			b, _ := json.Marshal(got)
			t.Errorf("%s:\n got %s\nwant %s", tt.pointer, b, tt.want)
		}
	}
}

// The gateway's JSON options: proto names, enum numbers, and without
// EmitUnpopulated, required fields only noted.
func TestBuildJSONOptions(t *testing.T) {
	t.Parallel()
	doc := decode(t, Build(shopRoutes(t, nil), Options{JSON: protojson.MarshalOptions{UseProtoNames: true, UseEnumNumbers: true}}))
	item := "/paths/~1v1~1shops~1{shop}~1items~1{item}"
	for _, tt := range []struct{ pointer, want string }{
		{"/info", `{"title":"protorest","version":"0.0.0"}`},
		{item + "/get/parameters/2/name", `"with_notes"`},
		{"/components/schemas/shop.v1.Item/properties/price_cents", `{"type":"string","format":"int64"}`},
		{"/components/schemas/shop.v1.Item/required", `null`},
		{"/components/schemas/shop.v1.Item/properties/title/description", "\"Its title.\\n\\nRequired.\""},
		{"/components/schemas/shop.v1.Item.Kind/enum", `[0,1]`},
		{"/components/schemas/shop.v1.Item.Kind/type", `"integer"`},
	} {
		if got := at(doc, tt.pointer); !jsonEqual(t, got, tt.want) {
			b, _ := json.Marshal(got)
			t.Errorf("%s:\n got %s\nwant %s", tt.pointer, b, tt.want)
		}
	}
}

// The document does not depend on the order of the routes.
func TestBuildOrder(t *testing.T) {
	t.Parallel()
	routes := shopRoutes(t, nil)
	want := Build(routes, Options{})
	for i, j := 0, len(routes)-1; i < j; i, j = i+1, j-1 {
		routes[i], routes[j] = routes[j], routes[i]
	}
	if got := Build(routes, Options{}); string(got) != string(want) {
		t.Error("reversed routes give another document")
	}
}

func mustParse(t testing.TB, s string) *httprule.Template {
	t.Helper()
	tmpl, err := httprule.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func jsonEqual(t testing.TB, got any, want string) bool {
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %s: %v", want, err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(w)
	return string(a) == string(b)
}

// distinctRoutes returns the shop's rules in n packages of their own,
// under n prefixes: routes that share no descriptors.
func distinctRoutes(t testing.TB, n int) []Route {
	var routes []Route
	for i := range n {
		for _, r := range shopRoutesIn(t, "shop.p"+strconv.Itoa(i), nil) {
			r.Template = mustParse(t, "/p"+strconv.Itoa(i)+r.Template.String())
			routes = append(routes, r)
		}
	}
	return routes
}

// TestBuildParallel: a document built by several goroutines is the
// document one builds. The routes of a package fall to two builders at
// some boundaries, so both build its components.
func TestBuildParallel(t *testing.T) {
	t.Parallel()
	routes := distinctRoutes(t, 40)
	// The shop's rules twice: each of their paths and methods is claimed
	// by two routes, the first of which has it.
	routes = append(routes, shopRoutes(t, nil)...)
	routes = append(routes, shopRoutes(t, nil)...)
	opts := Options{JSON: protojson.MarshalOptions{EmitUnpopulated: true}}
	want := encodeDocument(newDocument(routes, opts, 1))
	for _, w := range []int{2, 3, 7} {
		if got := encodeDocument(newDocument(routes, opts, w)); !bytes.Equal(got, want) {
			t.Errorf("built by %d goroutines: not the document one builds (%d bytes, want %d)", w, len(got), len(want))
		}
	}
	if got := Build(routes, opts); !bytes.Equal(got, want) {
		t.Errorf("Build: not the document one builds")
	}
}

// BenchmarkBuild builds the document of 5,000 routes (the shop's rules
// under 500 prefixes, each its own path): the cost of the first request
// for the document after the routes change. Issue 14 asks for under 100 ms.
//
// From 500 operations on, a build's operations are built by GOMAXPROCS
// goroutines (see workers): -cpu 1 measures one.
func BenchmarkBuild(b *testing.B) {
	shop := shopRoutes(b, nil)
	var routes []Route
	for i := 0; len(routes) < 5000; i++ {
		for _, r := range shop {
			r.Template = mustParse(b, "/p"+strconv.Itoa(i)+r.Template.String())
			routes = append(routes, r)
		}
	}
	routes = routes[:5000]
	opts := Options{JSON: protojson.MarshalOptions{EmitUnpopulated: true}}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		size = len(Build(routes, opts))
	}
	b.ReportMetric(float64(size), "doc-bytes")
}

// BenchmarkBuildDistinct is BenchmarkBuild with routes that share no
// descriptors: the shop's rules in 500 packages of their own (under 500
// prefixes, as there), so each
// service, method and message is documented once per package. In
// BenchmarkBuild every route is one of ten rules again, and what a build
// does once per message or descriptor (components, comments) is done for
// ten; here it is done for all.
func BenchmarkBuildDistinct(b *testing.B) {
	routes := distinctRoutes(b, 500)[:5000]
	opts := Options{JSON: protojson.MarshalOptions{EmitUnpopulated: true}}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		size = len(Build(routes, opts))
	}
	b.ReportMetric(float64(size), "doc-bytes")
}
