package protorest_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/protorest/protorest"
	libraryv1 "github.com/protorest/protorest/examples/library/v1"
	"github.com/protorest/protorest/examples/services"
)

// The integration tests run the library example end to end with real
// parts: one services.NewLibrary() instance registered both on a real
// grpc.Server and on a Gateway served by a real net/http.Server, each on
// its own 127.0.0.1 listener, driven by a real net/http client and a real
// grpc-go client. Whatever one protocol changes, the other must see.

// integBlockHeader makes integBlocker hold a call until its context ends.
const integBlockHeader = "Grpc-Metadata-X-Integration-Block"

// integWait bounds every wait of these tests, so that a bug fails the test
// instead of hanging it. Nothing waits for it to pass.
const integWait = 30 * time.Second

// integEnv is one running pair of servers around one library.
type integEnv struct {
	httpAddr string // host:port of the HTTP server
	baseURL  string // "http://" + httpAddr
	hc       *http.Client
	lib      libraryv1.LibraryServiceClient
	block    *integBlocker
}

// integBlocker is a gateway interceptor that, for calls whose request
// carries integBlockHeader, reports the call's deadline on entered, waits
// until the call's context is done, reports ctx.Err() on exited and
// returns it, as a method that honours its context does. Other calls pass
// through untouched.
type integBlocker struct {
	entered chan integEntry
	exited  chan error
}

type integEntry struct {
	deadline    time.Time
	hasDeadline bool
	remaining   time.Duration
}

func (b *integBlocker) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if len(md.Get("x-integration-block")) == 0 {
		return h(ctx, req)
	}
	dl, ok := ctx.Deadline()
	b.entered <- integEntry{deadline: dl, hasDeadline: ok, remaining: time.Until(dl)}
	<-ctx.Done()
	b.exited <- ctx.Err()
	return nil, ctx.Err()
}

// newIntegEnv starts a grpc.Server and an HTTP server with a Gateway, both
// serving the same library, and returns clients for both. t.Cleanup stops
// everything and checks that both servers stopped cleanly.
func newIntegEnv(t *testing.T) *integEnv {
	t.Helper()
	impl := services.NewLibrary()
	block := &integBlocker{entered: make(chan integEntry, 1), exited: make(chan error, 1)}

	// gRPC.
	glis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	libraryv1.RegisterLibraryServiceServer(gs, impl)
	gerr := make(chan error, 1)
	go func() { gerr <- gs.Serve(glis) }()
	t.Cleanup(func() {
		gs.Stop()
		if err := <-gerr; err != nil {
			t.Errorf("grpc.Server.Serve: %v", err)
		}
	})

	// HTTP.
	gw := protorest.NewGateway(protorest.WithUnaryInterceptors(block.intercept))
	libraryv1.RegisterLibraryServiceServer(gw, impl)
	hlis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: gw, ReadHeaderTimeout: integWait}
	herr := make(chan error, 1)
	go func() { herr <- hs.Serve(hlis) }()
	t.Cleanup(func() {
		hs.Close()
		if err := <-herr; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("http.Server.Serve: %v", err)
		}
	})

	// Clients.
	conn, err := grpc.NewClient(glis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	t.Cleanup(tr.CloseIdleConnections)

	return &integEnv{
		httpAddr: hlis.Addr().String(),
		baseURL:  "http://" + hlis.Addr().String(),
		hc:       &http.Client{Transport: tr, Timeout: integWait},
		lib:      libraryv1.NewLibraryServiceClient(conn),
		block:    block,
	}
}

// integResp is what a test sees of one HTTP exchange.
type integResp struct {
	what   string // "METHOD target", for messages
	code   int
	header http.Header
	body   []byte
}

// do sends one HTTP request; headers are name, value pairs. It is safe to
// call from many goroutines (it never calls t.Fatal).
func (e *integEnv) do(t *testing.T, method, target, body string, headers ...string) integResp {
	t.Helper()
	r, err := e.send(context.Background(), method, target, body, headers...)
	if err != nil {
		t.Errorf("%s %s: %v", method, target, err)
	}
	return r
}

func (e *integEnv) send(ctx context.Context, method, target, body string, headers ...string) (integResp, error) {
	res := integResp{what: method + " " + target}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.baseURL+target, rd)
	if err != nil {
		return res, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	res.code, res.header = resp.StatusCode, resp.Header
	res.body, err = io.ReadAll(resp.Body)
	return res, err
}

// integOK checks that r is a 200 with a JSON body that is a valid m in the
// proto3 JSON mapping (unknown fields rejected), and decodes it into m.
// It reports whether all was well.
func integOK(t *testing.T, r integResp, m proto.Message) bool {
	t.Helper()
	if r.code != http.StatusOK {
		t.Errorf("%s: status %d, want 200; body %s", r.what, r.code, r.body)
		return false
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", r.what, ct)
	}
	if err := protojson.Unmarshal(r.body, m); err != nil {
		t.Errorf("%s: body %s is not a %s: %v", r.what, r.body, m.ProtoReflect().Descriptor().FullName(), err)
		return false
	}
	return true
}

// integError checks that r is an error response with HTTP status
// httpCode and a google.rpc.Status JSON body {"code":code,…}, and returns
// the status.
func integError(t *testing.T, r integResp, httpCode int, code codes.Code) *spb.Status {
	t.Helper()
	st := &spb.Status{}
	if r.code != httpCode {
		t.Errorf("%s: status %d, want %d; body %s", r.what, r.code, httpCode, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", r.what, ct)
	}
	if prefix := fmt.Sprintf(`{"code":%d,`, code); !bytes.HasPrefix(r.body, []byte(prefix)) {
		t.Errorf("%s: body %s, want it to start with %s", r.what, r.body, prefix)
	}
	if err := protojson.Unmarshal(r.body, st); err != nil {
		t.Errorf("%s: body %s is not a google.rpc.Status: %v", r.what, r.body, err)
	}
	if codes.Code(st.GetCode()) != code {
		t.Errorf("%s: code %d, want %d (%v)", r.what, st.GetCode(), code, code)
	}
	if st.GetMessage() == "" {
		t.Errorf("%s: empty message in %s", r.what, r.body)
	}
	return st
}

// integRequestID returns the request ID header of r, checking that there
// is exactly one, non-empty.
func integRequestID(t *testing.T, r integResp) string {
	t.Helper()
	ids := r.header.Values("Grpc-Metadata-X-Library-Request-Id")
	if len(ids) != 1 || ids[0] == "" {
		t.Errorf("%s: Grpc-Metadata-X-Library-Request-Id = %q, want one ID (headers %v)", r.what, ids, r.header)
		return ""
	}
	return ids[0]
}

// integGetBook returns a book over gRPC.
func integGetBook(t *testing.T, e *integEnv, name string) *libraryv1.Book {
	t.Helper()
	b, err := e.lib.GetBook(t.Context(), &libraryv1.GetBookRequest{Name: name})
	if err != nil {
		t.Fatalf("gRPC GetBook(%s): %v", name, err)
	}
	return b
}

func integEqual(t *testing.T, what string, got, want proto.Message) {
	t.Helper()
	if !proto.Equal(got, want) {
		t.Errorf("%s:\n got  %v\n want %v", what, got, want)
	}
}

// TestIntegrationLibraryFlow walks the AIP flow across both protocols:
// shelves and books created on one are read, listed, updated, moved and
// deleted on the other.
func TestIntegrationLibraryFlow(t *testing.T) {
	e := newIntegEnv(t)
	ctx := t.Context()

	// Create a shelf over HTTP (body "shelf"), get it over gRPC.
	var shelf libraryv1.Shelf
	r := e.do(t, "POST", "/v1/shelves", `{"name":"shelves/ignored","theme":"Integration"}`)
	if !integOK(t, r, &shelf) {
		t.FailNow()
	}
	if !strings.HasPrefix(shelf.GetName(), "shelves/") || shelf.GetName() == "shelves/ignored" ||
		shelf.GetTheme() != "Integration" || shelf.GetCreateTime() == nil {
		t.Errorf("created shelf = %v", &shelf)
	}
	integRequestID(t, r)
	gotShelf, err := e.lib.GetShelf(ctx, &libraryv1.GetShelfRequest{Name: shelf.GetName()})
	if err != nil {
		t.Fatalf("gRPC GetShelf(%s): %v", shelf.GetName(), err)
	}
	integEqual(t, "gRPC GetShelf of the shelf created over HTTP", gotShelf, &shelf)

	// Create books over gRPC.
	ids := []string{"alpha", "bravo", "charlie", "delta", "echo"}
	created := map[string]*libraryv1.Book{}
	var order []string
	for i, id := range ids {
		b, err := e.lib.CreateBook(ctx, &libraryv1.CreateBookRequest{
			Parent: shelf.GetName(),
			BookId: proto.String(id),
			Book: &libraryv1.Book{
				Title: "Book " + id, Author: "Author " + id, PageCount: int32(100 + i),
				Genre: libraryv1.Book_NON_FICTION, Labels: map[string]string{"n": fmt.Sprint(i)},
			},
		})
		if err != nil {
			t.Fatalf("gRPC CreateBook(%s): %v", id, err)
		}
		created[b.GetName()] = b
		order = append(order, b.GetName())
	}

	t.Run("ListPages", func(t *testing.T) {
		// List over HTTP a page at a time, following next_page_token.
		var seen []string
		token := ""
		for page := 0; ; page++ {
			if page > len(ids) {
				t.Fatalf("more than %d pages of 1 for %d books; seen %v", len(ids)+1, len(ids), seen)
			}
			q := url.Values{"page_size": {"1"}}
			if token != "" {
				q.Set("page_token", token)
			}
			var res libraryv1.ListBooksResponse
			if !integOK(t, e.do(t, "GET", "/v1/"+shelf.GetName()+"/books?"+q.Encode(), ""), &res) {
				t.FailNow()
			}
			if len(res.GetBooks()) != 1 {
				t.Fatalf("page %d: %d books, want 1: %v", page, len(res.GetBooks()), &res)
			}
			b := res.GetBooks()[0]
			if want := created[b.GetName()]; want == nil {
				t.Errorf("page %d: unexpected book %v", page, b)
			} else {
				integEqual(t, fmt.Sprintf("page %d", page), b, want)
			}
			seen = append(seen, b.GetName())
			token = res.GetNextPageToken()
			if token == "" {
				break
			}
		}
		if !slices.Equal(seen, order) {
			t.Errorf("listed %v, want %v", seen, order)
		}

		// The default page holds all of them, with an empty token.
		var all libraryv1.ListBooksResponse
		if integOK(t, e.do(t, "GET", "/v1/"+shelf.GetName()+"/books", ""), &all) {
			if len(all.GetBooks()) != len(ids) || all.GetNextPageToken() != "" {
				t.Errorf("default page = %d books, token %q; want %d, none", len(all.GetBooks()), all.GetNextPageToken(), len(ids))
			}
		}

		// A bogus token is INVALID_ARGUMENT, with the library's detail.
		st := integError(t, e.do(t, "GET", "/v1/"+shelf.GetName()+"/books?page_size=1&page_token=bogus", ""), 400, codes.InvalidArgument)
		var br errdetails.BadRequest
		if len(st.GetDetails()) != 1 || st.GetDetails()[0].UnmarshalTo(&br) != nil ||
			len(br.GetFieldViolations()) != 1 || br.GetFieldViolations()[0].GetField() != "page_token" {
			t.Errorf("bogus token: details %v, want one BadRequest naming page_token", st.GetDetails())
		}

		// A filter: url.Values encodes spaces as '+', which the gateway
		// reads as spaces.
		q := url.Values{"filter": {`author = "Author charlie" AND genre = NON_FICTION`}}.Encode()
		var filtered libraryv1.ListBooksResponse
		if integOK(t, e.do(t, "GET", "/v1/"+shelf.GetName()+"/books?"+q, ""), &filtered) {
			if len(filtered.GetBooks()) != 1 || filtered.GetBooks()[0].GetName() != shelf.GetName()+"/books/charlie" {
				t.Errorf("filter %s: %v, want charlie only", q, &filtered)
			}
		}
	})

	bookName := shelf.GetName() + "/books/alpha"

	t.Run("Get", func(t *testing.T) {
		var b libraryv1.Book
		r := e.do(t, "GET", "/v1/"+bookName, "")
		if integOK(t, r, &b) {
			integEqual(t, "HTTP GET of a book created over gRPC", &b, created[bookName])
		}
		integRequestID(t, r)
	})

	// patch sends a PATCH and checks that the response and the book gRPC
	// then returns are before with change applied (and a new update_time).
	patch := func(t *testing.T, target, body string, change func(*libraryv1.Book)) {
		t.Helper()
		before := integGetBook(t, e, bookName)
		var got libraryv1.Book
		if !integOK(t, e.do(t, "PATCH", target, body), &got) {
			return
		}
		want := proto.CloneOf(before)
		change(want)
		want.UpdateTime = got.GetUpdateTime()
		integEqual(t, "PATCH "+target+" "+body+" response", &got, want)
		integEqual(t, "gRPC GetBook after PATCH "+target+" "+body, integGetBook(t, e, bookName), want)
	}

	t.Run("PatchDerivedMask", func(t *testing.T) {
		// No update_mask: the gateway derives it from the body's keys, so
		// the fields the body leaves out stay as they are.
		for _, tc := range []struct {
			name, body string
			change     func(*libraryv1.Book)
		}{
			{"one field", `{"title":"Retitled"}`, func(b *libraryv1.Book) { b.Title = "Retitled" }},
			{"JSON names", `{"pageCount":777,"read":true}`, func(b *libraryv1.Book) { b.PageCount, b.Read = 777, true }},
			{"proto names", `{"page_count":778}`, func(b *libraryv1.Book) { b.PageCount = 778 }},
			{"map stops the mask", `{"labels":{"signed":"yes"}}`, func(b *libraryv1.Book) { b.Labels = map[string]string{"signed": "yes"} }},
			{"enum", `{"genre":"POETRY","author":"Someone Else"}`, func(b *libraryv1.Book) { b.Genre, b.Author = libraryv1.Book_POETRY, "Someone Else" }},
			{"default value is still set", `{"read":false}`, func(b *libraryv1.Book) { b.Read = false }},
		} {
			t.Run(tc.name, func(t *testing.T) { patch(t, "/v1/"+bookName, tc.body, tc.change) })
		}
	})

	t.Run("PatchExplicitMask", func(t *testing.T) {
		for _, tc := range []struct {
			name, query, body string
			change            func(*libraryv1.Book)
		}{
			{"update_mask=title", "update_mask=title", `{"title":"Masked","author":"Not Applied","pageCount":1}`,
				func(b *libraryv1.Book) { b.Title = "Masked" }},
			{"updateMask, lowerCamel paths", "updateMask=author,pageCount", `{"title":"Not Applied","author":"Applied","pageCount":42}`,
				func(b *libraryv1.Book) { b.Author, b.PageCount = "Applied", 42 }},
		} {
			t.Run(tc.name, func(t *testing.T) { patch(t, "/v1/"+bookName+"?"+tc.query, tc.body, tc.change) })
		}
	})

	t.Run("ProtoResponse", func(t *testing.T) {
		r := e.do(t, "GET", "/v1/"+bookName, "", "Accept", "application/proto")
		if r.code != 200 {
			t.Fatalf("status %d, body %q", r.code, r.body)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/proto" {
			t.Errorf("Content-Type = %q, want application/proto", ct)
		}
		var b libraryv1.Book
		if err := proto.Unmarshal(r.body, &b); err != nil {
			t.Fatalf("proto.Unmarshal: %v", err)
		}
		integEqual(t, "Accept: application/proto", &b, integGetBook(t, e, bookName))
	})

	t.Run("RequestIDHeader", func(t *testing.T) {
		// The gRPC client sees the header metadata...
		var hdr metadata.MD
		if _, err := e.lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: bookName}, grpc.Header(&hdr)); err != nil {
			t.Fatal(err)
		}
		if v := hdr.Get(services.RequestIDHeader); len(v) != 1 || v[0] == "" {
			t.Errorf("gRPC header %s = %q", services.RequestIDHeader, v)
		}
		// ...and the HTTP client the same key as Grpc-Metadata-<Canonical>,
		// on the wire exactly so, with a fresh ID per call.
		want := protorest.MetadataHeaderPrefix + http.CanonicalHeaderKey(services.RequestIDHeader)
		if want != "Grpc-Metadata-X-Library-Request-Id" {
			t.Fatalf("expected header name %q", want)
		}
		id1, id2 := integRequestID(t, e.do(t, "GET", "/v1/"+bookName, "")), integRequestID(t, e.do(t, "GET", "/v1/"+bookName, ""))
		if id1 == id2 {
			t.Errorf("two calls got the same request ID %q", id1)
		}
		raw := integRawHeaders(t, e.httpAddr, "GET", "/v1/"+bookName)
		if n := strings.Count(raw, "\r\n"+want+": "); n != 1 {
			t.Errorf("raw response has %d %q lines, want 1:\n%s", n, want, raw)
		}
		// Errors from the method carry the header too.
		r := e.do(t, "GET", "/v1/"+shelf.GetName()+"/books/nosuchbook", "")
		integError(t, r, 404, codes.NotFound)
		integRequestID(t, r)
	})

	t.Run("Move", func(t *testing.T) {
		var other libraryv1.Shelf
		if !integOK(t, e.do(t, "POST", "/v1/shelves", `{"theme":"Other"}`), &other) {
			t.FailNow()
		}
		before := integGetBook(t, e, bookName)
		var moved libraryv1.Book
		if !integOK(t, e.do(t, "POST", "/v1/"+bookName+":move", `{"otherShelfName":"`+other.GetName()+`"}`), &moved) {
			t.FailNow()
		}
		want := proto.CloneOf(before)
		want.Name = other.GetName() + "/books/alpha"
		want.UpdateTime = moved.GetUpdateTime()
		integEqual(t, "moved book", &moved, want)
		integEqual(t, "gRPC GetBook of the moved book", integGetBook(t, e, want.GetName()), want)
		if _, err := e.lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: bookName}); status.Code(err) != codes.NotFound {
			t.Errorf("gRPC GetBook(old name) = %v, want NotFound", err)
		}
		integError(t, e.do(t, "GET", "/v1/"+bookName, ""), 404, codes.NotFound)

		// Delete over HTTP; then it is gone for both.
		var empty emptypb.Empty
		integOK(t, e.do(t, "DELETE", "/v1/"+want.GetName(), ""), &empty)
		st := integError(t, e.do(t, "GET", "/v1/"+want.GetName(), ""), 404, codes.NotFound)
		if !strings.Contains(st.GetMessage(), want.GetName()) {
			t.Errorf("404 message %q does not name the book", st.GetMessage())
		}
		if _, err := e.lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: want.GetName()}); status.Code(err) != codes.NotFound {
			t.Errorf("gRPC GetBook(deleted) = %v, want NotFound", err)
		}
		integError(t, e.do(t, "DELETE", "/v1/"+want.GetName(), ""), 404, codes.NotFound)
	})

	t.Run("BadRequests", func(t *testing.T) {
		for _, tc := range []struct {
			method, target, body string
			httpCode             int
			code                 codes.Code
			mention              string // the message must contain this
		}{
			{"GET", "/v1/" + shelf.GetName() + "/books/bravo?bogus_param=1", "", 400, codes.InvalidArgument, "bogus_param"},
			{"GET", "/v1/" + shelf.GetName() + "/books?page_size=1&colour=red", "", 400, codes.InvalidArgument, "colour"},
			{"GET", "/v1/" + shelf.GetName() + "/books?page_size=x", "", 400, codes.InvalidArgument, "page_size"},
			{"GET", "/v1/" + shelf.GetName() + "/books?page_size=1&page_size=2", "", 400, codes.InvalidArgument, "page_size"},
			{"GET", "/v1/" + shelf.GetName() + "/books/bravo?name=shelves/x/books/y", "", 400, codes.InvalidArgument, "name"},
			{"PATCH", "/v1/" + shelf.GetName() + "/books/bravo", `{"title":`, 400, codes.InvalidArgument, ""},
			{"GET", "/v2/nothing", "", 404, codes.NotFound, ""},
			{"PUT", "/v1/" + shelf.GetName() + "/books/bravo", `{}`, 405, codes.Unimplemented, ""},
		} {
			r := e.do(t, tc.method, tc.target, tc.body)
			st := integError(t, r, tc.httpCode, tc.code)
			if !strings.Contains(st.GetMessage(), tc.mention) {
				t.Errorf("%s: message %q does not mention %q", r.what, st.GetMessage(), tc.mention)
			}
		}
		// Nothing above changed the book.
		integEqual(t, "bravo after bad requests", integGetBook(t, e, shelf.GetName()+"/books/bravo"), created[shelf.GetName()+"/books/bravo"])
	})

	t.Run("DeleteShelf", func(t *testing.T) {
		integError(t, e.do(t, "DELETE", "/v1/"+shelf.GetName(), ""), 400, codes.FailedPrecondition)
		var empty emptypb.Empty
		integOK(t, e.do(t, "DELETE", "/v1/"+shelf.GetName()+"?force=true", ""), &empty)
		if _, err := e.lib.GetShelf(ctx, &libraryv1.GetShelfRequest{Name: shelf.GetName()}); status.Code(err) != codes.NotFound {
			t.Errorf("gRPC GetShelf(deleted) = %v, want NotFound", err)
		}
		if _, err := e.lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: shelf.GetName() + "/books/bravo"}); status.Code(err) != codes.NotFound {
			t.Errorf("gRPC GetBook(book of deleted shelf) = %v, want NotFound", err)
		}
	})
}

// integRawHeaders sends a request on a fresh TCP connection and returns
// the raw header section of the response, to check header names as they
// are on the wire (net/http's client canonicalizes them).
func integRawHeaders(t *testing.T, addr, method, target string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, integWait)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(integWait))
	if _, err := fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", method, target, addr); err != nil {
		t.Fatal(err)
	}
	var head strings.Builder
	br := bufio.NewReader(conn)
	for {
		line, err := br.ReadString('\n')
		head.WriteString(line)
		if err != nil {
			t.Fatalf("reading the response head: %v (so far %q)", err, head.String())
		}
		if line == "\r\n" {
			return head.String()
		}
	}
}

// TestIntegrationDeadlines checks that the method's context is the
// client's: Grpc-Timeout sets its deadline, and a client that goes away
// cancels it.
func TestIntegrationDeadlines(t *testing.T) {
	e := newIntegEnv(t)
	const dune = "shelves/fiction/books/dune"

	t.Run("Timeout1ns", func(t *testing.T) {
		// The library does not look at its context, so whether the call
		// beats a 1ns deadline is a race: either outcome is right, but
		// nothing else is.
		r := e.do(t, "GET", "/v1/"+dune, "", "Grpc-Timeout", "1n")
		switch r.code {
		case http.StatusOK:
			var b libraryv1.Book
			if integOK(t, r, &b) {
				integEqual(t, "GET with Grpc-Timeout: 1n", &b, integGetBook(t, e, dune))
			}
		case http.StatusGatewayTimeout:
			integError(t, r, http.StatusGatewayTimeout, codes.DeadlineExceeded)
		default:
			t.Errorf("Grpc-Timeout: 1n: status %d (body %s), want 200 or 504", r.code, r.body)
		}
	})

	t.Run("TimeoutReachesMethod", func(t *testing.T) {
		// A method that waits for its context gets DEADLINE_EXCEEDED when
		// the Grpc-Timeout passes, and the client a 504 {"code":4,…}.
		type result struct {
			r   integResp
			err error
		}
		done := make(chan result, 1)
		go func() {
			r, err := e.send(context.Background(), "GET", "/v1/"+dune, "", "Grpc-Timeout", "200m", integBlockHeader, "1")
			done <- result{r, err}
		}()
		var in integEntry
		select {
		case in = <-e.block.entered:
		case <-time.After(integWait):
			t.Fatal("the call never reached the method")
		}
		if !in.hasDeadline || in.remaining > 200*time.Millisecond {
			t.Errorf("method context: deadline %v (%v, in %v), want one at most 200ms away", in.deadline, in.hasDeadline, in.remaining)
		}
		select {
		case err := <-e.block.exited:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("method context ended with %v, want context.DeadlineExceeded", err)
			}
		case <-time.After(integWait):
			t.Fatal("the method's context never ended")
		}
		res := <-done
		if res.err != nil {
			t.Fatalf("HTTP request: %v", res.err)
		}
		integError(t, res.r, http.StatusGatewayTimeout, codes.DeadlineExceeded)
	})

	t.Run("ClientCancel", func(t *testing.T) {
		// A client that gives up cancels the method's context.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := e.send(ctx, "GET", "/v1/"+dune, "", integBlockHeader, "1")
			done <- err
		}()
		select {
		case in := <-e.block.entered:
			if in.hasDeadline {
				t.Errorf("method context has deadline %v without Grpc-Timeout", in.deadline)
			}
		case <-time.After(integWait):
			t.Fatal("the call never reached the method")
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("client error = %v, want context.Canceled", err)
		}
		select {
		case err := <-e.block.exited:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("method context ended with %v, want context.Canceled", err)
			}
		case <-time.After(integWait):
			t.Fatal("the method's context was not cancelled when the client went away")
		}
	})

	t.Run("ClientCancelWithExcessBody", func(t *testing.T) {
		// The same with a body that the rule does not take (grpc-gateway's
		// TestExcessBody/testExcessBodyRPCUnexpected): over HTTP/1.1,
		// net/http notices a client that goes away only once the body has
		// been read, so the gateway reads and drops it.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := e.send(ctx, "GET", "/v1/"+dune, "{}", integBlockHeader, "1")
			done <- err
		}()
		select {
		case <-e.block.entered:
		case <-time.After(integWait):
			t.Fatal("the call never reached the method")
		}
		cancel()
		<-done
		select {
		case err := <-e.block.exited:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("method context ended with %v, want context.Canceled", err)
			}
		case <-time.After(time.Second):
			t.Fatal("the method's context was not cancelled within a second of the client going away")
		}
	})

	t.Run("StillServing", func(t *testing.T) {
		var b libraryv1.Book
		if integOK(t, e.do(t, "GET", "/v1/"+dune, ""), &b) {
			integEqual(t, "GET after the deadline tests", &b, integGetBook(t, e, dune))
		}
	})
}

// TestIntegrationConcurrent runs 50 clients of 20 mixed HTTP requests each
// against the real server (run it with -race). Each client works on a
// shelf of its own, so that every status is known in advance; the seeded
// books are read by all.
func TestIntegrationConcurrent(t *testing.T) {
	e := newIntegEnv(t)
	const clients, perClient = 50, 20

	var mu sync.Mutex
	requestIDs := map[string]string{} // ID → request
	var requests, toMethod int
	// note records the request ID of a request that reached the method;
	// one the gateway rejects before the call (bad query) has none.
	note := func(r integResp, reachesMethod bool) {
		mu.Lock()
		requests++
		mu.Unlock()
		if !reachesMethod {
			if ids := r.header.Values("Grpc-Metadata-X-Library-Request-Id"); len(ids) != 0 {
				t.Errorf("%s: request ID %q from a call the gateway should have rejected before the method", r.what, ids)
			}
			return
		}
		id := integRequestID(t, r)
		mu.Lock()
		defer mu.Unlock()
		toMethod++
		if prev, dup := requestIDs[id]; dup && id != "" {
			t.Errorf("request ID %q given to both %s and %s", id, prev, r.what)
		}
		requestIDs[id] = r.what
	}

	finalTitles := make([]string, clients)
	shelves := make([]string, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			n := 0
			call := func(method, target, body string, headers ...string) integResp {
				n++
				r := e.do(t, method, target, body, headers...)
				note(r, r.code != http.StatusBadRequest)
				return r
			}
			var shelf libraryv1.Shelf
			if !integOK(t, call("POST", "/v1/shelves", fmt.Sprintf(`{"theme":"client %d"}`, c)), &shelf) {
				return
			}
			shelves[c] = shelf.GetName()
			book := shelf.GetName() + "/books/b"
			title := "t0"
			var created libraryv1.Book
			if !integOK(t, call("POST", "/v1/"+shelf.GetName()+"/books?bookId=b", `{"title":"t0","author":"a"}`), &created) {
				return
			}
			if created.GetName() != book {
				t.Errorf("client %d: created %q, want %q", c, created.GetName(), book)
				return
			}
			for j := 0; n < perClient; j++ {
				switch j % 6 {
				case 0:
					var b libraryv1.Book
					if integOK(t, call("GET", "/v1/"+book, ""), &b) && (b.GetTitle() != title || b.GetAuthor() != "a") {
						t.Errorf("client %d: GET %s = %v, want title %q, author a", c, book, &b, title)
					}
				case 1:
					title = fmt.Sprintf("t%d", j)
					var b libraryv1.Book
					if integOK(t, call("PATCH", "/v1/"+book, `{"title":"`+title+`"}`), &b) && (b.GetTitle() != title || b.GetAuthor() != "a") {
						t.Errorf("client %d: PATCH %s = %v, want title %q, author a", c, book, &b, title)
					}
				case 2:
					var res libraryv1.ListBooksResponse
					if integOK(t, call("GET", "/v1/"+shelf.GetName()+"/books?page_size=1", ""), &res) &&
						(len(res.GetBooks()) != 1 || res.GetBooks()[0].GetName() != book || res.GetNextPageToken() != "") {
						t.Errorf("client %d: list = %v, want just %s", c, &res, book)
					}
				case 3:
					r := call("GET", "/v1/shelves/fiction/books/dune", "", "Accept", "application/proto")
					var b libraryv1.Book
					if r.code != 200 || r.header.Get("Content-Type") != "application/proto" {
						t.Errorf("client %d: %s: status %d, Content-Type %q", c, r.what, r.code, r.header.Get("Content-Type"))
					} else if err := proto.Unmarshal(r.body, &b); err != nil || b.GetTitle() != "Dune" {
						t.Errorf("client %d: %s: %v, %v", c, r.what, &b, err)
					}
				case 4:
					integError(t, call("GET", "/v1/"+shelf.GetName()+"/books/missing", ""), 404, codes.NotFound)
				case 5:
					integError(t, call("GET", "/v1/"+shelf.GetName()+"?nope=1", ""), 400, codes.InvalidArgument)
				}
			}
			finalTitles[c] = title
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if requests != clients*perClient || len(requestIDs) != toMethod {
		t.Errorf("%d requests (want %d), %d reached the method with %d distinct IDs", requests, clients*perClient, toMethod, len(requestIDs))
	}
	// gRPC sees what the HTTP clients left.
	for c, s := range shelves {
		if b := integGetBook(t, e, s+"/books/b"); b.GetTitle() != finalTitles[c] || b.GetAuthor() != "a" {
			t.Errorf("client %d: gRPC GetBook = %v, want title %q, author a", c, b, finalTitles[c])
		}
	}
	res, err := e.lib.ListShelves(t.Context(), &libraryv1.ListShelvesRequest{PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(res.GetShelves()), clients+2; got != want {
		t.Errorf("gRPC ListShelves: %d shelves, want %d", got, want)
	}
}
