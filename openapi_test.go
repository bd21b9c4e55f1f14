package protorest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
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

	"github.com/protorest/protorest"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/openapi")

// checkGolden compares got with testdata/openapi/name, or rewrites it
// with -update (scripts/genopenapi.sh). JSON is compared indented, so
// that a change shows in review line by line.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if strings.HasSuffix(name, ".json") {
		var buf bytes.Buffer
		if err := json.Indent(&buf, got, "", "  "); err != nil {
			t.Fatalf("%s: not JSON: %v", name, err)
		}
		got = buf.Bytes()
	}
	path := filepath.Join("testdata", "openapi", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run scripts/genopenapi.sh)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: the document changed (review the change, then run scripts/genopenapi.sh)\n%s", path, firstDifference(got, want))
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}

// The documents of the conformance fixtures: a change to the mapping
// shows in review as a change to these files.
func TestOpenAPIGolden(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"A", "B", "C", "D"} {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			gw := newFixture(t, fixture, &recorder{})
			checkGolden(t, "conf-"+fixture+".json", gw.OpenAPI())
		})
	}
	// The gateway's options show: proto names, enum numbers, omitted
	// defaults, success statuses, a documented custom route, the info.
	t.Run("A with options", func(t *testing.T) {
		t.Parallel()
		gw := newFixture(t, "A", &recorder{},
			protorest.WithMarshalOptions(protojson.MarshalOptions{UseProtoNames: true, UseEnumNumbers: true}),
			protorest.WithSuccessStatus("conf.v1.Probes/CreateProbe", http.StatusCreated),
			protorest.WithSuccessStatus("conf.v1.Probes/DeleteProbe", http.StatusNoContent),
			protorest.WithIgnoredQueryParameters("name", "i32"),
			protorest.WithOpenAPIInfo(protorest.OpenAPIInfo{Title: "Probes", Version: "1.0.0", Description: "The conformance fixture.", Servers: []string{"/api"}}))
		if err := gw.HandleDocumentedPath("GET", "/files/{id=**}", func(http.ResponseWriter, *http.Request) {},
			protorest.RouteDoc{Summary: "A file.", Description: "Its bytes, as they are."}); err != nil {
			t.Fatal(err)
		}
		doc := gw.OpenAPI()
		checkGolden(t, "conf-A-options.json", doc)
		checkGolden(t, "conf-A-options.yaml", yamlOf(t, gw))
	})
}

func yamlOf(t *testing.T, gw *protorest.Gateway) []byte {
	t.Helper()
	resp := do(t, gw.OpenAPIHandler(protorest.OpenAPIYAML), "GET", "/openapi.yaml", "")
	if resp.code != http.StatusOK || resp.header.Get("Content-Type") != "application/yaml" {
		t.Fatalf("YAML: %d %s", resp.code, resp.header.Get("Content-Type"))
	}
	return []byte(resp.body)
}

// The handler serves the cached document with an ETag, 304 for a
// request that has it, and a new document (and ETag) once the routes
// change.
func TestOpenAPIHandler(t *testing.T) {
	t.Parallel()
	gw := newFixture(t, "D", &recorder{})
	h := gw.OpenAPIHandler(protorest.OpenAPIJSON)
	first := do(t, h, "GET", "/openapi.json", "")
	etag := first.header.Get("ETag")
	if first.code != http.StatusOK || first.header.Get("Content-Type") != "application/json" || !strings.HasPrefix(etag, `"`) {
		t.Fatalf("GET: %d %v", first.code, first.header)
	}
	if first.body != string(gw.OpenAPI()) {
		t.Error("the handler's document is not OpenAPI()'s")
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(first.body), &doc); err != nil || doc.OpenAPI != "3.1.0" || doc.Paths["/{name}:do"] == nil {
		t.Fatalf("document: %v %+v", err, doc)
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		if r := do(t, h, "GET", "/openapi.json", "", "If-None-Match", inm); r.code != http.StatusNotModified || r.body != "" {
			t.Errorf("If-None-Match %s: %d, %d bytes; want 304, none", inm, r.code, len(r.body))
		}
	}
	if r := do(t, h, "GET", "/openapi.json", "", "If-None-Match", `"other"`); r.code != http.StatusOK {
		t.Errorf("another ETag: %d, want 200", r.code)
	}
	yaml := do(t, gw.OpenAPIHandler(protorest.OpenAPIYAML), "GET", "/openapi.yaml", "")
	if yaml.header.Get("ETag") == etag || !strings.HasPrefix(yaml.body, "openapi: \"3.1.0\"\n") {
		t.Errorf("YAML: ETag %s, body starts %.40q", yaml.header.Get("ETag"), yaml.body)
	}

	if err := gw.HandleDocumentedPath("GET", "/openapi.json", h.ServeHTTP, protorest.RouteDoc{Summary: "This document."}); err != nil {
		t.Fatal(err)
	}
	next := do(t, gw, "GET", "/openapi.json", "", "If-None-Match", etag)
	if next.code != http.StatusOK || next.header.Get("ETag") == etag || !strings.Contains(next.body, `"summary":"This document."`) {
		t.Errorf("after a registration: %d, ETag %s (was %s)", next.code, next.header.Get("ETag"), etag)
	}
}

// The document follows RegisterRemote and Reload, and .proto files
// compiled in-process give it their comments.
func TestOpenAPIRemote(t *testing.T) {
	t.Parallel()
	gw := protorest.NewGateway()
	err := gw.RegisterRemote(context.Background(), nil,
		protorest.WithProtoFiles([]string{"examples"}, []string{"examples/library/v1/library.proto"}))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(gw.OpenAPI())
	for _, want := range []string{
		`"summary":"CreateShelf creates a shelf."`,
		`"description":"The server assigns its name."`,
		`"name":"library.v1.LibraryService"`,
		`"operationId":"LibraryService_MoveBook"`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %s", want)
		}
	}
}

// routeSet is a service of n methods over the library's messages, each
// kind of rule in turn (get, list, create, update, delete), for the
// benchmark. (internal/openapi's BenchmarkBuild measures the build alone.)
func routeSet(tb testing.TB, n int) *protoregistry.Files {
	tb.Helper()
	lib := libraryv1.File_examples_library_v1_library_proto
	svc := &descriptorpb.ServiceDescriptorProto{Name: proto.String("Many")}
	for i := range n {
		m := &descriptorpb.MethodDescriptorProto{Name: proto.String(fmt.Sprintf("M%d", i))}
		rule := &annotations.HttpRule{}
		switch i % 5 {
		case 0:
			m.InputType, m.OutputType = proto.String(".library.v1.GetBookRequest"), proto.String(".library.v1.Book")
			rule.Pattern = &annotations.HttpRule_Get{Get: fmt.Sprintf("/v%d/{name=shelves/*/books/*}", i)}
		case 1:
			m.InputType, m.OutputType = proto.String(".library.v1.ListBooksRequest"), proto.String(".library.v1.ListBooksResponse")
			rule.Pattern = &annotations.HttpRule_Get{Get: fmt.Sprintf("/v%d/{parent=shelves/*}/books", i)}
		case 2:
			m.InputType, m.OutputType = proto.String(".library.v1.CreateBookRequest"), proto.String(".library.v1.Book")
			rule.Pattern, rule.Body = &annotations.HttpRule_Post{Post: fmt.Sprintf("/v%d/{parent=shelves/*}/books", i)}, "book"
		case 3:
			m.InputType, m.OutputType = proto.String(".library.v1.UpdateBookRequest"), proto.String(".library.v1.Book")
			rule.Pattern, rule.Body = &annotations.HttpRule_Patch{Patch: fmt.Sprintf("/v%d/{book.name=shelves/*/books/*}", i)}, "book"
		case 4:
			m.InputType, m.OutputType = proto.String(".library.v1.DeleteBookRequest"), proto.String(".google.protobuf.Empty")
			rule.Pattern = &annotations.HttpRule_Delete{Delete: fmt.Sprintf("/v%d/{name=shelves/*/books/*}", i)}
		}
		m.Options = &descriptorpb.MethodOptions{}
		proto.SetExtension(m.Options, annotations.E_Http, rule)
		svc.Method = append(svc.Method, m)
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("many/v1/many.proto"),
		Package:    proto.String("many.v1"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{lib.Path(), "google/protobuf/empty.proto"},
		Service:    []*descriptorpb.ServiceDescriptorProto{svc},
	}
	files := new(protoregistry.Files)
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		files.RegisterFile(fd)
		return true
	})
	fd, err := protodesc.NewFile(fdp, files)
	if err != nil {
		tb.Fatal(err)
	}
	if err := files.RegisterFile(fd); err != nil {
		tb.Fatal(err)
	}
	return files
}

// BenchmarkOpenAPIServe serves the cached document: a write, and a 304
// for a client that has it.
func BenchmarkOpenAPIServe(b *testing.B) {
	gw := protorest.NewGateway()
	if err := gw.RegisterRemote(context.Background(), nil, protorest.WithRemoteFiles(routeSet(b, 5000), "many.v1.Many")); err != nil {
		b.Fatal(err)
	}
	h := gw.OpenAPIHandler(protorest.OpenAPIJSON)
	etag := do(b, h, "GET", "/openapi.json", "").header.Get("ETag")
	for _, c := range []struct{ name, inm string }{{"200", ""}, {"304", etag}} {
		b.Run(c.name, func(b *testing.B) {
			r, _ := http.NewRequest("GET", "/openapi.json", nil)
			if c.inm != "" {
				r.Header.Set("If-None-Match", c.inm)
			}
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, r)
			}
		})
	}
}

type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

// A service registered in-process (generated Go code keeps no comments)
// documented with WithOpenAPIComments has the document of the same
// service read from its .proto files, comments and all.
func TestOpenAPIComments(t *testing.T) {
	t.Parallel()
	compiler := protocompile.Compiler{
		SourceInfoMode: protocompile.SourceInfoStandard,
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{ImportPaths: []string{"examples"}},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path) // google/api
				return protocompile.SearchResult{Desc: fd}, err
			}),
		}),
	}
	files, err := compiler.Compile(context.Background(), "library/v1/library.proto")
	if err != nil {
		t.Fatal(err)
	}
	inProcess := func(opts ...protorest.Option) string {
		gw := protorest.NewGateway(opts...)
		libraryv1.RegisterLibraryServiceServer(gw, libraryv1.UnimplementedLibraryServiceServer{})
		return string(gw.OpenAPI())
	}
	remote := protorest.NewGateway()
	if err := remote.RegisterRemote(context.Background(), nil,
		protorest.WithProtoFiles([]string{"examples"}, []string{"examples/library/v1/library.proto"})); err != nil {
		t.Fatal(err)
	}
	want := string(remote.OpenAPI())
	if got := inProcess(protorest.WithOpenAPIComments(files[0])); got != want {
		t.Errorf("in-process with WithOpenAPIComments: not the document of the .proto files\n%s", firstDifference([]byte(got), []byte(want)))
	}
	if got := inProcess(); got == want || strings.Contains(got, "CreateShelf creates a shelf.") {
		t.Errorf("in-process without WithOpenAPIComments: the document has the comments")
	}
}
