package protorest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	"github.com/protorest/protorest/examples/services"
)

func get(path string) *annotations.HttpRule {
	return &annotations.HttpRule{Pattern: &annotations.HttpRule_Get{Get: path}}
}

// registerPanic registers desc and returns what RegisterService panicked
// with, or "".
func registerPanic(gw *protorest.Gateway, desc *grpc.ServiceDesc) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	gw.RegisterService(desc, nil)
	return ""
}

func TestRegisterErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules []*annotations.HttpRule
		want  []string // parts of the panic message; none means success
	}{
		{"C223 unterminated variable", []*annotations.HttpRule{get("/book/{")}, []string{"t.v1.S.M0", `"/book/{"`, "column"}},
		{"C225 trailing slash", []*annotations.HttpRule{get("/a/")}, []string{"t.v1.S.M0", "column"}},
		{"C225 empty segment", []*annotations.HttpRule{get("/a//b")}, []string{"column"}},
		{"C225 empty variable", []*annotations.HttpRule{get("/{}")}, []string{"column"}},
		{"C225 partial segment", []*annotations.HttpRule{get("/a{name}")}, []string{"column"}},
		{"C225 verb alone is the root with a verb, as grpc-gateway reads it", []*annotations.HttpRule{get("/:verb")}, nil},
		{"C225 empty verb is no verb, as grpc-gateway reads it", []*annotations.HttpRule{get("/a/*:")}, nil},
		{"R7 unknown field", []*annotations.HttpRule{get("/v1/{nope}")}, []string{"t.v1.S.M0", "nope"}},
		// grpc-gateway generates this route, and its runtime answers every
		// request 400 ("invalid path": runtime/query.go,
		// populateFieldValueFromPath): served so, see
		// TestGRPCGatewayPathThroughRepeated.
		{"R14 through a repeated field", []*annotations.HttpRule{get("/v1/{items.s}")}, nil},
		// grpc-gateway's generator refuses a message leaf (descriptor.newParam).
		{"R14 repeated message leaf", []*annotations.HttpRule{get("/v1/{items}")}, []string{"items"}},
		// grpc-gateway's generator refuses a message leaf (descriptor.newParam).
		{"R14 message leaf", []*annotations.HttpRule{get("/v1/{inner}")}, []string{"inner"}},
		// grpc-gateway generates Go that does not compile (protoReq.Items.S,
		// response.Items.S).
		{"R3 body through a repeated field", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Post{Post: "/v1/x"}, Body: "items.s"}}, []string{"body", "items"}},
		{"R4 response_body through a repeated field", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Get{Get: "/v1/x"}, ResponseBody: "items.s"}}, []string{"response_body", "items"}},
		// grpc-gateway's generator panics on an additional binding without a
		// pattern (gengateway addEnumPathParamImports), and writes
		// mux.Handle(, …), which does not compile, for a custom kind "".
		{"additional binding without a pattern", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Get{Get: "/v1/x"}, AdditionalBindings: []*annotations.HttpRule{{}}}}, []string{"t.v1.S.M0", "no pattern"}},
		{"custom kind empty", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Custom{Custom: &annotations.CustomHttpPattern{Path: "/v1/x"}}}}, []string{"t.v1.S.M0", "no pattern"}},
		// grpc-gateway's runtime.MustPattern panics: "pushM appears twice".
		{"R12 two deep wildcards", []*annotations.HttpRule{get("/v1/**/x/**")}, []string{"t.v1.S.M0", `only one "**"`}},
		{"R3 unknown body", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Post{Post: "/v1/x"}, Body: "nope"}}, []string{"body", "nope"}},
		{"R4 unknown response_body", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Get{Get: "/v1/x"}, ResponseBody: "nope"}}, []string{"response_body"}},
		{"R5 nested bindings", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Get{Get: "/v1/x"}, AdditionalBindings: []*annotations.HttpRule{
			{Pattern: &annotations.HttpRule_Get{Get: "/v1/y"}, AdditionalBindings: []*annotations.HttpRule{get("/v1/z")}},
		}}}, []string{"nested"}},
		{"C022 duplicate shape", []*annotations.HttpRule{get("/v3/{name}"), get("/v3/{inner.s}")}, []string{"t.v1.S.M0", "t.v1.S.M1", "/v3/"}},
		{"duplicate via additional binding", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Get{Get: "/v1/{name}"}, AdditionalBindings: []*annotations.HttpRule{get("/v1/{inner.s}")}}}, []string{"t.v1.S.M0"}},
		{"C229 colon in verb is served", []*annotations.HttpRule{get("/v1/x:a:b")}, nil},
		{"a rule without a pattern routes nothing", []*annotations.HttpRule{{Body: "*"}}, nil},
		{"get with an empty path is a rule without a pattern", []*annotations.HttpRule{get("")}, nil},
		{"different methods do not conflict", []*annotations.HttpRule{get("/v1/{name}"), {Pattern: &annotations.HttpRule_Post{Post: "/v1/{name}"}, Body: "*"}}, nil},
		{"custom kind", []*annotations.HttpRule{{Pattern: &annotations.HttpRule_Custom{Custom: &annotations.CustomHttpPattern{Kind: "OPTIONS", Path: "/v1/{name}"}}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files, desc := ruleFiles(t, tt.rules...)
			msg := registerPanic(protorest.NewGateway(protorest.WithFiles(files)), desc)
			if len(tt.want) == 0 {
				if msg != "" {
					t.Fatalf("registration failed: %s", msg)
				}
				return
			}
			if msg == "" {
				t.Fatal("registration succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestRegisterConflictLeavesGatewayUnchanged(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := protorest.NewGateway()
	msg := registerPanic(gw, serviceDesc(t, "conf.v1.Order", rec))
	for _, w := range []string{"conf.v1.Order.B7", "conf.v1.Order.B8", "/v3/"} {
		if !strings.Contains(msg, w) {
			t.Errorf("C022: message %q lacks %q", msg, w)
		}
	}
	if resp := do(t, gw, "GET", "/v2/q", ""); resp.code != 404 {
		t.Errorf("a route of the failed registration answers: %d", resp.code)
	}
	// The service can still be registered without the duplicate.
	gw.RegisterService(serviceDesc(t, "conf.v1.Order", rec, "B5"), nil)
	if resp := do(t, gw, "GET", "/v2/q", ""); resp.code != 200 {
		t.Errorf("after a clean registration: %d %s", resp.code, resp.body)
	}
	if msg := registerPanic(gw, serviceDesc(t, "conf.v1.Order", rec, "B1")); !strings.Contains(msg, "twice") {
		t.Errorf("second registration of a service: %q", msg)
	}
}

func TestRegisterUnknownService(t *testing.T) {
	t.Parallel()
	msg := registerPanic(protorest.NewGateway(), &grpc.ServiceDesc{ServiceName: "no.such.Service"})
	if !strings.Contains(msg, "no.such.Service") {
		t.Errorf("message %q", msg)
	}
}

// TestSuccessStatusNamesAMethod: WithSuccessStatus for a method that a
// registered service does not have is a registration error, in-process
// (a panic naming the option) and remote (an error); a status for a
// service that is never registered changes nothing.
func TestSuccessStatusNamesAMethod(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	gw := protorest.NewGateway(protorest.WithSuccessStatus("conf.v1.Probes/CreateProb", 201))
	if msg := registerPanic(gw, serviceDesc(t, "conf.v1.Probes", rec)); !strings.Contains(msg, `WithSuccessStatus("conf.v1.Probes/CreateProb")`) || !strings.Contains(msg, `no method "CreateProb"`) {
		t.Errorf("in-process: %q", msg)
	}
	gw = protorest.NewGateway(protorest.WithSuccessStatus("/example.v1.MySvc/Uper", 201))
	err := gw.RegisterRemote(context.Background(), nil, protorest.WithRemoteFiles(protoregistry.GlobalFiles, "example.v1.MySvc"))
	if err == nil || !strings.Contains(err.Error(), `no method "Uper"`) {
		t.Errorf("remote: %v", err)
	}
	gw = protorest.NewGateway(protorest.WithSuccessStatus("other.v1.Svc/Create", 201))
	if msg := registerPanic(gw, serviceDesc(t, "conf.v1.Probes", rec)); msg != "" {
		t.Errorf("a status for another service: %q", msg)
	}
}

// compiledProto is a service with no generated code: it is compiled at
// run time, and its google.api.http options are dynamic messages.
const compiledProto = `syntax = "proto3";
package compiled.v1;
import "google/api/annotations.proto";
message Thing { string name = 1; int32 size = 2; }
service Things {
  rpc GetThing(Thing) returns (Thing) {
    option (google.api.http) = {
      get: "/v1/{name=things/*}"
      additional_bindings { post: "/v1/things" body: "*" }
    };
  }
}
`

// TestRegisterServiceCompiledFiles registers a service whose descriptors
// protocompile made (google/api/annotations.proto resolved to the linked
// descriptors, or compiled anew from a descriptor proto, as a descriptor
// set has it), with a dynamic implementation, in a fresh registry: the
// google.api.http option is a *dynamicpb.Message there, which
// RegisterService once asserted to *annotations.HttpRule and panicked on.
func TestRegisterServiceCompiledFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		googleAPIs func(protoreflect.FileDescriptor) protocompile.SearchResult
	}{
		{"linked google/api", func(fd protoreflect.FileDescriptor) protocompile.SearchResult {
			return protocompile.SearchResult{Desc: fd}
		}},
		{"google/api from a descriptor set", func(fd protoreflect.FileDescriptor) protocompile.SearchResult {
			return protocompile.SearchResult{Proto: protodesc.ToFileDescriptorProto(fd)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
				&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"compiled/v1/compiled.proto": compiledProto})},
				protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
					fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
					if err != nil {
						return protocompile.SearchResult{}, err
					}
					return tc.googleAPIs(fd), nil
				}),
			})}
			compiled, err := c.Compile(t.Context(), "compiled/v1/compiled.proto")
			if err != nil {
				t.Fatal(err)
			}
			fd := compiled[0]
			files := new(protoregistry.Files)
			if err := files.RegisterFile(fd); err != nil {
				t.Fatal(err)
			}
			md := fd.Services().Get(0).Methods().Get(0)
			desc := &grpc.ServiceDesc{ServiceName: "compiled.v1.Things", Methods: []grpc.MethodDesc{{
				MethodName: "GetThing",
				Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
					in := dynamicpb.NewMessage(md.Input())
					if err := dec(in); err != nil {
						return nil, err
					}
					return in, nil
				},
			}}}
			gw := protorest.NewGateway(protorest.WithFiles(files))
			if msg := registerPanic(gw, desc); msg != "" {
				t.Fatalf("RegisterService panicked: %s", msg)
			}
			srv := httptest.NewServer(gw)
			t.Cleanup(srv.Close)

			for _, req := range []struct{ method, path, body, want string }{
				{"GET", "/v1/things/a%20b?size=3", "", `{"name":"things/a b","size":3}`},
				{"POST", "/v1/things", `{"name":"n","size":4}`, `{"name":"n","size":4}`},
			} {
				r, err := http.NewRequestWithContext(t.Context(), req.method, srv.URL+req.path, strings.NewReader(req.body))
				if err != nil {
					t.Fatal(err)
				}
				res, err := srv.Client().Do(r)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if res.StatusCode != http.StatusOK || string(body) != req.want {
					t.Errorf("%s %s: %d %s, want 200 %s", req.method, req.path, res.StatusCode, body, req.want)
				}
			}
		})
	}
}

// testService has no google.api.http rules at all.
type testService struct {
	testgrpc.UnimplementedTestServiceServer
}

func (testService) UnaryCall(_ context.Context, req *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	return &testgrpc.SimpleResponse{Payload: req.GetPayload(), Username: "auto"}, nil
}

func TestAutoMapping(t *testing.T) {
	t.Parallel()
	backend := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(backend, testService{})
	examplev1.RegisterMySvcServer(backend, services.NewMySvc())
	reflection.Register(backend)
	addr := serveGRPC(t, backend)

	inProcess := protorest.NewGateway(protorest.WithAutoMapping())
	testgrpc.RegisterTestServiceServer(inProcess, testService{})
	examplev1.RegisterMySvcServer(inProcess, services.NewMySvc())

	remote := protorest.NewGateway(protorest.WithAutoMapping())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := remote.RegisterRemote(ctx, dial(t, addr)); err != nil {
		t.Fatal(err)
	}

	for name, gw := range map[string]*protorest.Gateway{"in-process": inProcess, "remote": remote} {
		srv := httptest.NewServer(gw)
		t.Cleanup(srv.Close)
		resp, body := send(t, "POST", srv.URL+"/grpc.testing.TestService/UnaryCall", `{"payload":{"body":"aGk="}}`)
		if resp.StatusCode != 200 || !strings.Contains(body, `"body":"aGk="`) || !strings.Contains(body, `"username":"auto"`) {
			t.Errorf("%s: unbound method: %d %s", name, resp.StatusCode, body)
		}
		// A method with a rule keeps only its rule.
		if resp, _ := send(t, "POST", srv.URL+"/example.v1.MySvc/Upper", `{"msg":"x"}`); resp.StatusCode != 404 {
			t.Errorf("%s: annotated method under its auto route: %d, want 404", name, resp.StatusCode)
		}
		if resp, body := send(t, "POST", srv.URL+"/api/v1/example/upper", `{"msg":"x"}`); resp.StatusCode != 200 || body != `{"msg":"X"}` {
			t.Errorf("%s: annotated method: %d %s", name, resp.StatusCode, body)
		}
		if resp, _ := send(t, "GET", srv.URL+"/grpc.testing.TestService/UnaryCall", ""); resp.StatusCode != 405 {
			t.Errorf("%s: GET of an auto route: %d, want 405", name, resp.StatusCode)
		}
		if resp, body := send(t, "POST", srv.URL+"/grpc.testing.TestService/EmptyCall", `{}`); resp.StatusCode != 501 {
			t.Errorf("%s: unimplemented method: %d %s", name, resp.StatusCode, body)
		}
	}

	// Without the option, unbound methods have no route.
	plain := protorest.NewGateway()
	testgrpc.RegisterTestServiceServer(plain, testService{})
	if r := do(t, plain, "POST", "/grpc.testing.TestService/UnaryCall", `{}`); r.code != 404 {
		t.Errorf("without auto-mapping: %d, want 404", r.code)
	}
}
