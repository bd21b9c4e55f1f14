package jsonenc_test

import (
	"errors"
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/internal/fixture"
	"github.com/protorest/protorest/internal/jsonenc"
)

// TestMaxBytes: under Options.MaxBytes, each way of encoding (a
// generated message read from its Go struct, a dynamic message through
// protoreflect, wire bytes) writes exactly what it writes without a limit
// when that fits, and stops with ErrTooLarge, having written little more
// than the limit, when it does not: a list of books, and a book with a
// map of labels far too large to fit, which is refused before it is
// sorted.
func TestMaxBytes(t *testing.T) {
	md := dynamicCopy(t, (&libraryv1.ListBooksResponse{}).ProtoReflect().Descriptor())
	bookMD := dynamicCopy(t, (&libraryv1.Book{}).ProtoReflect().Descriptor())
	labelled := &libraryv1.Book{Name: "shelves/1/books/1", Labels: map[string]string{}}
	for i := range 20000 {
		labelled.Labels["label-"+strconv.Itoa(i)] = "v"
	}
	for _, tt := range []struct {
		name string
		msg  proto.Message
		md   protoreflect.MessageDescriptor
	}{
		{"books", fixture.Books(200), md},
		{"labels", labelled, bookMD},
	} {
		data, err := proto.Marshal(tt.msg)
		if err != nil {
			t.Fatal(err)
		}
		dyn := dynamicpb.NewMessage(tt.md)
		if err := proto.Unmarshal(data, dyn); err != nil {
			t.Fatal(err)
		}
		opts := jsonenc.Options{EmitUnpopulated: true}
		full, err := jsonenc.New(opts).Append(nil, tt.msg)
		if err != nil {
			t.Fatal(err)
		}
		ways := []struct {
			name   string
			encode func(e *jsonenc.Encoder) ([]byte, error)
		}{
			{"go struct", func(e *jsonenc.Encoder) ([]byte, error) { return e.Append(nil, tt.msg) }},
			{"protoreflect", func(e *jsonenc.Encoder) ([]byte, error) { return e.Append(nil, dyn) }},
			{"wire", func(e *jsonenc.Encoder) ([]byte, error) { return e.AppendWire(nil, tt.md, data) }},
		}
		for _, way := range ways {
			t.Run(tt.name+"/"+way.name, func(t *testing.T) {
				for _, max := range []int{len(full), len(full) + 1, 10 << 20} {
					opts.MaxBytes = max
					got, err := way.encode(jsonenc.New(opts))
					if err != nil || string(got) != string(full) {
						t.Errorf("MaxBytes %d (output %d bytes): %d bytes, %v; want the whole output", max, len(full), len(got), err)
					}
				}
				for _, max := range []int{1, 1000, len(full) / 2, len(full) - 1} {
					opts.MaxBytes = max
					got, err := way.encode(jsonenc.New(opts))
					if !errors.Is(err, jsonenc.ErrTooLarge) {
						t.Fatalf("MaxBytes %d (output %d bytes): err %v, want ErrTooLarge", max, len(full), err)
					}
					// At most one book, or one label, past the limit.
					if len(got) > max+1000 {
						t.Errorf("MaxBytes %d: wrote %d bytes before stopping", max, len(got))
					}
				}
			})
		}
	}
	// A map that cannot fit is refused before its 20,000 keys are
	// gathered and sorted: no allocation.
	e := jsonenc.New(jsonenc.Options{MaxBytes: 64 << 10})
	buf := make([]byte, 0, 128<<10)
	if n := testing.AllocsPerRun(10, func() {
		if _, err := e.Append(buf, labelled); !errors.Is(err, jsonenc.ErrTooLarge) {
			t.Fatalf("err %v, want ErrTooLarge", err)
		}
	}); n > 0 {
		t.Errorf("refusing a map too large: %v allocations, want 0", n)
	}
}

// dynamicCopy returns md as built from its descriptor proto, with no Go
// type: what a remote backend's descriptors give.
func dynamicCopy(t testing.TB, md protoreflect.MessageDescriptor) protoreflect.MessageDescriptor {
	t.Helper()
	fd, err := protodesc.NewFile(protodesc.ToFileDescriptorProto(md.ParentFile()), protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName(md.Name())
}
