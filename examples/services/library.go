package services

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	libraryv1 "github.com/protorest/protorest/examples/library/v1"
)

// RequestIDHeader is the response header (gRPC metadata) in which the
// library returns an ID for every call.
const RequestIDHeader = "x-library-request-id"

const (
	defaultPageSize = 10
	maxPageSize     = 100
)

// library is an in-memory LibraryService. Everything it stores is a copy of
// what it was given, and everything it returns is a copy of what it stores,
// so that callers never share messages with it.
type library struct {
	libraryv1.UnimplementedLibraryServiceServer

	mu      sync.Mutex
	seq     int64                  // last sequence number given out
	shelves map[string]*shelfEntry // by name
	books   map[string]*bookEntry  // by name
	now     func() *timestamppb.Timestamp
}

type shelfEntry struct {
	seq   int64 // listing order: creation order
	shelf *libraryv1.Shelf
}

type bookEntry struct {
	seq  int64
	book *libraryv1.Book
}

// NewLibrary returns an in-memory library.v1.LibraryService holding two
// shelves, "shelves/fiction" and "shelves/poetry", with a few books. Lists are
// in creation order, paged with opaque page tokens; every call sets the
// x-library-request-id response header.
func NewLibrary() libraryv1.LibraryServiceServer {
	l := &library{
		shelves: map[string]*shelfEntry{},
		books:   map[string]*bookEntry{},
		now:     func() *timestamppb.Timestamp { return timestamppb.New(time.Now()) },
	}
	seeded := timestamppb.New(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	for _, s := range []*libraryv1.Shelf{
		{Name: "shelves/fiction", Theme: "Fiction"},
		{Name: "shelves/poetry", Theme: "Poetry"},
	} {
		s.CreateTime = seeded
		l.addShelf(s)
	}
	for _, b := range []*libraryv1.Book{
		{Name: "shelves/fiction/books/dune", Title: "Dune", Author: "Frank Herbert", PageCount: 412, Read: true, Genre: libraryv1.Book_SCIENCE_FICTION},
		{Name: "shelves/fiction/books/the-left-hand-of-darkness", Title: "The Left Hand of Darkness", Author: "Ursula K. Le Guin", PageCount: 304, Genre: libraryv1.Book_SCIENCE_FICTION},
		{Name: "shelves/fiction/books/middlemarch", Title: "Middlemarch", Author: "George Eliot", PageCount: 880, Genre: libraryv1.Book_FICTION, Labels: map[string]string{"signed": "no"}},
		{Name: "shelves/poetry/books/leaves-of-grass", Title: "Leaves of Grass", Author: "Walt Whitman", PageCount: 95, Genre: libraryv1.Book_POETRY, Labels: map[string]string{"edition": "1855"}},
	} {
		b.CreateTime, b.UpdateTime = seeded, seeded
		l.addBook(b)
	}
	return l
}

func (l *library) addShelf(s *libraryv1.Shelf) {
	l.seq++
	l.shelves[s.GetName()] = &shelfEntry{seq: l.seq, shelf: s}
}

func (l *library) addBook(b *libraryv1.Book) {
	l.seq++
	l.books[b.GetName()] = &bookEntry{seq: l.seq, book: b}
}

// begin sets the request ID header and locks the library; the caller
// unlocks it.
func (l *library) begin(ctx context.Context) {
	// SetHeader fails only when ctx is not a server call's (a direct call in
	// a test): then there is nobody to send the header to.
	_ = grpc.SetHeader(ctx, metadata.Pairs(RequestIDHeader, rand.Text()))
	l.mu.Lock()
}

func (l *library) CreateShelf(ctx context.Context, req *libraryv1.CreateShelfRequest) (*libraryv1.Shelf, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	if req.GetShelf() == nil {
		return nil, fieldViolation(codes.InvalidArgument, "shelf", "shelf is required")
	}
	s := &libraryv1.Shelf{
		Name:       l.newName("shelves/", "shelf-", func(n string) bool { return l.shelves[n] != nil }),
		Theme:      req.GetShelf().GetTheme(),
		CreateTime: l.now(),
	}
	l.addShelf(s)
	return proto.CloneOf(s), nil
}

func (l *library) GetShelf(ctx context.Context, req *libraryv1.GetShelfRequest) (*libraryv1.Shelf, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	s, err := l.shelf("name", req.GetName())
	if err != nil {
		return nil, err
	}
	return proto.CloneOf(s.shelf), nil
}

func (l *library) ListShelves(ctx context.Context, req *libraryv1.ListShelvesRequest) (*libraryv1.ListShelvesResponse, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	all := slices.SortedFunc(maps.Values(l.shelves), func(a, b *shelfEntry) int { return cmp.Compare(a.seq, b.seq) })
	start, end, next, err := page(len(all), req.GetPageSize(), req.GetPageToken(), "shelves")
	if err != nil {
		return nil, err
	}
	res := &libraryv1.ListShelvesResponse{NextPageToken: next}
	for _, s := range all[start:end] {
		res.Shelves = append(res.Shelves, proto.CloneOf(s.shelf))
	}
	return res, nil
}

func (l *library) DeleteShelf(ctx context.Context, req *libraryv1.DeleteShelfRequest) (*emptypb.Empty, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	s, err := l.shelf("name", req.GetName())
	if err != nil {
		return nil, err
	}
	var books []string
	for name, b := range l.books {
		if bookParent(b.book) == s.shelf.GetName() {
			books = append(books, name)
		}
	}
	if len(books) > 0 && !req.GetForce() {
		return nil, status.Errorf(codes.FailedPrecondition, "shelf %q holds %d book(s); delete them first or set force", req.GetName(), len(books))
	}
	for _, name := range books {
		delete(l.books, name)
	}
	delete(l.shelves, s.shelf.GetName())
	return &emptypb.Empty{}, nil
}

func (l *library) CreateBook(ctx context.Context, req *libraryv1.CreateBookRequest) (*libraryv1.Book, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	if req.GetBook() == nil {
		return nil, fieldViolation(codes.InvalidArgument, "book", "book is required")
	}
	if req.BookId != nil && !validID(req.GetBookId()) {
		return nil, fieldViolation(codes.InvalidArgument, "book_id",
			fmt.Sprintf("book_id %q must be 1 to 63 lower-case letters, digits and hyphens, starting with a letter", req.GetBookId()))
	}
	s, err := l.shelf("parent", req.GetParent())
	if err != nil {
		return nil, err
	}
	prefix := s.shelf.GetName() + "/books/"
	var name string
	if req.BookId != nil {
		name = prefix + req.GetBookId()
		if l.books[name] != nil {
			return nil, status.Errorf(codes.AlreadyExists, "book %q already exists", name)
		}
	} else {
		name = l.newName(prefix, "book-", func(n string) bool { return l.books[n] != nil })
	}
	b := proto.CloneOf(req.GetBook())
	b.Name = name
	b.CreateTime = l.now()
	b.UpdateTime = b.CreateTime
	l.addBook(b)
	return proto.CloneOf(b), nil
}

func (l *library) GetBook(ctx context.Context, req *libraryv1.GetBookRequest) (*libraryv1.Book, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	b, err := l.book("name", req.GetName())
	if err != nil {
		return nil, err
	}
	return proto.CloneOf(b.book), nil
}

func (l *library) ListBooks(ctx context.Context, req *libraryv1.ListBooksRequest) (*libraryv1.ListBooksResponse, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	match, err := parseFilter(req.GetFilter())
	if err != nil {
		return nil, fieldViolation(codes.InvalidArgument, "filter", err.Error())
	}
	s, err := l.shelf("parent", req.GetParent())
	if err != nil {
		return nil, err
	}
	var all []*bookEntry
	for _, b := range l.books {
		if bookParent(b.book) == s.shelf.GetName() && match(b.book) {
			all = append(all, b)
		}
	}
	slices.SortFunc(all, func(a, b *bookEntry) int { return cmp.Compare(a.seq, b.seq) })
	start, end, next, err := page(len(all), req.GetPageSize(), req.GetPageToken(), "books\x00"+req.GetParent()+"\x00"+req.GetFilter())
	if err != nil {
		return nil, err
	}
	res := &libraryv1.ListBooksResponse{NextPageToken: next}
	for _, b := range all[start:end] {
		res.Books = append(res.Books, proto.CloneOf(b.book))
	}
	return res, nil
}

// mutableBookFields are the paths an update mask may name.
var mutableBookFields = map[string]func(dst, src *libraryv1.Book){
	"title":      func(dst, src *libraryv1.Book) { dst.Title = src.GetTitle() },
	"author":     func(dst, src *libraryv1.Book) { dst.Author = src.GetAuthor() },
	"page_count": func(dst, src *libraryv1.Book) { dst.PageCount = src.GetPageCount() },
	"read":       func(dst, src *libraryv1.Book) { dst.Read = src.GetRead() },
	"genre":      func(dst, src *libraryv1.Book) { dst.Genre = src.GetGenre() },
	"labels":     func(dst, src *libraryv1.Book) { dst.Labels = maps.Clone(src.GetLabels()) },
}

func (l *library) UpdateBook(ctx context.Context, req *libraryv1.UpdateBookRequest) (*libraryv1.Book, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	if req.GetBook() == nil {
		return nil, fieldViolation(codes.InvalidArgument, "book", "book is required")
	}
	// No mask replaces every mutable field; an empty one (a PATCH of {},
	// whose mask the gateway derives from the body's keys) changes none.
	paths := req.GetUpdateMask().GetPaths()
	if req.GetUpdateMask() == nil || slices.Equal(paths, []string{"*"}) {
		paths = slices.Sorted(maps.Keys(mutableBookFields))
	}
	for _, p := range paths {
		if mutableBookFields[p] == nil {
			return nil, fieldViolation(codes.InvalidArgument, "update_mask",
				fmt.Sprintf("update_mask: %q is not a field that can be updated (title, author, page_count, read, genre, labels)", p))
		}
	}
	b, err := l.book("book.name", req.GetBook().GetName())
	if err != nil {
		return nil, err
	}
	updated := proto.CloneOf(b.book)
	for _, p := range paths {
		mutableBookFields[p](updated, req.GetBook())
	}
	updated.UpdateTime = l.now()
	b.book = updated
	return proto.CloneOf(updated), nil
}

func (l *library) DeleteBook(ctx context.Context, req *libraryv1.DeleteBookRequest) (*emptypb.Empty, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	b, err := l.book("name", req.GetName())
	if err != nil {
		return nil, err
	}
	delete(l.books, b.book.GetName())
	return &emptypb.Empty{}, nil
}

func (l *library) MoveBook(ctx context.Context, req *libraryv1.MoveBookRequest) (*libraryv1.Book, error) {
	l.begin(ctx)
	defer l.mu.Unlock()
	b, err := l.book("name", req.GetName())
	if err != nil {
		return nil, err
	}
	s, err := l.shelf("other_shelf_name", req.GetOtherShelfName())
	if err != nil {
		return nil, err
	}
	if bookParent(b.book) == s.shelf.GetName() {
		return proto.CloneOf(b.book), nil // already there
	}
	name := s.shelf.GetName() + "/books/" + b.book.GetName()[strings.LastIndexByte(b.book.GetName(), '/')+1:]
	if l.books[name] != nil {
		return nil, status.Errorf(codes.AlreadyExists, "book %q already exists", name)
	}
	moved := proto.CloneOf(b.book)
	moved.Name = name
	moved.UpdateTime = l.now()
	delete(l.books, b.book.GetName())
	l.books[name] = &bookEntry{seq: b.seq, book: moved}
	return proto.CloneOf(moved), nil
}

// shelf returns the shelf named by the request field field: INVALID_ARGUMENT
// when name is not a shelf name, NOT_FOUND when there is no such shelf.
func (l *library) shelf(field, name string) (*shelfEntry, error) {
	id, ok := strings.CutPrefix(name, "shelves/")
	if !ok || !validID(id) {
		return nil, fieldViolation(codes.InvalidArgument, field, fmt.Sprintf("%s %q is not a shelf name (shelves/{shelf})", field, name))
	}
	s := l.shelves[name]
	if s == nil {
		return nil, status.Errorf(codes.NotFound, "shelf %q not found", name)
	}
	return s, nil
}

// book returns the book named by the request field field, as shelf does.
func (l *library) book(field, name string) (*bookEntry, error) {
	shelf, id, ok := strings.Cut(strings.TrimPrefix(name, "shelves/"), "/books/")
	if !strings.HasPrefix(name, "shelves/") || !ok || !validID(shelf) || !validID(id) {
		return nil, fieldViolation(codes.InvalidArgument, field, fmt.Sprintf("%s %q is not a book name (shelves/{shelf}/books/{book})", field, name))
	}
	b := l.books[name]
	if b == nil {
		return nil, status.Errorf(codes.NotFound, "book %q not found", name)
	}
	return b, nil
}

// newName returns prefix+idPrefix+N for the first N from the next sequence
// number on that taken does not report as taken.
func (l *library) newName(prefix, idPrefix string, taken func(string) bool) string {
	for n := l.seq + 1; ; n++ {
		if name := prefix + idPrefix + strconv.FormatInt(n, 10); !taken(name) {
			return name
		}
	}
}

// bookParent is the name of the shelf a book is on.
func bookParent(b *libraryv1.Book) string {
	name := b.GetName()
	return name[:strings.Index(name, "/books/")]
}

// validID reports whether id is a resource ID: 1 to 63 lower-case letters,
// digits and hyphens, starting with a letter.
func validID(id string) bool {
	if id == "" || len(id) > 63 || id[0] < 'a' || id[0] > 'z' {
		return false
	}
	for _, c := range []byte(id) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// page returns the range [start, end) of the page of a list of n items that
// size and token ask for, and the next page's token. A token encodes the
// offset of its page and a hash of the list it belongs to (scope: the
// request's other parameters), so a token is refused by another list.
//
// Offsets are positions in creation order: an item created or deleted
// between two pages can shift the next page by one, as in many real APIs.
func page(n int, size int32, token, scope string) (start, end int, next string, err error) {
	switch {
	case size < 0:
		return 0, 0, "", fieldViolation(codes.InvalidArgument, "page_size", "page_size must not be negative")
	case size == 0:
		size = defaultPageSize
	case size > maxPageSize:
		size = maxPageSize
	}
	h := fnv.New32a()
	h.Write([]byte(scope))
	sum := h.Sum32()
	if token != "" {
		offset, ok := decodePageToken(token, sum)
		if !ok {
			return 0, 0, "", fieldViolation(codes.InvalidArgument, "page_token", "page_token is not a token this list returned")
		}
		start = min(offset, n)
	}
	end = min(start+int(size), n)
	if end < n {
		next = base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d:%08x", end, sum))
	}
	return start, end, next, nil
}

func decodePageToken(token string, sum uint32) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, false
	}
	offset, hash, ok := strings.Cut(string(raw), ":")
	if !ok || hash != fmt.Sprintf("%08x", sum) {
		return 0, false
	}
	o, err := strconv.Atoi(offset)
	if err != nil || o < 0 {
		return 0, false
	}
	return o, true
}

// parseFilter parses a ListBooks filter: terms `field = value` joined by
// AND, where a value is a word or a double-quoted Go string.
func parseFilter(filter string) (func(*libraryv1.Book) bool, error) {
	toks, err := filterTokens(filter)
	if err != nil {
		return nil, err
	}
	var terms []func(*libraryv1.Book) bool
	for len(toks) > 0 {
		if len(terms) > 0 {
			if toks[0] != "AND" {
				return nil, fmt.Errorf("filter: want AND, got %q", toks[0])
			}
			toks = toks[1:]
		}
		if len(toks) < 3 || toks[1] != "=" || toks[0] == "=" || toks[2] == "=" {
			return nil, fmt.Errorf("filter: want `field = value` terms joined by AND, got %q", filter)
		}
		term, err := filterTerm(toks[0], unquote(toks[2]))
		if err != nil {
			return nil, err
		}
		terms = append(terms, term)
		toks = toks[3:]
	}
	return func(b *libraryv1.Book) bool {
		for _, t := range terms {
			if !t(b) {
				return false
			}
		}
		return true
	}, nil
}

func filterTerm(field, value string) (func(*libraryv1.Book) bool, error) {
	switch field {
	case "title":
		return func(b *libraryv1.Book) bool { return b.GetTitle() == value }, nil
	case "author":
		return func(b *libraryv1.Book) bool { return b.GetAuthor() == value }, nil
	case "genre":
		g, ok := libraryv1.Book_Genre_value[value]
		if !ok {
			return nil, fmt.Errorf("filter: %q is not a genre", value)
		}
		return func(b *libraryv1.Book) bool { return b.GetGenre() == libraryv1.Book_Genre(g) }, nil
	case "read":
		r, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("filter: read must be true or false, got %q", value)
		}
		return func(b *libraryv1.Book) bool { return b.GetRead() == r }, nil
	}
	if key, ok := strings.CutPrefix(field, "labels."); ok && key != "" {
		return func(b *libraryv1.Book) bool { v, ok := b.GetLabels()[key]; return ok && v == value }, nil
	}
	return nil, fmt.Errorf("filter: unknown field %q (title, author, genre, read, labels.KEY)", field)
}

// filterTokens splits a filter into words, "=" and quoted strings (kept
// with their quotes).
func filterTokens(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '=':
			toks = append(toks, "=")
			i++
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, fmt.Errorf("filter: unterminated string")
			}
			q := s[i : j+1]
			if _, err := strconv.Unquote(q); err != nil {
				return nil, fmt.Errorf("filter: bad string %s", q)
			}
			toks = append(toks, q)
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t=\"", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks, nil
}

// unquote returns a quoted token's string, or the token itself.
func unquote(tok string) string {
	if s, err := strconv.Unquote(tok); err == nil && strings.HasPrefix(tok, `"`) {
		return s
	}
	return tok
}
