package validateprotorest_test

import (
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protorest/protorest"
	"github.com/protorest/protorest/validateprotorest"
)

// badRules are descriptors of a service whose request field has rules
// that protovalidate cannot compile; with nested, the field is that of a
// message the request holds only in a list, whose field has no rules.
func badRules(t *testing.T, rules *validate.FieldRules, nested bool) *protoregistry.Files {
	t.Helper()
	fieldOpts := new(descriptorpb.FieldOptions)
	proto.SetExtension(fieldOpts, validate.E_Field, rules)
	title := &descriptorpb.FieldDescriptorProto{
		Name: proto.String("title"), JsonName: proto.String("title"), Number: proto.Int32(1),
		Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
		Options: fieldOpts,
	}
	messages := []*descriptorpb.DescriptorProto{{Name: proto.String("BadRequest"), Field: []*descriptorpb.FieldDescriptorProto{title}}}
	if nested {
		messages = []*descriptorpb.DescriptorProto{
			{Name: proto.String("BadRequest"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("items"), JsonName: proto.String("items"), Number: proto.Int32(1),
				Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".bad.v1.Item"),
				Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(),
			}}},
			{Name: proto.String("Item"), Field: []*descriptorpb.FieldDescriptorProto{title}},
		}
	}
	methodOpts := new(descriptorpb.MethodOptions)
	proto.SetExtension(methodOpts, annotations.E_Http, &annotations.HttpRule{Pattern: &annotations.HttpRule_Post{Post: "/v1/bad"}, Body: "*"})
	file := &descriptorpb.FileDescriptorProto{
		Name:        proto.String("bad/v1/bad.proto"),
		Package:     proto.String("bad.v1"),
		Syntax:      proto.String("proto3"),
		Dependency:  []string{"buf/validate/validate.proto", "google/api/annotations.proto"},
		MessageType: messages,
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("Bad"),
			Method: []*descriptorpb.MethodDescriptorProto{{
				Name: proto.String("Do"), InputType: proto.String(".bad.v1.BadRequest"), OutputType: proto.String(".bad.v1.BadRequest"),
				Options: methodOpts,
			}},
		}},
	}
	files := new(protoregistry.Files)
	for _, dep := range file.Dependency {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(dep)
		if err != nil {
			t.Fatal(err)
		}
		for i := range fd.Imports().Len() {
			imp := fd.Imports().Get(i).FileDescriptor
			if _, err := files.FindFileByPath(imp.Path()); err != nil {
				files.RegisterFile(imp)
			}
		}
		if _, err := files.FindFileByPath(dep); err != nil {
			files.RegisterFile(fd)
		}
	}
	fd, err := protodesc.NewFile(file, files)
	if err != nil {
		t.Fatal(err)
	}
	if err := files.RegisterFile(fd); err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRulesThatDoNotCompile fails the registration of a method whose rules
// protovalidate cannot compile, naming the method and the rule, instead of
// serving it unchecked.
func TestRulesThatDoNotCompile(t *testing.T) {
	unknown := &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{}}}
	// A rule of a later protovalidate: a field StringRules does not have.
	unknown.GetString().ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 999, protowire.VarintType), 1))
	cel := &validate.FieldRules{Cel: []*validate.Rule{{Id: proto.String("title.bad"), Expression: proto.String("this +")}}}
	cases := []struct {
		name   string
		rules  *validate.FieldRules
		nested bool
		want   []string
	}{
		{"cel", cel, false, []string{"bad.v1.Bad.Do", "title.bad"}},
		{"cel-type", &validate.FieldRules{Cel: []*validate.Rule{{Id: proto.String("title.int"), Expression: proto.String("this > 3")}}}, false, []string{"bad.v1.Bad.Do", "title"}},
		{"unknown-rule", unknown, false, []string{"bad.v1.Bad.Do", "unknown"}},
		{"held-in-a-list", cel, true, []string{"bad.v1.Bad.Do", "bad.v1.Item", "title.bad"}},
	}
	conn, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gw := protorest.NewGateway(protorest.WithValidation(validateprotorest.New()))
			err := gw.RegisterRemote(t.Context(), conn, protorest.WithRemoteFiles(badRules(t, c.rules, c.nested)))
			if err == nil {
				t.Fatal("registered")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			t.Log(err)
		})
	}
}
