package bench

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

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
	} {
		if got := status.Code(tt.err); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
