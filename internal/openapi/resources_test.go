package openapi

import (
	"encoding/json"
	"slices"
	"testing"

	"google.golang.org/protobuf/reflect/protoregistry"
)

// lib.proto names the segments of its paths with google.api.resource
// patterns, in each way a field finds one, and without.
const libProto = `syntax = "proto3";
package lib.v1;
import "google/api/annotations.proto";
import "google/api/resource.proto";

option (google.api.resource_definition) = {type: "lib.example.com/Publisher" pattern: "publishers/{publisher}"};

service Lib {
  // A resource_reference to the Book: its pattern.
  rpc GetBook(GetBookRequest) returns (Book) {
    option (google.api.http) = {get: "/v1/{name=shelves/*/books/*}"};
  }
  // The Book's own name field; the shape GetBook named.
  rpc UpdateBook(UpdateBookRequest) returns (Book) {
    option (google.api.http) = {patch: "/v1/{book.name=shelves/*/books/*}" body: "book"};
  }
  // The Book's second pattern.
  rpc GetAuthorBook(GetBookRequest) returns (Book) {
    option (google.api.http) = {get: "/v1/{name=authors/*/books/*}"};
  }
  // A reference to the Shelf.
  rpc ListBooks(ListBooksRequest) returns (Book) {
    option (google.api.http) = {get: "/v1/{parent=shelves/*}/books"};
  }
  // A child_type reference: the parent of a Book.
  rpc CountBooks(CountBooksRequest) returns (Book) {
    option (google.api.http) = {get: "/v1/{parent=stacks/*/shelves/*}:count"};
  }
  // A file's resource_definition.
  rpc GetPublisher(GetPublisherRequest) returns (Book) {
    option (google.api.http) = {get: "/v1/{name=publishers/*}"};
  }
  // A resource whose name field is not "name".
  rpc GetMemo(Memo) returns (Memo) {
    option (google.api.http) = {get: "/v1/{path=memos/*}"};
  }
  // No pattern of the Book has this shape: the collections name them.
  rpc GetLibraryBook(GetBookRequest) returns (Book) {
    option (google.api.http) = {get: "/v1/{name=libraries/*/books/*}"};
  }
  // No resource: the collections.
  rpc GetDesk(GetDeskRequest) returns (Book) {
    option (google.api.http) = {get: "/v1/{name=rooms/*/desks/*}"};
  }
  // A query parameter called shelf: the segment is shelf2.
  rpc FindBook(FindBookRequest) returns (Book) {
    option (google.api.http) = {get: "/v1/{name=shelves/*/books/*}:find"};
  }
  // A path field called book: the segment is book2.
  rpc PutBook(PutBookRequest) returns (Book) {
    option (google.api.http) = {put: "/v1/{book}/{name=shelves/*/books/*}"};
  }
}

message Book {
  option (google.api.resource) = {
    type: "lib.example.com/Book"
    pattern: "stacks/{stack}/shelves/{shelf}/books/{book}"
    pattern: "shelves/{shelf}/books/{book}"
    pattern: "authors/{author}/books/{book}"
  };
  string name = 1;
  string title = 2;
}

message Shelf {
  option (google.api.resource) = {type: "lib.example.com/Shelf" pattern: "shelves/{shelf}"};
  string name = 1;
}

message Memo {
  option (google.api.resource) = {type: "lib.example.com/Memo" pattern: "memos/{memo_id}" name_field: "path"};
  string path = 1;
}

message GetBookRequest {
  string name = 1 [(google.api.resource_reference).type = "lib.example.com/Book"];
}

message UpdateBookRequest {
  Book book = 1;
  string book_id = 2;
}

message ListBooksRequest {
  string parent = 1 [(google.api.resource_reference).type = "lib.example.com/Shelf"];
}

message CountBooksRequest {
  string parent = 1 [(google.api.resource_reference).child_type = "lib.example.com/Book"];
}

message GetPublisherRequest {
  string name = 1 [(google.api.resource_reference).type = "lib.example.com/Publisher"];
}

message GetDeskRequest {
  string name = 1;
}

message FindBookRequest {
  string name = 1 [(google.api.resource_reference).type = "lib.example.com/Book"];
  string shelf = 2;
}

message PutBookRequest {
  string name = 1 [(google.api.resource_reference).type = "lib.example.com/Book"];
  string book = 2;
}
`

// The segments of multi-segment variables take the names of the
// resource's pattern, found through the field's resource_reference (type
// or child_type) or as the resource's name field, or of a file's
// resource_definition; else of their collections. No name is one another
// parameter of the operation has. The options are read whether the files
// hold them as generated types, as dynamic messages (protocompile) or as
// unknown fields.
func TestResourcePatternNames(t *testing.T) {
	t.Parallel()
	compiled := compileProto(t, "lib.proto", libProto)
	forms := map[string][]Route{
		"dynamic (protocompile)": fileRoutes(t, compiled, nil),
		"generated":              fileRoutes(t, throughBytes(t, compiled, protoregistry.GlobalTypes), nil),
		"unknown fields":         fileRoutes(t, throughBytes(t, compiled, new(protoregistry.Types)), nil),
	}
	type param struct{ Name, In, Description string }
	want := map[string]map[string][]param{ // path → method → parameters
		"/v1/shelves/{shelf}/books/{book}": {
			"get": {{"shelf", "path", "A segment of `name`, which is `shelves/{shelf}/books/{book}`."},
				{"book", "path", "A segment of `name`, which is `shelves/{shelf}/books/{book}`."}},
			"patch": {{"shelf", "path", "A segment of `book.name`, which is `shelves/{shelf}/books/{book}`."},
				{"book", "path", "A segment of `book.name`, which is `shelves/{shelf}/books/{book}`."},
				{"bookId", "query", ""}},
		},
		"/v1/authors/{author}/books/{book}": {"get": {{"author", "path", "A segment of `name`, which is `authors/{author}/books/{book}`."},
			{"book", "path", "A segment of `name`, which is `authors/{author}/books/{book}`."}}},
		"/v1/shelves/{shelf}/books": {"get": {{"shelf", "path", "A segment of `parent`, which is `shelves/{shelf}`."}}},
		"/v1/stacks/{stack}/shelves/{shelf}:count": {"get": {{"stack", "path", "A segment of `parent`, which is `stacks/{stack}/shelves/{shelf}`."},
			{"shelf", "path", "A segment of `parent`, which is `stacks/{stack}/shelves/{shelf}`."}}},
		"/v1/publishers/{publisher}": {"get": {{"publisher", "path", "A segment of `name`, which is `publishers/{publisher}`."}}},
		"/v1/memos/{memo_id}":        {"get": {{"memo_id", "path", "A segment of `path`, which is `memos/{memo_id}`."}}},
		"/v1/libraries/{library}/books/{book}": {"get": {{"library", "path", "A segment of `name`, which is `libraries/{library}/books/{book}`."},
			{"book", "path", "A segment of `name`, which is `libraries/{library}/books/{book}`."}}},
		"/v1/rooms/{room}/desks/{desk}": {"get": {{"room", "path", "A segment of `name`, which is `rooms/{room}/desks/{desk}`."},
			{"desk", "path", "A segment of `name`, which is `rooms/{room}/desks/{desk}`."}}},
		"/v1/shelves/{shelf2}/books/{book}:find": {"get": {{"shelf2", "path", "A segment of `name`, which is `shelves/{shelf2}/books/{book}`."},
			{"book", "path", "A segment of `name`, which is `shelves/{shelf2}/books/{book}`."},
			{"shelf", "query", ""}}},
		"/v1/{book}/shelves/{shelf}/books/{book2}": {"put": {{"book", "path", ""},
			{"shelf", "path", "A segment of `name`, which is `shelves/{shelf}/books/{book2}`."},
			{"book2", "path", "A segment of `name`, which is `shelves/{shelf}/books/{book2}`."}}},
	}
	var first []byte
	for form, routes := range forms {
		data := Build(routes, Options{})
		var doc struct {
			Paths map[string]map[string]struct{ Parameters []param }
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for path, ops := range want {
			for method, params := range ops {
				if got := doc.Paths[path][method].Parameters; !slices.Equal(got, params) {
					t.Errorf("%s: %s %s: parameters\n got %q\nwant %q", form, method, path, got, params)
				}
			}
		}
		if len(doc.Paths) != len(want) {
			var paths []string
			for p := range doc.Paths {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			t.Errorf("%s: paths %q, want %d", form, paths, len(want))
		}
		if first == nil {
			first = data
		} else if string(data) != string(first) {
			t.Errorf("%s: another document than the other forms'", form)
		}
	}
}

// A query parameter of any route of a shape renames the segment for
// every route of the shape: their paths must be the same.
func TestSegmentNameQueryOfLaterRoute(t *testing.T) {
	t.Parallel()
	src := `syntax = "proto3";
package q.v1;
import "google/api/annotations.proto";
service Q {
  rpc Get(GetRequest) returns (GetRequest) {
    option (google.api.http) = {get: "/v1/{name=shelves/*/books/*}"};
  }
  rpc Delete(DeleteRequest) returns (GetRequest) {
    option (google.api.http) = {delete: "/v1/{name=shelves/*/books/*}"};
  }
}
message GetRequest { string name = 1; }
message DeleteRequest { string name = 1; string book = 2; string book2 = 3; }
`
	doc := decode(t, Build(fileRoutes(t, compileProto(t, "q.proto", src), nil), Options{}))
	item := "/paths/~1v1~1shelves~1{shelf}~1books~1{book3}"
	for _, tt := range []struct{ pointer, want string }{
		{item + "/get/parameters/1/name", `"book3"`},
		{item + "/delete/parameters/1/name", `"book3"`},
		{item + "/delete/parameters/2/name", `"book"`},
		{item + "/delete/parameters/3/name", `"book2"`},
	} {
		if got := at(doc, tt.pointer); !jsonEqual(t, got, tt.want) {
			b, _ := json.Marshal(at(doc, "/paths"))
			t.Errorf("%s: got %v, want %s\n%s", tt.pointer, got, tt.want, b)
		}
	}
}
