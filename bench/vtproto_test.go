package bench

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/protorest/protorest"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
	"github.com/protorest/protorest/internal/codec"
)

// The core module cannot depend on vtprotobuf, so its tests stand a
// hand-written double in for the generated methods. These tests check,
// on the code protoc-gen-go-vtproto generated (library_vtproto.pb.go),
// what protorest's binary codec (internal/codec/proto.go) assumes of it.

// TestVTUnmarshalMerges: UnmarshalVT merges into a message that holds
// fields, as proto.UnmarshalOptions{Merge: true} does: scalars and a
// message's set fields replaced, lists appended, map entries added or
// replaced, messages merged. codec.Proto reads with it and promises
// Merge's semantics.
func TestVTUnmarshalMerges(t *testing.T) {
	held := func() *libraryv1.Item {
		return &libraryv1.Item{
			Name: "items/1", Title: "old", Quantity: 3, Tags: []string{"a"},
			Labels:     map[string]string{"k": "old", "keep": "x"},
			UpdateTime: &timestamppb.Timestamp{Seconds: 100, Nanos: 5},
			Offers:     []*libraryv1.Offer{{Seller: "s1"}},
		}
	}
	data, err := proto.Marshal(&libraryv1.Item{
		Title: "new", Sku: 9, Tags: []string{"b"}, Labels: map[string]string{"k": "new", "add": "y"},
		UpdateTime: &timestamppb.Timestamp{Seconds: 200}, Offers: []*libraryv1.Offer{{Seller: "s2", PriceMicros: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := held()
	if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(data, want); err != nil {
		t.Fatal(err)
	}
	if want.GetName() != "items/1" || want.GetUpdateTime().GetNanos() != 5 || len(want.GetTags()) != 2 {
		t.Fatalf("proto's merge is not what this test expects: %v", want) // the test's own premise
	}
	for name, read := range map[string]func(*libraryv1.Item) error{
		"UnmarshalVT": func(m *libraryv1.Item) error { return m.UnmarshalVT(data) },
		"codec.Proto": func(m *libraryv1.Item) error { return codec.Proto{}.Unmarshal(data, m) },
	} {
		got := held()
		if err := read(got); err != nil || !proto.Equal(got, want) {
			t.Errorf("%s = %v, %v; want %v", name, got, err, want)
		}
	}
}

// TestVTMarshal: the generated methods write what proto.Marshal writes
// (byte for byte on a message without maps, whose order proto does not
// fix), through codec.Proto's Marshal and AppendMarshal (SizeVT, then
// MarshalToSizedBufferVT at the end of the buffer) alike.
func TestVTMarshal(t *testing.T) {
	book := &libraryv1.ListBooksResponse{NextPageToken: "p2", Books: []*libraryv1.Book{
		{Name: "shelves/1/books/001", Title: "T", PageCount: 137, PublishTime: timestamppb.New(epoch), Topics: []string{"a", "b"}},
		{},
	}}
	want, err := proto.Marshal(book)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := book.MarshalVT(); err != nil || !bytes.Equal(got, want) {
		t.Errorf("MarshalVT = %x, %v; want %x", got, err, want)
	}
	if got, err := (codec.Proto{}).Marshal(book); err != nil || !bytes.Equal(got, want) {
		t.Errorf("codec.Proto.Marshal = %x, %v; want %x", got, err, want)
	}
	got, err := codec.Proto{}.AppendMarshal([]byte("prefix"), book)
	if err != nil || !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Errorf("codec.Proto.AppendMarshal = %x, %v; want %x after the prefix", got, err, want)
	}

	// A message with a map: the same message, if not the same bytes.
	items := &libraryv1.ListItemsResponse{Items: Items(3), TotalSize: 3}
	vt, err := codec.Proto{}.AppendMarshal(nil, items)
	if err != nil {
		t.Fatal(err)
	}
	var back libraryv1.ListItemsResponse
	if err := proto.Unmarshal(vt, &back); err != nil || !proto.Equal(&back, items) || len(vt) != proto.Size(items) {
		t.Errorf("AppendMarshal(items) reads back as %v, %v", &back, err)
	}
}

// TestVTSkipsUTF8Check pins the difference codec.Proto documents: proto
// rejects a proto3 string that is not UTF-8, the generated code writes and
// reads it.
func TestVTSkipsUTF8Check(t *testing.T) {
	bad := &libraryv1.EchoMessage{Message: "\xff"}
	if _, err := proto.Marshal(bad); err == nil {
		t.Error("proto.Marshal accepts invalid UTF-8")
	}
	data, err := bad.MarshalVT()
	if err != nil {
		t.Fatalf("MarshalVT: %v", err)
	}
	if err := proto.Unmarshal(data, &libraryv1.EchoMessage{}); err == nil {
		t.Error("proto.Unmarshal accepts invalid UTF-8")
	}
	var back libraryv1.EchoMessage
	if err := back.UnmarshalVT(data); err != nil || back.GetMessage() != "\xff" {
		t.Errorf("UnmarshalVT = %q, %v", back.GetMessage(), err)
	}
}

// TestVTThroughGateway: binary requests and responses of the library's
// messages, whose types have the generated methods, through a protorest
// gateway: a whole-message body, and a body field whose message the path
// then completes (UpdateBook binds book.name after reading the body).
func TestVTThroughGateway(t *testing.T) {
	gw := protorest.NewGateway()
	libraryv1.RegisterLibraryServer(gw, NewLibrary())
	tests := []struct {
		name, method, path string
		body               proto.Message
		want               proto.Message
		got                proto.Message // of want's type
	}{
		{"Echo", "POST", "/v1/echo", &libraryv1.EchoMessage{Message: "hi", Count: 2, Tags: []string{"a"}},
			&libraryv1.EchoMessage{Message: "hi", Count: 2, Tags: []string{"a"}}, &libraryv1.EchoMessage{}},
		{"UpdateBook", "PATCH", "/v1/" + Shelf + "/books/002", &libraryv1.Book{Title: "New", PageCount: 9},
			&libraryv1.Book{Name: Shelf + "/books/002", Title: "New", PageCount: 9}, &libraryv1.Book{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := proto.Marshal(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(tt.method, tt.path, bytes.NewReader(body))
			r.Header.Set("Content-Type", codec.MediaProto)
			r.Header.Set("Accept", codec.MediaProto)
			w := httptest.NewRecorder()
			gw.ServeHTTP(w, r)
			if w.Code != http.StatusOK || w.Header().Get("Content-Type") != codec.MediaProto {
				t.Fatalf("%d %s: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
			}
			if err := proto.Unmarshal(w.Body.Bytes(), tt.got); err != nil {
				t.Fatal(err)
			}
			// UpdateBook has no mask (none is derived from a binary
			// body), so it replaced every mutable field.
			if !proto.Equal(tt.got, tt.want) {
				t.Errorf("response %v, want %v", tt.got, tt.want)
			}
		})
	}
}
