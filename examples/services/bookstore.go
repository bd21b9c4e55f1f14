package services

import (
	"context"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	bookstorev1 "github.com/protorest/protorest/examples/bookstore/v1"
)

// storeBooks are the books the book service knows, by name.
var storeBooks = map[string]struct{ title, author string }{
	"dune":                      {"Dune", "Frank Herbert"},
	"neuromancer":               {"Neuromancer", "William Gibson"},
	"the-left-hand-of-darkness": {"The Left Hand of Darkness", "Ursula K. Le Guin"},
}

type bookService struct {
	bookstorev1.UnimplementedBookServiceServer
}

// NewBookService returns the bookstore.v1.BookService service. GetBook knows
// the books "dune", "neuromancer" and "the-left-hand-of-darkness"; other names
// are NOT_FOUND, and an empty name is INVALID_ARGUMENT "Name argument is
// required" with a google.rpc.BadRequest detail naming the field.
func NewBookService() bookstorev1.BookServiceServer {
	return bookService{}
}

func (bookService) GetBook(_ context.Context, req *bookstorev1.GetBookRequest) (*bookstorev1.Book, error) {
	name := req.GetName()
	if name == "" {
		return nil, fieldViolation(codes.InvalidArgument, "name", "Name argument is required")
	}
	b, ok := storeBooks[name]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Book %q not found", name)
	}
	return &bookstorev1.Book{Name: name, Title: b.title, Author: b.author}, nil
}

// fieldViolation is a status error with message description and a
// google.rpc.BadRequest detail holding one field violation.
func fieldViolation(code codes.Code, field, description string) error {
	st := status.New(code, description)
	withDetails, err := st.WithDetails(&errdetails.BadRequest{
		FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: field, Description: description}},
	})
	if err != nil {
		return st.Err() // the detail cannot be marshaled; the status alone still says it
	}
	return withDetails.Err()
}
