// Package floorproxy is the floor of the throughput harness
// (scripts/throughput.sh): the Library's HTTP/JSON routes that the
// harness measures, in front of a gRPC backend, written by hand for this
// one service with net/http and grpc-go alone. It builds each request's
// Protobuf bytes by hand, sends them as they are, and writes the JSON of
// the reply straight from its bytes: no descriptors, no messages, no
// reflection, no protojson. So it is what a gateway would cost if
// transcoding were free, and it answers every route with the same JSON
// as the gateways (bench's TestThroughputEquivalence).
package floorproxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The Library's methods the routes call.
const (
	service     = "/bench.library.v1.Library/"
	getBook     = service + "GetBook"
	searchBooks = service + "SearchBooks"
	createBook  = service + "CreateBook"
	listItems   = service + "ListItems"
	streamItems = service + "StreamItems"
)

// New returns the floor's handler, calling the Library on conn.
func New(conn grpc.ClientConnInterface) http.Handler {
	p := &proxy{conn: conn}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/shelves/{shelf}/books/{book}", p.getBook)
	mux.HandleFunc("GET /v1/shelves/{shelf}/books:search", p.searchBooks)
	mux.HandleFunc("POST /v1/shelves/{shelf}/books", p.createBook)
	mux.HandleFunc("GET /v1/items", p.listItems)
	mux.HandleFunc("GET /v1/items:stream", p.streamItems)
	return mux
}

type proxy struct {
	conn grpc.ClientConnInterface
}

// buffers holds the byte slices of requests, replies and answers.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func getBuffer() *[]byte { return buffers.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) <= 1<<20 {
		*b = (*b)[:0]
		buffers.Put(b)
	}
}

// call sends the request bytes req to method and writes the JSON that
// toJSON makes of the reply.
func (p *proxy) call(w http.ResponseWriter, r *http.Request, method string, req []byte, toJSON func(out, b []byte) ([]byte, error)) {
	reply := getBuffer()
	defer putBuffer(reply)
	if err := p.conn.Invoke(r.Context(), method, &req, reply, grpc.ForceCodec(rawCodec{})); err != nil {
		writeError(w, err)
		return
	}
	out := getBuffer()
	defer putBuffer(out)
	var err error
	if *out, err = toJSON(*out, *reply); err != nil {
		writeError(w, status.Error(codes.Internal, err.Error()))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(*out)
}

func (p *proxy) getBook(w http.ResponseWriter, r *http.Request) {
	req := getBuffer()
	defer putBuffer(req)
	*req = appendString(*req, 1, "shelves/"+r.PathValue("shelf")+"/books/"+r.PathValue("book"))
	p.call(w, r, getBook, *req, appendBookJSON)
}

func (p *proxy) searchBooks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := getBuffer()
	defer putBuffer(req)
	b := appendString(*req, 1, "shelves/"+r.PathValue("shelf"))
	b = appendString(b, 2, q.Get("author"))
	minPages, err := queryInt32(q.Get("min_pages"), "min_pages")
	if err != nil {
		writeError(w, err)
		return
	}
	b = appendInt(b, 3, int64(minPages))
	for _, t := range q["topics"] {
		b = appendString(b, 4, t)
	}
	if s := q.Get("published_after"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			writeError(w, status.Errorf(codes.InvalidArgument, "published_after: %v", err))
			return
		}
		var ts [24]byte
		b = appendField(b, 5, appendTimestamp(ts[:0], t))
	}
	pageSize, err := queryInt32(q.Get("page_size"), "page_size")
	if err != nil {
		writeError(w, err)
		return
	}
	*req = appendInt(b, 6, int64(pageSize))
	p.call(w, r, searchBooks, *req, appendListBooksJSON)
}

func (p *proxy) createBook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, status.Error(codes.InvalidArgument, err.Error()))
		return
	}
	var book bookBody
	if err := json.Unmarshal(body, &book); err != nil {
		writeError(w, status.Error(codes.InvalidArgument, err.Error()))
		return
	}
	msg, req := getBuffer(), getBuffer()
	defer putBuffer(msg)
	defer putBuffer(req)
	*msg = appendBook(*msg, &book)
	*req = appendString(*req, 1, "shelves/"+r.PathValue("shelf"))
	*req = appendField(*req, 2, *msg)
	p.call(w, r, createBook, *req, appendBookJSON)
}

func (p *proxy) listItems(w http.ResponseWriter, r *http.Request) {
	n, err := queryInt32(r.URL.Query().Get("n"), "n")
	if err != nil {
		writeError(w, err)
		return
	}
	req := getBuffer()
	defer putBuffer(req)
	*req = appendInt(*req, 1, int64(n))
	p.call(w, r, listItems, *req, appendListItemsJSON)
}

// streamItems writes each item as grpc-gateway writes a stream's
// messages: a line of {"result": message}, flushed.
func (p *proxy) streamItems(w http.ResponseWriter, r *http.Request) {
	n, err := queryInt32(r.URL.Query().Get("n"), "n")
	if err != nil {
		writeError(w, err)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stream, err := p.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, streamItems, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		writeError(w, err)
		return
	}
	req := appendInt(nil, 1, int64(n))
	if err := stream.SendMsg(&req); err != nil {
		writeError(w, err)
		return
	}
	if err := stream.CloseSend(); err != nil {
		writeError(w, err)
		return
	}
	msg, out := getBuffer(), getBuffer()
	defer putBuffer(msg)
	defer putBuffer(out)
	started := false
	for {
		err := stream.RecvMsg(msg)
		if err == io.EOF {
			break
		}
		if err == nil {
			*out = append((*out)[:0], `{"result":`...)
			if *out, err = appendItemJSON(*out, *msg); err != nil {
				err = status.Error(codes.Internal, err.Error())
			}
		}
		if err != nil {
			if !started {
				writeError(w, err)
				return
			}
			// As grpc-gateway: the error in the stream, as a last line.
			*out = appendStatus(append((*out)[:0], `{"error":`...), status.Convert(err))
			w.Write(append(*out, "}\n"...))
			return
		}
		if !started {
			w.Header().Set("Content-Type", "application/json")
			started = true
		}
		w.Write(append(*out, "}\n"...))
		http.NewResponseController(w).Flush()
	}
	if !started {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
	}
}

// queryInt32 parses a query parameter's int32 value, "" as 0.
func queryInt32(s, name string) (int32, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, status.Errorf(codes.InvalidArgument, "%s: %v", name, err)
	}
	return int32(n), nil
}
