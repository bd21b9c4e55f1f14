package descsource

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
	examplev1 "github.com/protorest/protorest/examples/example/v1"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	confv1 "github.com/protorest/protorest/internal/testpb/conf/v1"
)

var (
	exampleServices = []string{"bookstore.v1.BookService", "example.v1.MySvc", "library.v1.LibraryService"}
	confServices    = []string{"conf.v1.CatchAll", "conf.v1.DoAnything", "conf.v1.Order", "conf.v1.Probes"}
)

// exampleFiles are the generated files of the example services.
func exampleFiles() []protoreflect.FileDescriptor {
	return []protoreflect.FileDescriptor{
		examplev1.File_examples_example_v1_example_proto,
		bookstorev1.File_examples_bookstore_v1_bookstore_proto,
		libraryv1.File_examples_library_v1_library_proto,
	}
}

func confFile() protoreflect.FileDescriptor { return confv1.File_internal_testpb_conf_v1_conf_proto }

func libraryFile() protoreflect.FileDescriptor {
	return libraryv1.File_examples_library_v1_library_proto
}

func without(fds []*descriptorpb.FileDescriptorProto, drop func(name string) bool) []*descriptorpb.FileDescriptorProto {
	return slices.DeleteFunc(slices.Clone(fds), func(fd *descriptorpb.FileDescriptorProto) bool { return drop(fd.GetName()) })
}

func isGoogle(name string) bool { return strings.HasPrefix(name, "google/") }

func marshalSet(t *testing.T, fds []*descriptorpb.FileDescriptorProto) []byte {
	t.Helper()
	b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: fds})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// thingFiles are two hand-made files: svc/v1/svc.proto, whose service
// svc.v1.Things uses a message of dep/v1/dep.proto.
func thingFiles() []*descriptorpb.FileDescriptorProto {
	mopts := &descriptorpb.MethodOptions{}
	proto.SetExtension(mopts, annotations.E_Http, &annotations.HttpRule{
		Pattern: &annotations.HttpRule_Get{Get: "/v1/{name=things/*}"},
	})
	return []*descriptorpb.FileDescriptorProto{
		{
			Name:    proto.String("dep/v1/dep.proto"),
			Package: proto.String("dep.v1"),
			Syntax:  proto.String("proto3"),
			MessageType: []*descriptorpb.DescriptorProto{{
				Name: proto.String("Thing"),
				Field: []*descriptorpb.FieldDescriptorProto{{
					Name:     proto.String("name"),
					JsonName: proto.String("name"),
					Number:   proto.Int32(1),
					Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
					Type:     descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
				}},
			}},
		},
		{
			Name:       proto.String("svc/v1/svc.proto"),
			Package:    proto.String("svc.v1"),
			Syntax:     proto.String("proto3"),
			Dependency: []string{"dep/v1/dep.proto", "google/api/annotations.proto"},
			Service: []*descriptorpb.ServiceDescriptorProto{{
				Name: proto.String("Things"),
				Method: []*descriptorpb.MethodDescriptorProto{{
					Name:       proto.String("Get"),
					InputType:  proto.String(".dep.v1.Thing"),
					OutputType: proto.String(".dep.v1.Thing"),
					Options:    mopts,
				}},
			}},
		},
	}
}

// rules lists the google.api.http rules a set's files carry for some
// methods: method full name → the GET or POST path.
var rules = map[protoreflect.FullName]string{
	"library.v1.LibraryService.GetBook":     "/v1/{name=shelves/*/books/*}",
	"library.v1.LibraryService.CreateShelf": "/v1/shelves",
	"conf.v1.Probes.RawEcho":                "/v1/raw",
	"conf.v1.Probes.Download":               "/v1/download/{name}",
	"svc.v1.Things.Get":                     "/v1/{name=things/*}",
}

// resolvable lists, for a service, message types its files must resolve.
var resolvable = map[protoreflect.FullName][]protoreflect.FullName{
	"library.v1.LibraryService": {"library.v1.Book", "google.protobuf.Timestamp", "google.protobuf.Empty", "google.protobuf.FieldMask"},
	"example.v1.MySvc":          {"example.v1.UpperRequest", "google.api.HttpRule"},
	"conf.v1.Probes":            {"google.api.HttpBody", "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.Struct"},
	"svc.v1.Things":             {"dep.v1.Thing"},
}

// checkSet checks that set holds exactly the services want, sorted, that
// its files resolve the types the services need, that every method's
// input and output resolve, and that methods carry their google.api.http
// rules as parsed extensions.
func checkSet(t *testing.T, set *Set, want []string) {
	t.Helper()
	if set == nil || set.Files == nil {
		t.Fatalf("set = %+v, want files", set)
	}
	var got []string
	for _, sd := range set.Services {
		got = append(got, string(sd.FullName()))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("services = %q, want %q", got, want)
	}
	types := dynamicpb.NewTypes(set.Files)
	for _, sd := range set.Services {
		for _, name := range resolvable[sd.FullName()] {
			if _, err := types.FindMessageByName(name); err != nil {
				t.Errorf("%s: message %s does not resolve: %v", sd.FullName(), name, err)
			}
		}
		for i := range sd.Methods().Len() {
			md := sd.Methods().Get(i)
			for _, m := range []protoreflect.MessageDescriptor{md.Input(), md.Output()} {
				if m.IsPlaceholder() {
					t.Errorf("%s: %s is a placeholder", md.FullName(), m.FullName())
				}
				if _, err := types.FindMessageByName(m.FullName()); err != nil {
					t.Errorf("%s: %s does not resolve: %v", md.FullName(), m.FullName(), err)
				}
			}
			opts := md.Options().(*descriptorpb.MethodOptions)
			if len(opts.ProtoReflect().GetUnknown()) > 0 {
				t.Errorf("%s: options have unknown fields (extension not parsed)", md.FullName())
			}
			want, ok := rules[md.FullName()]
			if !ok {
				continue
			}
			rule, _ := proto.GetExtension(opts, annotations.E_Http).(*annotations.HttpRule)
			if got := rule.GetGet() + rule.GetPost(); got != want {
				t.Errorf("%s: google.api.http path = %q, want %q", md.FullName(), got, want)
			}
		}
	}
	// A library book goes through protojson as a dynamic message.
	if _, err := set.Files.FindDescriptorByName("library.v1.Book"); err == nil {
		mt, err := types.FindMessageByName("library.v1.Book")
		if err != nil {
			t.Fatal(err)
		}
		m := mt.New().Interface()
		in := `{"name":"shelves/1/books/2","genre":"POETRY","createTime":"2024-05-06T07:08:09Z","labels":{"a":"b"}}`
		if err := (protojson.UnmarshalOptions{Resolver: types}).Unmarshal([]byte(in), m); err != nil {
			t.Fatalf("protojson.Unmarshal(library.v1.Book): %v", err)
		}
		out, err := protojson.MarshalOptions{Resolver: types}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"2024-05-06T07:08:09Z"`) || !strings.Contains(string(out), `"POETRY"`) {
			t.Errorf("round trip of library.v1.Book = %s", out)
		}
	}
}

func wantError(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %q, want it to contain %q", err, w)
		}
	}
}
