package openapi

import (
	"context"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// commentsProto declares everything that carries a comment, at every
// depth, with comments of every kind around them.
const commentsProto = `syntax = "proto3";
// The package.
package comments.v1;

import "google/protobuf/descriptor.proto";

// Outer is a message.
// (-- internal note --)
message Outer {
  // A field.
  string a = 1; // trailing, not leading

  // Detached from b.

  // b's own.
  int32 b = 2;
  // A oneof.
  oneof choice {
    // A member.
    string c = 3;
    int64 d = 4;
  }
  // Inner is nested.
  message Inner {
    // Deep field.
    Outer.Inner.Kind kind = 1;
    // Kind is nested twice.
    enum Kind {
      // The zero.
      KIND_UNSPECIFIED = 0;
      KIND_ONE = 1;
    }
  }
  Inner inner = 5 [deprecated = true];
  // A map.
  map<string, Inner> m = 6;
}

// Top is a top-level enum.
enum Top {
  // Zero.
  TOP_UNSPECIFIED = 0;
}

// Ext is an extension, which the document does not show.
extend google.protobuf.FieldOptions {
  // A field option.
  string note = 50001;
}

// Svc serves.
service Svc {
  // Get gets.
  //
  // More on Get.
  rpc Get(Outer) returns (Outer);
  rpc Put(Outer) returns (Outer);
}
`

// compileComments compiles commentsProto, with its source info or
// without.
func compileComments(t *testing.T, mode protocompile.SourceInfoMode) protoreflect.FileDescriptor {
	t.Helper()
	compiler := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(map[string]string{"comments.proto": commentsProto}),
		}),
		SourceInfoMode: mode,
	}
	files, err := compiler.Compile(context.Background(), "comments.proto")
	if err != nil {
		t.Fatal(err)
	}
	return files[0]
}

// walkDeclarations calls visit with every message, field, oneof, enum,
// enum value, service and method of f.
func walkDeclarations(f protoreflect.FileDescriptor, visit func(protoreflect.Descriptor)) {
	var walkMessages func(protoreflect.MessageDescriptors)
	walkEnums := func(eds protoreflect.EnumDescriptors) {
		for i := range eds.Len() {
			ed := eds.Get(i)
			visit(ed)
			for j := range ed.Values().Len() {
				visit(ed.Values().Get(j))
			}
		}
	}
	walkMessages = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			md := mds.Get(i)
			visit(md)
			for j := range md.Fields().Len() {
				visit(md.Fields().Get(j))
			}
			for j := range md.Oneofs().Len() {
				visit(md.Oneofs().Get(j))
			}
			walkEnums(md.Enums())
			walkMessages(md.Messages())
		}
	}
	walkMessages(f.Messages())
	walkEnums(f.Enums())
	for i := range f.Services().Len() {
		sd := f.Services().Get(i)
		visit(sd)
		for j := range sd.Methods().Len() {
			visit(sd.Methods().Get(j))
		}
	}
}

// Descriptors without source info (as generated Go code's are) take the
// comments of Options.Comments' declarations of the same full names; a
// file with source info of its own keeps its own.
func TestCommentsBorrowed(t *testing.T) {
	withInfo := compileComments(t, protocompile.SourceInfoStandard)
	bare := compileComments(t, protocompile.SourceInfoNone)
	if bare.SourceLocations().Len() != 0 {
		t.Fatal("compiled without source info, yet it has some")
	}
	declared := map[protoreflect.FullName]protoreflect.Descriptor{}
	walkDeclarations(withInfo, func(d protoreflect.Descriptor) { declared[d.FullName()] = d })
	own := newBuilder(Options{}, nil)
	b := newBuilder(Options{}, commentsByName([]protoreflect.FileDescriptor{withInfo}))
	commented := 0
	walkDeclarations(bare, func(d protoreflect.Descriptor) {
		want := own.comment(declared[d.FullName()])
		if got := b.comment(d); got != want {
			t.Errorf("%s: borrowed comment %q, want %q", d.FullName(), got, want)
		}
		if got := own.comment(d); got != "" {
			t.Errorf("%s: comment %q without source info and nothing to borrow", d.FullName(), got)
		}
		if want != "" {
			commented++
		}
	})
	if commented != 14 {
		t.Errorf("%d comments borrowed, want 14", commented)
	}
	// A file with source info keeps its own comments, not the borrowed ones.
	other := newBuilder(Options{}, map[protoreflect.FullName]docComment{"comments.v1.Outer": "borrowed"})
	if got := other.comment(withInfo.Messages().ByName("Outer")); got != "Outer is a message." {
		t.Errorf("a file's own comment: %q", got)
	}
}

// TestComments: the comments a build reads a file at a time are those
// SourceLocations.ByDescriptor gives, descriptor by descriptor, cleaned.
func TestComments(t *testing.T) {
	f := compileComments(t, protocompile.SourceInfoStandard)
	b := newBuilder(Options{}, nil)
	var compared, commented int
	walkDeclarations(f, func(d protoreflect.Descriptor) {
		want := cleanComment(f.SourceLocations().ByDescriptor(d).LeadingComments)
		if got := b.comment(d); got != want {
			t.Errorf("%s: comment %q, ByDescriptor's %q", d.FullName(), got, want)
		}
		compared++
		if want != "" {
			commented++
		}
	})
	if compared != 21 || commented != 14 {
		t.Errorf("compared %d descriptors, %d with a comment; want 21 and 14 (did the walk miss some?)", compared, commented)
	}
	for _, tc := range []struct {
		d    protoreflect.Descriptor
		want docComment
	}{
		{f.Messages().ByName("Outer"), "Outer is a message."},
		{f.Messages().ByName("Outer").Fields().ByName("a"), "A field."},
		{f.Messages().ByName("Outer").Fields().ByName("b"), "b's own."},
		{f.Messages().ByName("Outer").Messages().ByName("Inner").Enums().ByName("Kind").Values().ByName("KIND_UNSPECIFIED"), "The zero."},
		{f.Services().ByName("Svc").Methods().ByName("Get"), "Get gets.\n\nMore on Get."},
		// Not documented: the document shows no extensions.
		{f.Extensions().ByName("note"), ""},
		// Generated code keeps no source info.
		{timestamppb.File_google_protobuf_timestamp_proto.Messages().ByName("Timestamp"), ""},
	} {
		if got := b.comment(tc.d); got != tc.want {
			t.Errorf("%s: comment %q, want %q", tc.d.FullName(), got, tc.want)
		}
	}
}
