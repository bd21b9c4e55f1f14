package bench

import (
	"context"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// An Op is one operation of the benchmarks: an HTTP request, and the gRPC
// call it stands for.
type Op struct {
	Name string
	HTTP Request
	// GRPC makes the call with the request the HTTP one binds to.
	GRPC func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error)
	// NewResponse returns an empty response message.
	NewResponse func() proto.Message
}

// updatedBook is the body of the UpdateBook requests.
const updatedBook = `{"title":"The Collected Works, Revised","pageCount":321}`

// searchQuery is the query of the SearchBooks operation.
const searchQuery = "author=Toni%20Morrison&min_pages=200&topics=science&published_after=2024-05-01T00:00:00Z&page_size=2"

// Ops are the operations every peer is measured and compared on.
var Ops = append([]Op{
	{
		Name: "GetBook",
		HTTP: Request{Method: "GET", Target: "/v1/shelves/1/books/007"},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.GetBook(ctx, &libraryv1.GetBookRequest{Name: "shelves/1/books/007"})
		},
		NewResponse: func() proto.Message { return &libraryv1.Book{} },
	},
	{
		Name: "ListBooks",
		HTTP: Request{Method: "GET", Target: "/v1/shelves/1/books?page_size=10"},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: Shelf, PageSize: 10})
		},
		NewResponse: func() proto.Message { return &libraryv1.ListBooksResponse{} },
	},
	{
		// Five query parameters of four kinds: a string, numbers, a
		// repeated string and a Timestamp. Books 012 and 017 match.
		Name: "SearchBooks",
		HTTP: Request{Method: "GET", Target: "/v1/shelves/1/books:search?" + searchQuery},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.SearchBooks(ctx, &libraryv1.SearchBooksRequest{
				Parent: Shelf, Author: "Toni Morrison", MinPages: 200, Topics: []string{"science"},
				PublishedAfter: timestamppb.New(time.Date(2024, time.May, 1, 0, 0, 0, 0, time.UTC)), PageSize: 2,
			})
		},
		NewResponse: func() proto.Message { return &libraryv1.ListBooksResponse{} },
	},
	{
		// Without publish_time and topics: the answer has an unset
		// message field (null) and an empty list ([]).
		Name: "CreateBook",
		HTTP: Request{Method: "POST", Target: "/v1/shelves/1/books", Body: `{"title":"A New Book","author":"Ada Palmer","pageCount":432}`},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: Shelf, Book: &libraryv1.Book{
				Title: "A New Book", Author: "Ada Palmer", PageCount: 432,
			}})
		},
		NewResponse: func() proto.Message { return &libraryv1.Book{} },
	},
	{
		// No update_mask: both gateways derive it from the body's keys
		// (title, page_count), and so does the floor.
		Name: "UpdateBook",
		HTTP: Request{Method: "PATCH", Target: "/v1/shelves/1/books/003", Body: updatedBook},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.UpdateBook(ctx, &libraryv1.UpdateBookRequest{
				Book:       &libraryv1.Book{Name: "shelves/1/books/003", Title: "The Collected Works, Revised", PageCount: 321},
				UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"page_count", "title"}},
			})
		},
		NewResponse: func() proto.Message { return &libraryv1.Book{} },
	},
	{
		// The mask names one of the two fields of the body.
		Name: "UpdateBook-mask",
		HTTP: Request{Method: "PATCH", Target: "/v1/shelves/1/books/003?update_mask=page_count", Body: updatedBook},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.UpdateBook(ctx, &libraryv1.UpdateBookRequest{
				Book:       &libraryv1.Book{Name: "shelves/1/books/003", Title: "The Collected Works, Revised", PageCount: 321},
				UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"page_count"}},
			})
		},
		NewResponse: func() proto.Message { return &libraryv1.Book{} },
	},
	{
		Name: "DeleteBook",
		HTTP: Request{Method: "DELETE", Target: "/v1/shelves/1/books/011"},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.DeleteBook(ctx, &libraryv1.DeleteBookRequest{Name: "shelves/1/books/011"})
		},
		NewResponse: func() proto.Message { return &emptypb.Empty{} },
	},
	{
		Name: "Echo",
		HTTP: Request{Method: "POST", Target: "/v1/echo", Body: `{"message":"hello, world","count":3,"id":"9007199254740993","urgent":true,"tags":["a","b","c"]}`},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.Echo(ctx, &libraryv1.EchoMessage{Message: "hello, world", Count: 3, Id: 9007199254740993, Urgent: true, Tags: []string{"a", "b", "c"}})
		},
		NewResponse: func() proto.Message { return &libraryv1.EchoMessage{} },
	},
}, listItemsOps()...)

// ItemCounts are the ns of the ListItems operations and of the codec
// benchmarks.
var ItemCounts = []int{1, 50, 500}

// listItemsOps are ListItems-N for every N of ItemCounts.
func listItemsOps() []Op {
	var ops []Op
	for _, n := range ItemCounts {
		ops = append(ops, listItemsOp(n))
	}
	return ops
}

// listItemsOp is ListItems-n.
func listItemsOp(n int) Op {
	return Op{
		Name: "ListItems-" + strconv.Itoa(n),
		HTTP: Request{Method: "GET", Target: "/v1/items?n=" + strconv.Itoa(n)},
		GRPC: func(ctx context.Context, c libraryv1.LibraryClient) (proto.Message, error) {
			return c.ListItems(ctx, &libraryv1.ListItemsRequest{N: int32(n)})
		},
		NewResponse: func() proto.Message { return &libraryv1.ListItemsResponse{} },
	}
}
