package bind

import (
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The conformance fixture of shared/spec/conformance-cases.md (package
// conf.v1), built from descriptor protos so that the tests do not depend
// on generated code, plus conf.v1.Extra for the types the fixture lacks.
var fixture = sync.OnceValue(buildFixture)

type fixtureFiles struct {
	files *protoregistry.Files
	probe protoreflect.MessageDescriptor
	inner protoreflect.MessageDescriptor
	extra protoreflect.MessageDescriptor
	list  protoreflect.MessageDescriptor
}

func buildFixture() *fixtureFiles {
	files := new(protoregistry.Files)
	for _, fd := range []protoreflect.FileDescriptor{
		anypb.File_google_protobuf_any_proto,
		durationpb.File_google_protobuf_duration_proto,
		emptypb.File_google_protobuf_empty_proto,
		fieldmaskpb.File_google_protobuf_field_mask_proto,
		structpb.File_google_protobuf_struct_proto,
		timestamppb.File_google_protobuf_timestamp_proto,
		wrapperspb.File_google_protobuf_wrappers_proto,
	} {
		must(files.RegisterFile(fd))
	}
	httpbody := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("google/api/httpbody.proto"),
		Package:    proto.String("google.api"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/any.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("HttpBody"),
			Field: []*descriptorpb.FieldDescriptorProto{
				scalar("content_type", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING),
				scalar("data", 2, descriptorpb.FieldDescriptorProto_TYPE_BYTES),
				repeated(message("extensions", 3, ".google.protobuf.Any")),
			},
		}},
	}
	register(files, httpbody)

	inner := &descriptorpb.DescriptorProto{
		Name: proto.String("Inner"),
		Field: []*descriptorpb.FieldDescriptorProto{
			scalar("s", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			scalar("i", 2, descriptorpb.FieldDescriptorProto_TYPE_INT32),
			message("deeper", 3, ".conf.v1.Inner"),
		},
	}
	lastName := scalar("last_name", 25, descriptorpb.FieldDescriptorProto_TYPE_STRING)
	lastName.JsonName = proto.String("lname")
	optA := scalar("opt_a", 22, descriptorpb.FieldDescriptorProto_TYPE_STRING)
	optA.OneofIndex = proto.Int32(0)
	optB := scalar("opt_b", 23, descriptorpb.FieldDescriptorProto_TYPE_STRING)
	optB.OneofIndex = proto.Int32(0)
	probe := &descriptorpb.DescriptorProto{
		Name: proto.String("Probe"),
		Field: []*descriptorpb.FieldDescriptorProto{
			scalar("name", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			scalar("id", 2, descriptorpb.FieldDescriptorProto_TYPE_INT64),
			scalar("i32", 3, descriptorpb.FieldDescriptorProto_TYPE_INT32),
			scalar("u64", 4, descriptorpb.FieldDescriptorProto_TYPE_UINT64),
			scalar("flag", 5, descriptorpb.FieldDescriptorProto_TYPE_BOOL),
			scalar("dbl", 6, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE),
			scalar("flt", 7, descriptorpb.FieldDescriptorProto_TYPE_FLOAT),
			scalar("blob", 8, descriptorpb.FieldDescriptorProto_TYPE_BYTES),
			enum("color", 9, ".conf.v1.Color"),
			repeated(scalar("tags", 10, descriptorpb.FieldDescriptorProto_TYPE_STRING)),
			repeated(scalar("nums", 11, descriptorpb.FieldDescriptorProto_TYPE_INT32)),
			message("inner", 12, ".conf.v1.Inner"),
			repeated(message("items", 13, ".conf.v1.Inner")),
			repeated(message("labels", 14, ".conf.v1.Probe.LabelsEntry")),
			message("ts", 15, ".google.protobuf.Timestamp"),
			message("dur", 16, ".google.protobuf.Duration"),
			message("mask", 17, ".google.protobuf.FieldMask"),
			message("wi32", 18, ".google.protobuf.Int32Value"),
			message("wstr", 19, ".google.protobuf.StringValue"),
			message("val", 20, ".google.protobuf.Value"),
			message("attrs", 21, ".google.protobuf.Struct"),
			optA,
			optB,
			scalar("display_name", 24, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			lastName,
			scalar("parent", 26, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			message("payload", 27, ".google.api.HttpBody"),
			repeated(enum("colors", 28, ".conf.v1.Color")),
		},
		OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("choice")}},
		NestedType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("LabelsEntry"),
			Field: []*descriptorpb.FieldDescriptorProto{
				scalar("key", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING),
				scalar("value", 2, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			},
			Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
		}},
	}
	page := &descriptorpb.DescriptorProto{
		Name: proto.String("Page"),
		Field: []*descriptorpb.FieldDescriptorProto{
			message("page", 1, ".google.api.HttpBody"),
			scalar("etag", 2, descriptorpb.FieldDescriptorProto_TYPE_STRING),
		},
	}
	oneofEmpty := message("oneof_empty", 2, ".google.protobuf.Empty")
	oneofEmpty.OneofIndex = proto.Int32(0)
	oneofInner := message("oneof_inner", 3, ".conf.v1.Inner")
	oneofInner.OneofIndex = proto.Int32(0)
	extra := &descriptorpb.DescriptorProto{
		Name: proto.String("Extra"),
		Field: []*descriptorpb.FieldDescriptorProto{
			message("e", 1, ".google.protobuf.Empty"),
			oneofEmpty,
			oneofInner,
			scalar("s32", 4, descriptorpb.FieldDescriptorProto_TYPE_SINT32),
			scalar("f64", 5, descriptorpb.FieldDescriptorProto_TYPE_FIXED64),
			message("wbytes", 6, ".google.protobuf.BytesValue"),
			message("wbool", 7, ".google.protobuf.BoolValue"),
			repeated(message("tss", 8, ".google.protobuf.Timestamp")),
			message("lv", 9, ".google.protobuf.ListValue"),
			message("any", 10, ".google.protobuf.Any"),
			scalar("u32", 11, descriptorpb.FieldDescriptorProto_TYPE_UINT32),
			message("wdbl", 12, ".google.protobuf.DoubleValue"),
			repeated(scalar("blobs", 13, descriptorpb.FieldDescriptorProto_TYPE_BYTES)),
			message("wu64", 14, ".google.protobuf.UInt64Value"),
			repeated(scalar("flags", 15, descriptorpb.FieldDescriptorProto_TYPE_BOOL)),
		},
		OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("pick")}},
	}
	// A realistic list request, for the benchmarks.
	list := &descriptorpb.DescriptorProto{
		Name: proto.String("ListProbesRequest"),
		Field: []*descriptorpb.FieldDescriptorProto{
			scalar("parent", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			scalar("page_size", 2, descriptorpb.FieldDescriptorProto_TYPE_INT32),
			scalar("page_token", 3, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			scalar("filter", 4, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			scalar("order_by", 5, descriptorpb.FieldDescriptorProto_TYPE_STRING),
			scalar("show_deleted", 6, descriptorpb.FieldDescriptorProto_TYPE_BOOL),
			message("read_mask", 7, ".google.protobuf.FieldMask"),
		},
	}
	conf := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("conf/v1/probe.proto"),
		Package: proto.String("conf.v1"),
		Syntax:  proto.String("proto3"),
		Dependency: []string{
			"google/api/httpbody.proto",
			"google/protobuf/any.proto",
			"google/protobuf/duration.proto",
			"google/protobuf/empty.proto",
			"google/protobuf/field_mask.proto",
			"google/protobuf/struct.proto",
			"google/protobuf/timestamp.proto",
			"google/protobuf/wrappers.proto",
		},
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: proto.String("Color"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: proto.String("COLOR_UNSPECIFIED"), Number: proto.Int32(0)},
				{Name: proto.String("RED"), Number: proto.Int32(1)},
				{Name: proto.String("GREEN"), Number: proto.Int32(2)},
			},
		}},
		MessageType: []*descriptorpb.DescriptorProto{inner, probe, page, extra, list},
	}
	fd := register(files, conf)
	msgs := fd.Messages()
	return &fixtureFiles{
		files: files,
		inner: msgs.ByName("Inner"),
		probe: msgs.ByName("Probe"),
		extra: msgs.ByName("Extra"),
		list:  msgs.ByName("ListProbesRequest"),
	}
}

func register(files *protoregistry.Files, fdp *descriptorpb.FileDescriptorProto) protoreflect.FileDescriptor {
	fd, err := protodesc.NewFile(fdp, files)
	must(err)
	must(files.RegisterFile(fd))
	return fd
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func scalar(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type) *descriptorpb.FieldDescriptorProto {
	return &descriptorpb.FieldDescriptorProto{
		Name:   proto.String(name),
		Number: proto.Int32(num),
		Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
		Type:   typ.Enum(),
	}
}

func message(name string, num int32, typeName string) *descriptorpb.FieldDescriptorProto {
	f := scalar(name, num, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE)
	f.TypeName = proto.String(typeName)
	return f
}

func enum(name string, num int32, typeName string) *descriptorpb.FieldDescriptorProto {
	f := scalar(name, num, descriptorpb.FieldDescriptorProto_TYPE_ENUM)
	f.TypeName = proto.String(typeName)
	return f
}

func repeated(f *descriptorpb.FieldDescriptorProto) *descriptorpb.FieldDescriptorProto {
	f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	return f
}

// parseText returns a new md message holding the text-format message s.
func parseText(t testing.TB, md protoreflect.MessageDescriptor, s string) *dynamicpb.Message {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	if err := (prototext.UnmarshalOptions{Resolver: dynamicpb.NewTypes(fixture().files)}).Unmarshal([]byte(s), m); err != nil {
		t.Fatalf("bad test message %q: %v", s, err)
	}
	return m
}

// resolve resolves a dotted field path against md, failing the test on
// error.
func resolve(t testing.TB, md protoreflect.MessageDescriptor, path ...string) *Field {
	t.Helper()
	f, err := ResolveField(md, path)
	if err != nil {
		t.Fatalf("ResolveField(%v): %v", path, err)
	}
	return f
}
