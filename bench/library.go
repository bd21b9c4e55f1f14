package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// Shelf is the one shelf of the Library, holding ShelfBooks books named
// Shelf/books/001 to Shelf/books/025.
const (
	Shelf      = "shelves/1"
	ShelfBooks = 25
)

// epoch is the first book's publish time; every timestamp the Library
// returns is fixed, so that the answers of all peers can be compared.
var epoch = time.Date(2024, time.March, 1, 9, 30, 0, 0, time.UTC)

// Library is the in-memory implementation of the Library service that
// every peer calls. Its data is deterministic, and writes are checked and
// answered but not kept: every request sees the same shelf, so benchmark
// iterations, and peers, do the same work. It is safe for concurrent use.
type Library struct {
	libraryv1.UnimplementedLibraryServer
	books map[string]*libraryv1.Book
	names []string // in name order
}

// NewLibrary returns the Library with its shelf of books.
func NewLibrary() *Library {
	l := &Library{books: map[string]*libraryv1.Book{}}
	authors := []string{"Ursula K. Le Guin", "Italo Calvino", "Toni Morrison", "Jorge Luis Borges", "Octavia E. Butler"}
	topics := []string{"fiction", "history", "science", "poetry", "travel"}
	for i := 1; i <= ShelfBooks; i++ {
		b := &libraryv1.Book{
			Name:        fmt.Sprintf("%s/books/%03d", Shelf, i),
			Title:       fmt.Sprintf("The Collected Works, Volume %d", i),
			Author:      authors[i%len(authors)],
			PageCount:   int32(120 + 17*i),
			PublishTime: timestamppb.New(epoch.AddDate(0, 0, 7*i)),
			Topics:      []string{topics[i%len(topics)], topics[(i+2)%len(topics)]},
		}
		l.books[b.Name] = b
		l.names = append(l.names, b.Name)
	}
	slices.Sort(l.names)
	return l
}

func (l *Library) GetBook(_ context.Context, req *libraryv1.GetBookRequest) (*libraryv1.Book, error) {
	return l.book(req.GetName())
}

// book returns the named book, or NOT_FOUND.
func (l *Library) book(name string) (*libraryv1.Book, error) {
	b, ok := l.books[name]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "book %q not found", name)
	}
	return b, nil
}

// Page sizes of ListBooks.
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

func (l *Library) ListBooks(_ context.Context, req *libraryv1.ListBooksRequest) (*libraryv1.ListBooksResponse, error) {
	if req.GetParent() != Shelf {
		return nil, status.Errorf(codes.NotFound, "shelf %q not found", req.GetParent())
	}
	size := int(req.GetPageSize())
	switch {
	case size < 0:
		return nil, status.Error(codes.InvalidArgument, "page_size must not be negative")
	case size == 0:
		size = defaultPageSize
	case size > maxPageSize:
		size = maxPageSize
	}
	start := 0
	if t := req.GetPageToken(); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 || n > len(l.names) {
			return nil, status.Errorf(codes.InvalidArgument, "bad page_token %q", t)
		}
		start = n
	}
	end := min(start+size, len(l.names))
	res := &libraryv1.ListBooksResponse{}
	for _, name := range l.names[start:end] {
		res.Books = append(res.Books, l.books[name])
	}
	if end < len(l.names) {
		res.NextPageToken = strconv.Itoa(end)
	}
	return res, nil
}

func (l *Library) SearchBooks(_ context.Context, req *libraryv1.SearchBooksRequest) (*libraryv1.ListBooksResponse, error) {
	if req.GetParent() != Shelf {
		return nil, status.Errorf(codes.NotFound, "shelf %q not found", req.GetParent())
	}
	size := int(req.GetPageSize())
	switch {
	case size < 0:
		return nil, status.Error(codes.InvalidArgument, "page_size must not be negative")
	case size == 0:
		size = defaultPageSize
	}
	res := &libraryv1.ListBooksResponse{}
	for _, name := range l.names {
		if b := l.books[name]; len(res.Books) < size && matches(b, req) {
			res.Books = append(res.Books, b)
		}
	}
	return res, nil
}

// matches reports whether b meets every criterion of req.
func matches(b *libraryv1.Book, req *libraryv1.SearchBooksRequest) bool {
	if a := req.GetAuthor(); a != "" && b.GetAuthor() != a || b.GetPageCount() < req.GetMinPages() {
		return false
	}
	for _, t := range req.GetTopics() {
		if !slices.Contains(b.GetTopics(), t) {
			return false
		}
	}
	after := req.GetPublishedAfter()
	return after == nil || b.GetPublishTime().AsTime().After(after.AsTime())
}

func (l *Library) CreateBook(_ context.Context, req *libraryv1.CreateBookRequest) (*libraryv1.Book, error) {
	if req.GetParent() != Shelf {
		return nil, status.Errorf(codes.NotFound, "shelf %q not found", req.GetParent())
	}
	if req.GetBook() == nil {
		return nil, status.Error(codes.InvalidArgument, "book is required")
	}
	b := proto.CloneOf(req.GetBook())
	b.Name = fmt.Sprintf("%s/books/%03d", Shelf, len(l.names)+1)
	return b, nil
}

// mutableBookFields are the fields of a Book that UpdateBook may change.
var mutableBookFields = []protoreflect.Name{"title", "author", "page_count", "publish_time", "topics"}

func (l *Library) UpdateBook(_ context.Context, req *libraryv1.UpdateBookRequest) (*libraryv1.Book, error) {
	old, err := l.book(req.GetBook().GetName())
	if err != nil {
		return nil, err
	}
	// No mask replaces every mutable field; an empty one (a PATCH of {},
	// whose mask a gateway derives from the body's keys) changes none.
	paths := mutableBookFields
	if req.GetUpdateMask() != nil {
		paths = nil
		for _, p := range req.GetUpdateMask().GetPaths() {
			if !slices.Contains(mutableBookFields, protoreflect.Name(p)) {
				return nil, status.Errorf(codes.InvalidArgument, "update_mask: %q is not a mutable field of Book", p)
			}
			paths = append(paths, protoreflect.Name(p))
		}
	}
	b := proto.CloneOf(old)
	dst, src := b.ProtoReflect(), req.GetBook().ProtoReflect()
	for _, p := range paths {
		fd := dst.Descriptor().Fields().ByName(p)
		if src.Has(fd) {
			dst.Set(fd, src.Get(fd))
		} else {
			dst.Clear(fd)
		}
	}
	return b, nil
}

func (l *Library) DeleteBook(_ context.Context, req *libraryv1.DeleteBookRequest) (*emptypb.Empty, error) {
	if _, err := l.book(req.GetName()); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

func (l *Library) Echo(_ context.Context, req *libraryv1.EchoMessage) (*libraryv1.EchoMessage, error) {
	return req, nil
}

// MaxItems is the largest n ListItems accepts.
const MaxItems = 10_000

func (l *Library) ListItems(_ context.Context, req *libraryv1.ListItemsRequest) (*libraryv1.ListItemsResponse, error) {
	n := int(req.GetN())
	if n < 0 || n > MaxItems {
		return nil, status.Errorf(codes.InvalidArgument, "n must be between 0 and %d", MaxItems)
	}
	return &libraryv1.ListItemsResponse{Items: Items(n), TotalSize: int32(n)}, nil
}

func (l *Library) StreamItems(req *libraryv1.ListItemsRequest, stream grpc.ServerStreamingServer[libraryv1.Item]) error {
	n := int(req.GetN())
	if n < 0 || n > MaxItems {
		return status.Errorf(codes.InvalidArgument, "n must be between 0 and %d", MaxItems)
	}
	for i := range n {
		if err := stream.Send(item(i)); err != nil {
			return err
		}
	}
	return nil
}
