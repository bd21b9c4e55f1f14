package floorproxy_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/protorest/protorest/bench"
	"github.com/protorest/protorest/bench/internal/floorproxy"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// gatewayJSON is the JSON options of the gateways (grpc-gateway's
// defaults), which the floor writes by hand.
var gatewayJSON = protojson.MarshalOptions{EmitUnpopulated: true}

// messages are the response messages the floor reads, by the name of
// floorproxy.ResponseJSON.
var messages = map[string]func() proto.Message{
	"Book":              func() proto.Message { return &libraryv1.Book{} },
	"ListBooksResponse": func() proto.Message { return &libraryv1.ListBooksResponse{} },
	"ListItemsResponse": func() proto.Message { return &libraryv1.ListItemsResponse{} },
	"Item":              func() proto.Message { return &libraryv1.Item{} },
}

// seeds are messages of every kind, as the Library answers and odder.
func seeds() map[string][]proto.Message {
	lib := bench.NewLibrary()
	books, _ := lib.ListBooks(nil, &libraryv1.ListBooksRequest{Parent: bench.Shelf, PageSize: 3})
	items := bench.Items(3)
	odd := &libraryv1.Item{
		Name: "tab\there \"quoted\" \\ <html> é ✓ \u2028", Quantity: -5, Sku: -1 << 62, Price: 1e-7,
		Status: 7, UpdateTime: &timestamppb.Timestamp{Seconds: -62135596800, Nanos: 1000},
		Labels: map[string]string{"b": "2", "a": "1", "": ""},
		Offers: []*libraryv1.Offer{{}, {Seller: "s", PriceMicros: -3}},
	}
	return map[string][]proto.Message{
		"Book":              {books.GetBooks()[0], &libraryv1.Book{}, &libraryv1.Book{PublishTime: &timestamppb.Timestamp{Nanos: 120_000_000}}},
		"ListBooksResponse": {books, &libraryv1.ListBooksResponse{}},
		"ListItemsResponse": {&libraryv1.ListItemsResponse{Items: items, TotalSize: 3}, &libraryv1.ListItemsResponse{}},
		"Item":              {items[0], odd, &libraryv1.Item{Price: 1e21}, &libraryv1.Item{}},
	}
}

// checkJSON requires the floor's JSON of the bytes b, read as the
// message kind, to be protojson's of proto.Unmarshal's, value for value,
// whenever both succeed; and the floor's to be valid JSON whenever it
// succeeds.
func checkJSON(t *testing.T, kind string, b []byte) {
	got, err := floorproxy.ResponseJSON(kind, b)
	if err != nil {
		return
	}
	var gotV any
	if err := decode(got, &gotV); err != nil {
		t.Fatalf("%s: the floor wrote invalid JSON %s: %v", kind, got, err)
	}
	m := messages[kind]()
	if err := proto.Unmarshal(b, m); err != nil {
		return
	}
	want, err := gatewayJSON.Marshal(m)
	if err != nil {
		return
	}
	var wantV any
	if err := decode(want, &wantV); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotV, wantV) {
		t.Errorf("%s %x:\nfloor     %s\nprotojson %s", kind, b, got, want)
	}
}

func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

func TestResponseJSON(t *testing.T) {
	for kind, ms := range seeds() {
		for _, m := range ms {
			b, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := floorproxy.ResponseJSON(kind, b)
			if err != nil {
				t.Errorf("%s %v: %v", kind, m, err)
				continue
			}
			want, _ := gatewayJSON.Marshal(m)
			var compact bytes.Buffer
			if err := json.Compact(&compact, want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, compact.Bytes()) { // byte for byte, keys in the same order
				t.Errorf("%s: floor\n%s\nprotojson\n%s", kind, got, want)
			}
			checkJSON(t, kind, b)
		}
	}
}

// FuzzResponseJSON: for any bytes, the floor's reading of every message
// kind never panics, writes valid JSON, and agrees with protojson.
func FuzzResponseJSON(f *testing.F) {
	for _, ms := range seeds() {
		for _, m := range ms {
			b, _ := proto.Marshal(m)
			f.Add(b)
		}
	}
	f.Add([]byte{0x0a, 0x80})                                     // a length past the end
	f.Add([]byte{0x2a, 0x02, 0x08, 0x01, 0x2a, 0x02, 0x10, 0x05}) // a Timestamp in two parts
	f.Fuzz(func(t *testing.T, b []byte) {
		for kind := range messages {
			checkJSON(t, kind, b)
		}
	})
}
