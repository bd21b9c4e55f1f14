package services_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
)

func library(t *testing.T) libraryv1.LibraryServiceClient {
	return libraryv1.NewLibraryServiceClient(serve(t))
}

func names[M interface{ GetName() string }](ms []M) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.GetName())
	}
	return out
}

func wantCode(t *testing.T, what string, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Errorf("%s: error = %v, want %v", what, err, code)
	}
}

func TestLibrarySeedAndHeader(t *testing.T) {
	c := library(t)
	var hdr metadata.MD
	res, err := c.ListShelves(t.Context(), &libraryv1.ListShelvesRequest{}, grpc.Header(&hdr))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(res.GetShelves())); got != "[shelves/fiction shelves/poetry]" {
		t.Errorf("shelves = %s", got)
	}
	if res.GetNextPageToken() != "" {
		t.Errorf("next_page_token = %q, want none", res.GetNextPageToken())
	}
	if ids := hdr.Get(services.RequestIDHeader); len(ids) != 1 || ids[0] == "" {
		t.Errorf("%s = %q, want one ID", services.RequestIDHeader, ids)
	}
	b, err := c.GetBook(t.Context(), &libraryv1.GetBookRequest{Name: "shelves/fiction/books/dune"})
	if err != nil || b.GetTitle() != "Dune" || b.GetGenre() != libraryv1.Book_SCIENCE_FICTION || b.GetCreateTime() == nil {
		t.Errorf("GetBook(dune) = %v, %v", b, err)
	}
}

func TestLibraryShelves(t *testing.T) {
	c := library(t)
	ctx := t.Context()
	s, err := c.CreateShelf(ctx, &libraryv1.CreateShelfRequest{Shelf: &libraryv1.Shelf{Name: "ignored", Theme: "History"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.GetName() == "ignored" || s.GetTheme() != "History" || s.GetCreateTime() == nil {
		t.Errorf("CreateShelf = %v", s)
	}
	got, err := c.GetShelf(ctx, &libraryv1.GetShelfRequest{Name: s.GetName()})
	if err != nil || !proto.Equal(got, s) {
		t.Errorf("GetShelf = %v, %v; want %v", got, err, s)
	}
	_, err = c.CreateShelf(ctx, &libraryv1.CreateShelfRequest{})
	wantCode(t, "CreateShelf without shelf", err, codes.InvalidArgument)

	_, err = c.GetShelf(ctx, &libraryv1.GetShelfRequest{Name: "shelves/nope"})
	wantCode(t, "GetShelf(nope)", err, codes.NotFound)
	_, err = c.GetShelf(ctx, &libraryv1.GetShelfRequest{Name: "racks/1"})
	wantCode(t, "GetShelf(racks/1)", err, codes.InvalidArgument)
	if f := badField(err); f != "name" {
		t.Errorf("GetShelf(racks/1) violation field = %q, want name", f)
	}

	_, err = c.DeleteShelf(ctx, &libraryv1.DeleteShelfRequest{Name: "shelves/fiction"})
	wantCode(t, "DeleteShelf(non-empty)", err, codes.FailedPrecondition)
	if _, err := c.DeleteShelf(ctx, &libraryv1.DeleteShelfRequest{Name: "shelves/fiction", Force: true}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetBook(ctx, &libraryv1.GetBookRequest{Name: "shelves/fiction/books/dune"})
	wantCode(t, "GetBook after forced shelf delete", err, codes.NotFound)
	if _, err := c.DeleteShelf(ctx, &libraryv1.DeleteShelfRequest{Name: s.GetName()}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteShelf(ctx, &libraryv1.DeleteShelfRequest{Name: s.GetName()})
	wantCode(t, "DeleteShelf twice", err, codes.NotFound)
}

func TestLibraryPaging(t *testing.T) {
	c := library(t)
	ctx := t.Context()
	const parent = "shelves/poetry"
	for i := range 24 {
		_, err := c.CreateBook(ctx, &libraryv1.CreateBookRequest{
			Parent: parent, BookId: proto.String(fmt.Sprintf("poem-%02d", i)),
			Book: &libraryv1.Book{Title: fmt.Sprint("Poem ", i), Read: i%2 == 0},
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// 25 books in pages of the default size: 10, 10, 5.
	var all []string
	token := ""
	var sizes []int
	for {
		res, err := c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: parent, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(res.GetBooks()))
		all = append(all, names(res.GetBooks())...)
		if token = res.GetNextPageToken(); token == "" {
			break
		}
	}
	if fmt.Sprint(sizes) != "[10 10 5]" {
		t.Errorf("page sizes = %v, want [10 10 5]", sizes)
	}
	if len(all) != 25 || all[0] != parent+"/books/leaves-of-grass" || all[24] != parent+"/books/poem-23" {
		t.Errorf("books = %v", all)
	}

	// page_size: explicit, capped at 100, negative rejected.
	res, err := c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: parent, PageSize: 3})
	if err != nil || len(res.GetBooks()) != 3 || res.GetNextPageToken() == "" {
		t.Errorf("page_size 3: %d books, next %q, %v", len(res.GetBooks()), res.GetNextPageToken(), err)
	}
	res, err = c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: parent, PageSize: 1000})
	if err != nil || len(res.GetBooks()) != 25 || res.GetNextPageToken() != "" {
		t.Errorf("page_size 1000: %d books, next %q, %v", len(res.GetBooks()), res.GetNextPageToken(), err)
	}
	_, err = c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: parent, PageSize: -1})
	wantCode(t, "page_size -1", err, codes.InvalidArgument)

	// Filter, with paging.
	filter := `read = true AND title != ""`
	_, err = c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: parent, Filter: filter})
	wantCode(t, "filter "+filter, err, codes.InvalidArgument)
	filter = `read = true AND author = ""`
	res, err = c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: parent, Filter: filter, PageSize: 10})
	if err != nil || len(res.GetBooks()) != 10 || res.GetNextPageToken() == "" {
		t.Fatalf("filtered first page: %d books, next %q, %v", len(res.GetBooks()), res.GetNextPageToken(), err)
	}
	next := res.GetNextPageToken()
	res, err = c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: parent, Filter: filter, PageSize: 10, PageToken: next})
	if err != nil || len(res.GetBooks()) != 2 || res.GetNextPageToken() != "" {
		t.Errorf("filtered second page: %v, %v", names(res.GetBooks()), err)
	}

	// A token of one list is refused by another, and garbage is refused.
	for _, tok := range []string{next, "!!!", base64.RawURLEncoding.EncodeToString([]byte("-1:0")), "MTA"} {
		_, err = c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: parent, PageToken: tok})
		wantCode(t, "page_token "+tok, err, codes.InvalidArgument)
		if f := badField(err); f != "page_token" {
			t.Errorf("page_token %s: violation field = %q", tok, f)
		}
	}
	_, err = c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: "shelves/nope"})
	wantCode(t, "ListBooks(nope)", err, codes.NotFound)
}

func TestLibraryFilter(t *testing.T) {
	c := library(t)
	for _, tc := range []struct {
		filter string
		want   string
		code   codes.Code
	}{
		{``, "[dune the-left-hand-of-darkness middlemarch]", codes.OK},
		{`author = "Frank Herbert"`, "[dune]", codes.OK},
		{`genre=SCIENCE_FICTION AND read=false`, "[the-left-hand-of-darkness]", codes.OK},
		{`labels.signed = no`, "[middlemarch]", codes.OK},
		{`title = "The Left Hand of Darkness"`, "[the-left-hand-of-darkness]", codes.OK},
		{`title = "A \"quoted\" title"`, "[]", codes.OK},
		{`genre = SPACE_OPERA`, "", codes.InvalidArgument},
		{`read = maybe`, "", codes.InvalidArgument},
		{`pages = 3`, "", codes.InvalidArgument},
		{`author = "unterminated`, "", codes.InvalidArgument},
		{`author = x OR read = true`, "", codes.InvalidArgument},
		{`author =`, "", codes.InvalidArgument},
	} {
		res, err := c.ListBooks(t.Context(), &libraryv1.ListBooksRequest{Parent: "shelves/fiction", Filter: tc.filter})
		if status.Code(err) != tc.code {
			t.Errorf("filter %s: error %v, want %v", tc.filter, err, tc.code)
			continue
		}
		var ids []string
		for _, b := range res.GetBooks() {
			ids = append(ids, b.GetName()[len("shelves/fiction/books/"):])
		}
		if got := fmt.Sprint(ids); err == nil && got != tc.want {
			t.Errorf("filter %s: %s, want %s", tc.filter, got, tc.want)
		}
	}
}

func TestLibraryBooks(t *testing.T) {
	c := library(t)
	ctx := t.Context()

	b, err := c.CreateBook(ctx, &libraryv1.CreateBookRequest{
		Parent: "shelves/fiction",
		Book:   &libraryv1.Book{Name: "ignored", Title: "Kindred", Author: "Octavia E. Butler", PageCount: 264, Labels: map[string]string{"a": "1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.GetName() == "ignored" || b.GetTitle() != "Kindred" || b.GetCreateTime() == nil || !proto.Equal(b.GetCreateTime(), b.GetUpdateTime()) {
		t.Errorf("CreateBook = %v", b)
	}
	_, err = c.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: "shelves/fiction", BookId: proto.String("dune"), Book: &libraryv1.Book{}})
	wantCode(t, "CreateBook(dune) again", err, codes.AlreadyExists)
	_, err = c.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: "shelves/fiction", BookId: proto.String("Bad ID"), Book: &libraryv1.Book{}})
	wantCode(t, "CreateBook(bad id)", err, codes.InvalidArgument)
	_, err = c.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: "shelves/nope", Book: &libraryv1.Book{}})
	wantCode(t, "CreateBook(no shelf)", err, codes.NotFound)
	_, err = c.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: "shelves/fiction"})
	wantCode(t, "CreateBook(no book)", err, codes.InvalidArgument)

	// Update with a mask touches only the named fields.
	u, err := c.UpdateBook(ctx, &libraryv1.UpdateBookRequest{
		Book:       &libraryv1.Book{Name: b.GetName(), Title: "Kindred (2nd ed.)", Author: "someone else", Read: true},
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"title", "read"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.GetTitle() != "Kindred (2nd ed.)" || !u.GetRead() || u.GetAuthor() != "Octavia E. Butler" || u.GetPageCount() != 264 || u.GetLabels()["a"] != "1" {
		t.Errorf("masked update = %v", u)
	}
	if !u.GetUpdateTime().AsTime().After(u.GetCreateTime().AsTime()) && !proto.Equal(u.GetUpdateTime(), u.GetCreateTime()) {
		t.Errorf("update_time %v before create_time %v", u.GetUpdateTime(), u.GetCreateTime())
	}
	// With no mask every mutable field is replaced, output-only fields kept.
	u, err = c.UpdateBook(ctx, &libraryv1.UpdateBookRequest{Book: &libraryv1.Book{Name: b.GetName(), Title: "Only title"}})
	if err != nil {
		t.Fatal(err)
	}
	if u.GetTitle() != "Only title" || u.GetAuthor() != "" || u.GetRead() || u.GetLabels() != nil || !proto.Equal(u.GetCreateTime(), b.GetCreateTime()) {
		t.Errorf("full update = %v", u)
	}
	for _, paths := range [][]string{{"name"}, {"create_time"}, {"nope"}, {"*", "title"}} {
		_, err = c.UpdateBook(ctx, &libraryv1.UpdateBookRequest{Book: &libraryv1.Book{Name: b.GetName()}, UpdateMask: &fieldmaskpb.FieldMask{Paths: paths}})
		wantCode(t, fmt.Sprint("UpdateBook mask ", paths), err, codes.InvalidArgument)
		if f := badField(err); f != "update_mask" {
			t.Errorf("UpdateBook mask %v: violation field = %q", paths, f)
		}
	}
	_, err = c.UpdateBook(ctx, &libraryv1.UpdateBookRequest{Book: &libraryv1.Book{Name: "shelves/fiction/books/nope"}})
	wantCode(t, "UpdateBook(nope)", err, codes.NotFound)

	// Move, then move back into a collision.
	m, err := c.MoveBook(ctx, &libraryv1.MoveBookRequest{Name: b.GetName(), OtherShelfName: "shelves/poetry"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "shelves/poetry/books/" + b.GetName()[len("shelves/fiction/books/"):]; m.GetName() != want || m.GetTitle() != "Only title" {
		t.Errorf("MoveBook = %v, want name %s", m, want)
	}
	_, err = c.GetBook(ctx, &libraryv1.GetBookRequest{Name: b.GetName()})
	wantCode(t, "GetBook(old name)", err, codes.NotFound)
	if _, err := c.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: "shelves/poetry", BookId: proto.String("dune"), Book: &libraryv1.Book{}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.MoveBook(ctx, &libraryv1.MoveBookRequest{Name: "shelves/fiction/books/dune", OtherShelfName: "shelves/poetry"})
	wantCode(t, "MoveBook into a taken ID", err, codes.AlreadyExists)
	_, err = c.MoveBook(ctx, &libraryv1.MoveBookRequest{Name: "shelves/fiction/books/dune", OtherShelfName: "shelves/nope"})
	wantCode(t, "MoveBook to no shelf", err, codes.NotFound)
	same, err := c.MoveBook(ctx, &libraryv1.MoveBookRequest{Name: "shelves/fiction/books/dune", OtherShelfName: "shelves/fiction"})
	if err != nil || same.GetName() != "shelves/fiction/books/dune" {
		t.Errorf("MoveBook to its own shelf = %v, %v", same, err)
	}

	if _, err := c.DeleteBook(ctx, &libraryv1.DeleteBookRequest{Name: m.GetName()}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteBook(ctx, &libraryv1.DeleteBookRequest{Name: m.GetName()})
	wantCode(t, "DeleteBook twice", err, codes.NotFound)
	_, err = c.GetBook(ctx, &libraryv1.GetBookRequest{Name: "shelves/fiction/books/a/b"})
	wantCode(t, "GetBook(bad name)", err, codes.InvalidArgument)
}

// The library returns copies: changing a returned message, or a request
// message after the call, changes nothing stored.
func TestLibraryCopies(t *testing.T) {
	lib := services.NewLibrary()
	ctx := context.Background() // not a server call: SetHeader has nowhere to go, and must not fail the call
	req := &libraryv1.CreateBookRequest{Parent: "shelves/fiction", BookId: proto.String("copy"), Book: &libraryv1.Book{Title: "T", Labels: map[string]string{"k": "v"}}}
	b, err := lib.CreateBook(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Book.Title = "changed"
	req.Book.Labels["k"] = "changed"
	b.Title = "changed"
	got, err := lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: "shelves/fiction/books/copy"})
	if err != nil || got.GetTitle() != "T" || got.GetLabels()["k"] != "v" {
		t.Errorf("stored book = %v, %v", got, err)
	}
}

// Concurrent calls are safe (run with -race).
func TestLibraryConcurrent(t *testing.T) {
	c := library(t)
	ctx := t.Context()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				id := fmt.Sprintf("c-%d-%d", i, j)
				if _, err := c.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: "shelves/poetry", BookId: &id, Book: &libraryv1.Book{Title: id}}); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: "shelves/poetry", PageSize: 5}); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.UpdateBook(ctx, &libraryv1.UpdateBookRequest{Book: &libraryv1.Book{Name: "shelves/poetry/books/" + id, Read: true}, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"read"}}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	res, err := c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: "shelves/poetry", PageSize: 1000, Filter: "read = true"})
	if err != nil || len(res.GetBooks()) != 100 {
		t.Errorf("read books: %d, %v; want 100 (capped page)", len(res.GetBooks()), err)
	}
}
