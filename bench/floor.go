package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// NewFloorHandler returns the floor: the Library's HTTP/JSON API written
// by hand for this one service, with net/http's ServeMux and
// encoding/json on plain Go structs. It is what a gateway would cost if
// it did nothing generic: no descriptors, no reflection, no protojson.
// It serves exactly what the benchmarks send, with the same JSON answers
// as the gateways.
func NewFloorHandler(lib libraryv1.LibraryServer) http.Handler {
	f := &floor{lib: lib}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/shelves/{shelf}/books/{book}", f.getBook)
	mux.HandleFunc("GET /v1/shelves/{shelf}/books", f.listBooks)
	mux.HandleFunc("GET /v1/shelves/{shelf}/books:search", f.searchBooks)
	mux.HandleFunc("POST /v1/shelves/{shelf}/books", f.createBook)
	mux.HandleFunc("PATCH /v1/shelves/{shelf}/books/{book}", f.updateBook)
	mux.HandleFunc("DELETE /v1/shelves/{shelf}/books/{book}", f.deleteBook)
	mux.HandleFunc("POST /v1/echo", f.echo)
	mux.HandleFunc("GET /v1/items", f.listItems)
	mux.HandleFunc("GET /v1/items:stream", f.streamItems)
	return mux
}

type floor struct {
	lib libraryv1.LibraryServer
}

func shelfName(r *http.Request) string { return "shelves/" + r.PathValue("shelf") }

func bookName(r *http.Request) string { return shelfName(r) + "/books/" + r.PathValue("book") }

func (f *floor) getBook(w http.ResponseWriter, r *http.Request) {
	b, err := f.lib.GetBook(r.Context(), &libraryv1.GetBookRequest{Name: bookName(r)})
	if err != nil {
		writeFloorError(w, err)
		return
	}
	writeFloorJSON(w, bookToJSON(b))
}

func (f *floor) listBooks(w http.ResponseWriter, r *http.Request) {
	req := &libraryv1.ListBooksRequest{Parent: shelfName(r), PageToken: r.URL.Query().Get("page_token")}
	if s := r.URL.Query().Get("page_size"); s != "" {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			writeFloorError(w, status.Errorf(codes.InvalidArgument, "page_size: %v", err))
			return
		}
		req.PageSize = int32(n)
	}
	res, err := f.lib.ListBooks(r.Context(), req)
	if err != nil {
		writeFloorError(w, err)
		return
	}
	writeFloorJSON(w, listBooksToJSON(res))
}

func (f *floor) searchBooks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := &libraryv1.SearchBooksRequest{Parent: shelfName(r), Author: q.Get("author"), Topics: q["topics"]}
	for _, p := range []struct {
		name string
		dst  *int32
	}{{"min_pages", &req.MinPages}, {"page_size", &req.PageSize}} {
		if s := q.Get(p.name); s != "" {
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				writeFloorError(w, status.Errorf(codes.InvalidArgument, "%s: %v", p.name, err))
				return
			}
			*p.dst = int32(n)
		}
	}
	if s := q.Get("published_after"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			writeFloorError(w, status.Errorf(codes.InvalidArgument, "published_after: %v", err))
			return
		}
		req.PublishedAfter = timestamppb.New(t)
	}
	res, err := f.lib.SearchBooks(r.Context(), req)
	if err != nil {
		writeFloorError(w, err)
		return
	}
	writeFloorJSON(w, listBooksToJSON(res))
}

func (f *floor) createBook(w http.ResponseWriter, r *http.Request) {
	var book bookJSON
	if _, err := readFloorBody(r, &book); err != nil {
		writeFloorError(w, err)
		return
	}
	b, err := f.lib.CreateBook(r.Context(), &libraryv1.CreateBookRequest{Parent: shelfName(r), Book: bookFromJSON(&book)})
	if err != nil {
		writeFloorError(w, err)
		return
	}
	writeFloorJSON(w, bookToJSON(b))
}

// bookProtoNames maps the JSON names of Book's fields to their proto
// names, for the update mask derived from a PATCH body.
var bookProtoNames = map[string]string{
	"name": "name", "title": "title", "author": "author",
	"pageCount": "page_count", "publishTime": "publish_time", "topics": "topics",
}

func (f *floor) updateBook(w http.ResponseWriter, r *http.Request) {
	var book bookJSON
	body, err := readFloorBody(r, &book)
	if err != nil {
		writeFloorError(w, err)
		return
	}
	book.Name = bookName(r)
	req := &libraryv1.UpdateBookRequest{Book: bookFromJSON(&book)}
	if s := r.URL.Query().Get("update_mask"); s != "" {
		req.UpdateMask = &fieldmaskpb.FieldMask{Paths: strings.Split(s, ",")}
	} else if req.UpdateMask, err = maskFromBody(body); err != nil {
		writeFloorError(w, err)
		return
	}
	b, err := f.lib.UpdateBook(r.Context(), req)
	if err != nil {
		writeFloorError(w, err)
		return
	}
	writeFloorJSON(w, bookToJSON(b))
}

// maskFromBody is the update mask of a PATCH without one: the fields the
// body names, as both gateways derive it.
func maskFromBody(body []byte) (*fieldmaskpb.FieldMask, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	mask := &fieldmaskpb.FieldMask{}
	for k := range keys {
		p, ok := bookProtoNames[k]
		if !ok {
			return nil, status.Errorf(codes.InvalidArgument, "could not find field %q in Book", k)
		}
		mask.Paths = append(mask.Paths, p)
	}
	slices.Sort(mask.Paths)
	return mask, nil
}

func (f *floor) deleteBook(w http.ResponseWriter, r *http.Request) {
	if _, err := f.lib.DeleteBook(r.Context(), &libraryv1.DeleteBookRequest{Name: bookName(r)}); err != nil {
		writeFloorError(w, err)
		return
	}
	writeFloorJSON(w, struct{}{})
}

func (f *floor) echo(w http.ResponseWriter, r *http.Request) {
	var m echoJSON
	if _, err := readFloorBody(r, &m); err != nil {
		writeFloorError(w, err)
		return
	}
	res, err := f.lib.Echo(r.Context(), echoFromJSON(&m))
	if err != nil {
		writeFloorError(w, err)
		return
	}
	writeFloorJSON(w, echoToJSON(res))
}

func (f *floor) listItems(w http.ResponseWriter, r *http.Request) {
	req := &libraryv1.ListItemsRequest{}
	if s := r.URL.Query().Get("n"); s != "" {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			writeFloorError(w, status.Errorf(codes.InvalidArgument, "n: %v", err))
			return
		}
		req.N = int32(n)
	}
	res, err := f.lib.ListItems(r.Context(), req)
	if err != nil {
		writeFloorError(w, err)
		return
	}
	writeFloorJSON(w, listItemsToJSON(res))
}

// streamItems writes each item as the gateways write a stream's
// messages: a line of {"result": message}, flushed.
func (f *floor) streamItems(w http.ResponseWriter, r *http.Request) {
	req := &libraryv1.ListItemsRequest{}
	if s := r.URL.Query().Get("n"); s != "" {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			writeFloorError(w, status.Errorf(codes.InvalidArgument, "n: %v", err))
			return
		}
		req.N = int32(n)
	}
	stream := &floorItemStream{w: w, ctx: r.Context()}
	if err := f.lib.StreamItems(req, stream); err != nil {
		if !stream.started {
			writeFloorError(w, err)
			return
		}
		b, _ := json.Marshal(struct {
			Error statusJSON `json:"error"`
		}{statusJSON{Code: int32(status.Code(err)), Message: status.Convert(err).Message(), Details: []any{}}})
		w.Write(append(b, '\n'))
		return
	}
	if !stream.started {
		w.Header().Set("Content-Type", "application/json")
	}
}

// floorItemStream is the server side of StreamItems for the floor: each
// message a line of JSON.
type floorItemStream struct {
	grpc.ServerStream // nil: only Send and Context are called
	w                 http.ResponseWriter
	ctx               context.Context
	started           bool
}

func (s *floorItemStream) Context() context.Context { return s.ctx }

func (s *floorItemStream) Send(it *libraryv1.Item) error {
	b, err := json.Marshal(struct {
		Result itemJSON `json:"result"`
	}{itemToJSON(it)})
	if err != nil {
		return err
	}
	if !s.started {
		s.w.Header().Set("Content-Type", "application/json")
		s.started = true
	}
	if _, err := s.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return http.NewResponseController(s.w).Flush()
}

// readFloorBody reads the request body into v and returns it.
func readFloorBody(r *http.Request, v any) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return body, nil
}

func writeFloorJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeFloorError(w, status.Error(codes.Internal, err.Error()))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// writeFloorError writes err as grpc-gateway does: a google.rpc.Status
// body and the HTTP status of its code.
func writeFloorError(w http.ResponseWriter, err error) {
	st := status.Convert(err)
	b, _ := json.Marshal(statusJSON{Code: int32(st.Code()), Message: st.Message(), Details: []any{}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(floorHTTPStatus(st.Code()))
	w.Write(b)
}

// floorHTTPStatus maps the codes the Library returns to HTTP statuses.
func floorHTTPStatus(c codes.Code) int {
	switch c {
	case codes.InvalidArgument:
		return http.StatusBadRequest
	case codes.NotFound:
		return http.StatusNotFound
	default:
		return http.StatusInternalServerError
	}
}
