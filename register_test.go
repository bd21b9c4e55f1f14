package protorest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest"
)

// ruleFiles builds a registry holding service t.v1.S whose methods M0,
// M1, … carry the given rules, over a request message with a few fields.
func ruleFiles(t *testing.T, rules ...*annotations.HttpRule) (*protoregistry.Files, *grpc.ServiceDesc) {
	t.Helper()
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	msg := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("t/v1/t.proto"),
		Package: proto.String("t.v1"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Inner"), Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("s"), Number: proto.Int32(1), Type: str, Label: opt, JsonName: proto.String("s")},
			}},
			{Name: proto.String("Req"), Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("name"), Number: proto.Int32(1), Type: str, Label: opt, JsonName: proto.String("name")},
				{Name: proto.String("inner"), Number: proto.Int32(2), Type: msg, TypeName: proto.String(".t.v1.Inner"), Label: opt, JsonName: proto.String("inner")},
				{Name: proto.String("items"), Number: proto.Int32(3), Type: msg, TypeName: proto.String(".t.v1.Inner"), Label: rep, JsonName: proto.String("items")},
			}},
		},
	}
	svc := &descriptorpb.ServiceDescriptorProto{Name: proto.String("S")}
	desc := &grpc.ServiceDesc{ServiceName: "t.v1.S"}
	for i, r := range rules {
		opts := &descriptorpb.MethodOptions{}
		proto.SetExtension(opts, annotations.E_Http, r)
		name := fmt.Sprintf("M%d", i)
		svc.Method = append(svc.Method, &descriptorpb.MethodDescriptorProto{
			Name: proto.String(name), InputType: proto.String(".t.v1.Req"), OutputType: proto.String(".t.v1.Req"), Options: opts,
		})
		desc.Methods = append(desc.Methods, grpc.MethodDesc{MethodName: name, Handler: func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
			return nil, nil
		}})
	}
	fdp.Service = []*descriptorpb.ServiceDescriptorProto{svc}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(fd); err != nil {
		t.Fatal(err)
	}
	return files, desc
}

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
		{"C225 verb alone", []*annotations.HttpRule{get("/:verb")}, []string{"column"}},
		{"C225 empty verb is no verb, as grpc-gateway reads it", []*annotations.HttpRule{get("/a/*:")}, nil},
		{"R7 unknown field", []*annotations.HttpRule{get("/v1/{nope}")}, []string{"t.v1.S.M0", "nope"}},
		// grpc-gateway generates this route, and its runtime answers every
		// request 400 ("invalid path": runtime/query.go,
		// populateFieldValueFromPath).
		{"R14 through a repeated field", []*annotations.HttpRule{get("/v1/{items.s}")}, []string{"items"}},
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

// TestVerbWithColonServed: a verb that contains ":", which
// google/api/http.proto forbids and grpc-gateway serves (its
// a_bit_of_everything.proto has {uuid}:custom:custom), is served for
// migration, and when several registered verbs end the last segment the
// longest wins (PROFILE.md, R13).
func TestVerbWithColonServed(t *testing.T) {
	t.Parallel()
	post := func(path string) *annotations.HttpRule {
		return &annotations.HttpRule{Pattern: &annotations.HttpRule_Post{Post: path}}
	}
	files, desc := ruleFiles(t, post("/v1/{name}:custom"), post("/v1/{name}:custom:custom"), post("/v1/{name}"))
	fd, err := files.FindFileByPath("t/v1/t.proto")
	if err != nil {
		t.Fatal(err)
	}
	in := fd.Messages().ByName("Req")
	type call struct{ method, name string }
	calls := make(chan call, 1)
	for i := range desc.Methods {
		method := desc.Methods[i].MethodName
		desc.Methods[i].Handler = func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			m := dynamicpb.NewMessage(in)
			if err := dec(m); err != nil {
				return nil, err
			}
			calls <- call{method, m.Get(in.Fields().ByName("name")).String()}
			return m, nil
		}
	}
	gw := protorest.NewGateway(protorest.WithFiles(files))
	gw.RegisterService(desc, nil)
	for _, tt := range []struct {
		path string
		want call
	}{
		{"/v1/abc:custom:custom", call{"M1", "abc"}},
		{"/v1/abc:custom", call{"M0", "abc"}},
		{"/v1/a:b:custom:custom", call{"M1", "a:b"}},
		{"/v1/a:custom:b", call{"M2", "a:custom:b"}}, // no registered verb ends it
		{"/v1/custom:custom", call{"M0", "custom"}},
	} {
		if resp := do(t, gw, "POST", tt.path, ""); resp.code != 200 {
			t.Errorf("POST %s: %d %s", tt.path, resp.code, resp.body)
			continue
		}
		if got := <-calls; got != tt.want {
			t.Errorf("POST %s called %+v, want %+v", tt.path, got, tt.want)
		}
	}
}
