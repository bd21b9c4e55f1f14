package bench

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

func TestLibraryListBooksPages(t *testing.T) {
	lib := NewLibrary()
	var names []string
	token := ""
	for range ShelfBooks {
		res, err := lib.ListBooks(t.Context(), &libraryv1.ListBooksRequest{Parent: Shelf, PageSize: 10, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range res.GetBooks() {
			names = append(names, b.GetName())
		}
		if token = res.GetNextPageToken(); token == "" {
			break
		}
	}
	if len(names) != ShelfBooks || names[0] != "shelves/1/books/001" || names[ShelfBooks-1] != "shelves/1/books/025" {
		t.Errorf("paging gave %d books, %q", len(names), names)
	}
}

// TestLibrarySearchBooks: the SearchBooks operation's criteria each
// narrow the shelf, and all of them leave two books.
func TestLibrarySearchBooks(t *testing.T) {
	lib := NewLibrary()
	for _, tt := range []struct {
		req  *libraryv1.SearchBooksRequest
		want []string
	}{
		{&libraryv1.SearchBooksRequest{Parent: Shelf, Author: "Toni Morrison"}, []string{"002", "007", "012", "017", "022"}},
		{&libraryv1.SearchBooksRequest{Parent: Shelf, Author: "Toni Morrison", MinPages: 200}, []string{"007", "012", "017", "022"}},
		{&libraryv1.SearchBooksRequest{Parent: Shelf, Topics: []string{"science", "travel"}, PageSize: 3}, []string{"002", "007", "012"}},
		{&libraryv1.SearchBooksRequest{Parent: Shelf, Topics: []string{"science", "poetry"}}, nil},
		{&libraryv1.SearchBooksRequest{Parent: Shelf, PublishedAfter: timestamppb.New(epoch.AddDate(0, 0, 7*24))}, []string{"025"}},
	} {
		res, err := lib.SearchBooks(t.Context(), tt.req)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range res.GetBooks() {
			got = append(got, strings.TrimPrefix(b.GetName(), Shelf+"/books/"))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v: %q, want %q", tt.req, got, tt.want)
		}
	}
	op := Ops[slices.IndexFunc(Ops, func(op Op) bool { return op.Name == "SearchBooks" })]
	direct, err := NewGRPCDirect(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	res, err := op.GRPC(t.Context(), direct.Client)
	if err != nil {
		t.Fatal(err)
	}
	if books := res.(*libraryv1.ListBooksResponse).GetBooks(); len(books) != 2 || books[0].GetName() != "shelves/1/books/012" || books[1].GetName() != "shelves/1/books/017" {
		t.Errorf("the SearchBooks operation finds %v, want books 012 and 017", books)
	}
}

func TestLibraryUpdateBook(t *testing.T) {
	lib := NewLibrary()
	old, err := lib.GetBook(t.Context(), &libraryv1.GetBookRequest{Name: "shelves/1/books/002"})
	if err != nil {
		t.Fatal(err)
	}
	change := &libraryv1.Book{Name: old.GetName(), Title: "New", Author: "Someone"}
	got, err := lib.UpdateBook(t.Context(), &libraryv1.UpdateBookRequest{Book: change, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"title"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetTitle() != "New" || got.GetAuthor() != old.GetAuthor() || got.GetPageCount() != old.GetPageCount() {
		t.Errorf("masked update gave %v", got)
	}
	got, err = lib.UpdateBook(t.Context(), &libraryv1.UpdateBookRequest{Book: change})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetTitle() != "New" || got.GetAuthor() != "Someone" || got.GetPageCount() != 0 || got.GetPublishTime() != nil {
		t.Errorf("update without a mask gave %v, want every mutable field replaced", got)
	}
	if again, _ := lib.GetBook(t.Context(), &libraryv1.GetBookRequest{Name: old.GetName()}); again.GetTitle() != old.GetTitle() {
		t.Errorf("the update was kept: %v", again)
	}
	_, err = lib.UpdateBook(t.Context(), &libraryv1.UpdateBookRequest{Book: change, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"name"}}})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("mask naming name: %v, want InvalidArgument", err)
	}
}

func TestLibraryErrors(t *testing.T) {
	lib := NewLibrary()
	ctx := t.Context()
	for _, tt := range []struct {
		name string
		err  error
		want codes.Code
	}{
		{"GetBook unknown", second(lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: "shelves/1/books/999"})), codes.NotFound},
		{"DeleteBook unknown", second(lib.DeleteBook(ctx, &libraryv1.DeleteBookRequest{Name: "shelves/2/books/001"})), codes.NotFound},
		{"ListBooks unknown shelf", second(lib.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: "shelves/2"})), codes.NotFound},
		{"ListBooks bad token", second(lib.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: Shelf, PageToken: "x"})), codes.InvalidArgument},
		{"CreateBook no book", second(lib.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: Shelf})), codes.InvalidArgument},
		{"ListItems too many", second(lib.ListItems(ctx, &libraryv1.ListItemsRequest{N: MaxItems + 1})), codes.InvalidArgument},
		{"SearchBooks unknown shelf", second(lib.SearchBooks(ctx, &libraryv1.SearchBooksRequest{Parent: "shelves/2"})), codes.NotFound},
		{"SearchBooks negative page size", second(lib.SearchBooks(ctx, &libraryv1.SearchBooksRequest{Parent: Shelf, PageSize: -1})), codes.InvalidArgument},
		{"StreamItems too many", lib.StreamItems(&libraryv1.ListItemsRequest{N: MaxItems + 1}, nil), codes.InvalidArgument},
	} {
		if got := status.Code(tt.err); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
