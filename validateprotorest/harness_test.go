package validateprotorest_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/bufbuild/protocompile"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/validateprotorest"
	rulesv1 "github.com/protorest/protorest/validateprotorest/internal/rulespb/v1"
)

// rules is the fixture's service: it counts its calls and the messages
// of its streams.
type rules struct {
	rulesv1.UnimplementedRulesServer
	calls    atomic.Int64
	received atomic.Int64 // messages of Upload's streams
}

func (s *rules) Check(context.Context, *rulesv1.CheckRequest) (*rulesv1.Reply, error) {
	s.calls.Add(1)
	return &rulesv1.Reply{Messages: 1}, nil
}

func (s *rules) PutItem(context.Context, *rulesv1.PutItemRequest) (*rulesv1.Reply, error) {
	s.calls.Add(1)
	return &rulesv1.Reply{Messages: 1}, nil
}

func (s *rules) Plain(context.Context, *rulesv1.PlainRequest) (*rulesv1.Reply, error) {
	s.calls.Add(1)
	return &rulesv1.Reply{Messages: 1}, nil
}

func (s *rules) GetBook(_ context.Context, req *rulesv1.GetBookRequest) (*rulesv1.Book, error) {
	s.calls.Add(1)
	return &rulesv1.Book{Name: req.GetName(), Title: "Dune", Author: "Frank Herbert", PageCount: 412}, nil
}

func (s *rules) UpdateBook(_ context.Context, req *rulesv1.UpdateBookRequest) (*rulesv1.Book, error) {
	s.calls.Add(1)
	return req.GetBook(), nil
}

func (s *rules) Upload(stream grpc.ClientStreamingServer[rulesv1.Item, rulesv1.Reply]) error {
	s.calls.Add(1)
	n := int32(0)
	for {
		_, err := stream.Recv()
		if err == io.EOF {
			return stream.SendAndClose(&rulesv1.Reply{Messages: n})
		}
		if err != nil {
			return err
		}
		s.received.Add(1)
		n++
	}
}

// A setup is a gateway in front of the fixture's service, in one of the
// ways a method is reached.
type setup struct {
	name string
	// start returns the gateway's URL and the service it calls.
	start func(t *testing.T, opts ...protorest.Option) (string, *rules)
}

var setups = []setup{
	{"in-process", inProcess},
	{"remote/reflection", func(t *testing.T, opts ...protorest.Option) (string, *rules) {
		return remote(t, opts, protorest.WithReflection())
	}},
	{"remote/unknown-options", func(t *testing.T, opts ...protorest.Option) (string, *rules) {
		return remote(t, opts, protorest.WithRemoteFiles(unknownOptionFiles(t)))
	}},
	{"remote/dynamic-extension", func(t *testing.T, opts ...protorest.Option) (string, *rules) {
		return remote(t, opts, protorest.WithRemoteFiles(dynamicExtensionFiles(t)))
	}},
}

// inProcess serves the generated service in-process: generated messages.
func inProcess(t *testing.T, opts ...protorest.Option) (string, *rules) {
	svc := new(rules)
	gw := protorest.NewGateway(append([]protorest.Option{protorest.WithValidation(validateprotorest.New())}, opts...)...)
	rulesv1.RegisterRulesServer(gw, svc)
	srv := httptest.NewServer(withOpenAPI(gw))
	t.Cleanup(srv.Close)
	return srv.URL, svc
}

// remote serves the service from a gRPC server on loopback through
// RegisterRemote with ropt: dynamic messages.
func remote(t *testing.T, opts []protorest.Option, ropt protorest.RemoteOption) (string, *rules) {
	opts = append([]protorest.Option{protorest.WithValidation(validateprotorest.New())}, opts...)
	gw, svc := remoteService(t, opts, ropt)
	srv := httptest.NewServer(withOpenAPI(gw))
	t.Cleanup(srv.Close)
	return srv.URL, svc
}

// remoteGateway is a gateway with opts in front of the service on a gRPC
// server on loopback, descriptors from reflection.
func remoteGateway(t testing.TB, opts ...protorest.Option) *protorest.Gateway {
	gw, _ := remoteService(t, opts, protorest.WithReflection())
	return gw
}

// remoteService is a gateway with opts in front of the service on a gRPC
// server on loopback, through RegisterRemote with ropt.
func remoteService(t testing.TB, opts []protorest.Option, ropt protorest.RemoteOption) (*protorest.Gateway, *rules) {
	svc := new(rules)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	backend := grpc.NewServer()
	rulesv1.RegisterRulesServer(backend, svc)
	reflection.Register(backend)
	go backend.Serve(lis)
	t.Cleanup(backend.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	gw := protorest.NewGateway(opts...)
	if err := gw.RegisterRemote(t.Context(), conn, ropt); err != nil {
		t.Fatal(err)
	}
	return gw, svc
}

// withOpenAPI serves gw, and its OpenAPI document at /openapi.json.
func withOpenAPI(gw *protorest.Gateway) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /openapi.json", gw.OpenAPIHandler(protorest.OpenAPIJSON))
	mux.Handle("/", gw)
	return mux
}

// unknownOptionFiles are the fixture's descriptors decoded without
// protovalidate's extension types: its rules are unknown option bytes.
func unknownOptionFiles(t *testing.T) *protoregistry.Files {
	t.Helper()
	var set descriptorpb.FileDescriptorSet
	seen := map[string]bool{}
	var add func(path string)
	add = func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range fd.Imports().Len() {
			add(fd.Imports().Get(i).Path())
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(rulesv1.File_validateprotorest_internal_rulespb_v1_rules_proto.Path())
	b, err := proto.Marshal(&set)
	if err != nil {
		t.Fatal(err)
	}
	// Only google.api.http is known: buf.validate's rules stay bytes.
	types := new(protoregistry.Types)
	if err := types.RegisterExtension(annotations.E_Http); err != nil {
		t.Fatal(err)
	}
	var decoded descriptorpb.FileDescriptorSet
	if err := (proto.UnmarshalOptions{Resolver: types}).Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	name := decoded.File[len(decoded.File)-1].MessageType[0].Field[0]
	if name.GetName() != "name" || len(name.GetOptions().ProtoReflect().GetUnknown()) == 0 {
		t.Fatalf("CheckRequest.name's rules are not unknown bytes: %v", name)
	}
	files, err := protodesc.NewFiles(&decoded)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// dynamicExtensionFiles are the fixture's descriptors compiled from its
// .proto source by protocompile, buf/validate/validate.proto given as a
// FileDescriptorProto: the rules are options of a dynamic extension type,
// not protovalidate's generated one, as a program that compiles .proto
// files with their imports gets them.
func dynamicExtensionFiles(t *testing.T) *protoregistry.Files {
	t.Helper()
	compiler := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{ImportPaths: []string{".."}},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
				if err != nil {
					return protocompile.SearchResult{}, err
				}
				if strings.HasPrefix(path, "buf/validate/") {
					return protocompile.SearchResult{Proto: protodesc.ToFileDescriptorProto(fd)}, nil
				}
				return protocompile.SearchResult{Desc: fd}, nil // google/api: the gateway's rules
			}),
		}),
	}
	compiled, err := compiler.Compile(t.Context(), rulesv1.File_validateprotorest_internal_rulespb_v1_rules_proto.Path())
	if err != nil {
		t.Fatal(err)
	}
	fd := compiled[0]
	opts := fd.Messages().ByName("CheckRequest").Fields().ByName("name").Options()
	var ext protoreflect.FieldDescriptor
	opts.ProtoReflect().Range(func(f protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if f.IsExtension() && f.FullName() == "buf.validate.field" {
			ext = f
		}
		return true
	})
	if ext == nil || ext.(protoreflect.ExtensionTypeDescriptor).Type() == validate.E_Field {
		t.Fatalf("CheckRequest.name's rules are not a dynamic extension: %v", ext)
	}
	files := new(protoregistry.Files)
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if _, err := files.FindFileByPath(f.Path()); err == nil {
			return
		}
		for i := range f.Imports().Len() {
			add(f.Imports().Get(i).FileDescriptor)
		}
		if err := files.RegisterFile(f); err != nil {
			t.Fatal(err)
		}
	}
	add(fd)
	return files
}

// call sends a request and returns its status and body.
func call(t *testing.T, method, url, contentType, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// badRequest reads the google.rpc.Status body of a 400: its
// BadRequest's field violations as "field reason" pairs, and whether a
// buf.validate.Violations detail followed it.
func badRequest(t *testing.T, body []byte) (st *spb.Status, violations []string, hasViolations bool) {
	t.Helper()
	st = new(spb.Status)
	if err := protojson.Unmarshal(body, st); err != nil {
		t.Fatalf("not a google.rpc.Status: %v: %s", err, body)
	}
	if len(st.Details) == 0 {
		t.Fatalf("no details: %s", body)
	}
	br := new(errdetails.BadRequest)
	if err := st.Details[0].UnmarshalTo(br); err != nil {
		t.Fatalf("first detail is not a BadRequest: %v: %s", err, body)
	}
	for _, fv := range br.FieldViolations {
		if fv.Description == "" {
			t.Errorf("violation of %q has no description: %s", fv.Field, body)
		}
		violations = append(violations, fv.Field+" "+fv.Reason)
	}
	hasViolations = len(st.Details) > 1 && st.Details[1].MessageName() == "buf.validate.Violations"
	return st, violations, hasViolations
}
