package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/protorest/protorest"
	abev1 "github.com/protorest/protorest/bench/proto/bench/abe/v1"
	libraryv1 "github.com/protorest/protorest/bench/proto/bench/library/v1"
)

// abeServer is the Create of grpc-gateway's example server: it returns
// the message it is given, with a uuid.
type abeServer struct {
	abev1.UnimplementedABitOfEverythingServiceServer
}

func (abeServer) Create(_ context.Context, m *abev1.ABitOfEverything) (*abev1.ABitOfEverything, error) {
	m = proto.CloneOf(m)
	m.Uuid = "6a8e1d4c-0c1f-4c5e-9e55-0d2f5c1b7a11"
	return m, nil
}

// swaggerPath builds a request path as go-openapi's runtime client
// (client/request.go, BuildHTTP) does for the go-swagger clients generated
// from grpc-gateway's OpenAPI documents: each {name} of the operation's
// path pattern is replaced by url.PathEscape(value), which escapes "/" as
// %2F.
func swaggerPath(pattern string, params map[string]string) string {
	for k, v := range params {
		pattern = strings.ReplaceAll(pattern, "{"+k+"}", url.PathEscape(v))
	}
	return pattern
}

// TestSwaggerClientEscapedSlash sends the request grpc-gateway's own
// integration test (testABEClientCreate) makes through its generated
// go-swagger client, string_value "strprefix/foo" escaped as
// strprefix%2Ffoo, to grpc-gateway's generated handlers and to protorest,
// each behind a real HTTP server: both must answer 200 with the same JSON,
// whose string_value is "strprefix/foo". It also sends the Library's
// escaped resource names to both.
func TestSwaggerClientEscapedSlash(t *testing.T) {
	mux := runtime.NewServeMux()
	if err := abev1.RegisterABitOfEverythingServiceHandlerServer(t.Context(), mux, abeServer{}); err != nil {
		t.Fatal(err)
	}
	gw := protorest.NewGateway()
	abev1.RegisterABitOfEverythingServiceServer(gw, abeServer{})
	servers := map[string]*httptest.Server{"grpc-gateway": httptest.NewServer(mux), "protorest": httptest.NewServer(gw)}
	for _, s := range servers {
		t.Cleanup(s.Close)
	}

	// The path pattern of the go-swagger client's
	// ABitOfEverythingServiceCreate operation, with the values of
	// testABEClientCreate.
	target := swaggerPath("/v1/example/a_bit_of_everything/{float_value}/{double_value}/{int64_value}/separator/{uint64_value}/{int32_value}/{fixed64_value}/{fixed32_value}/{bool_value}/{string_value}/{uint32_value}/{sfixed32_value}/{sfixed64_value}/{sint32_value}/{sint64_value}/{nonConventionalNameValue}/{enum_value}/{path_enum_value}/{nested_path_enum_value}/{enum_value_annotation}", map[string]string{
		"float_value":              "1.5",
		"double_value":             "2.5",
		"int64_value":              "4294967296",
		"uint64_value":             "9223372036854775807",
		"int32_value":              "-2147483648",
		"fixed64_value":            "9223372036854775807",
		"fixed32_value":            "4294967295",
		"bool_value":               "true",
		"string_value":             "strprefix/foo",
		"uint32_value":             "4294967295",
		"sfixed32_value":           "2147483647",
		"sfixed64_value":           "-4611686018427387904",
		"sint32_value":             "2147483647",
		"sint64_value":             "4611686018427387903",
		"nonConventionalNameValue": "camelCase",
		"enum_value":               "ZERO",
		"path_enum_value":          "ABC",
		"nested_path_enum_value":   "JKL",
		"enum_value_annotation":    "ZERO",
	})
	if !strings.Contains(target, "/strprefix%2Ffoo/") {
		t.Fatalf("the client's path %s does not escape the slash", target)
	}

	answers := map[string]Response{}
	for name, s := range servers {
		answers[name] = send(t, s, "POST", target)
	}
	want, got := answers["grpc-gateway"], answers["protorest"]
	if want.Status != http.StatusOK || !sameAnswer(want, got) {
		t.Fatalf("POST %s:\n  grpc-gateway: %d %s\n  protorest:    %d %s", target, want.Status, want.Body, got.Status, got.Body)
	}
	var m abev1.ABitOfEverything
	if err := protojson.Unmarshal(got.Body, &m); err != nil {
		t.Fatal(err)
	}
	if m.GetStringValue() != "strprefix/foo" || m.GetSint64Value() != 4611686018427387903 || m.GetNestedPathEnumValue() != abev1.MessagePathEnum_JKL {
		t.Errorf("protorest bound %v", &m)
	}
}

// TestEscapedResourceNames sends the Library's methods, with their
// resource names' slashes escaped as a generated client escapes them, to
// grpc-gateway and protorest behind real HTTP servers: each must answer
// what the Library answers when called directly with the unescaped names
// (the status, and the message or the error's code), and both alike.
func TestEscapedResourceNames(t *testing.T) {
	lib := NewLibrary()
	mux := runtime.NewServeMux()
	if err := libraryv1.RegisterLibraryHandlerServer(t.Context(), mux, lib); err != nil {
		t.Fatal(err)
	}
	gw := protorest.NewGateway()
	libraryv1.RegisterLibraryServer(gw, lib)
	servers := map[string]*httptest.Server{"grpc-gateway": httptest.NewServer(mux), "protorest": httptest.NewServer(gw)}
	for _, s := range servers {
		t.Cleanup(s.Close)
	}
	ctx := t.Context()
	const book = Shelf + "/books/003"
	for _, tt := range []struct {
		req Request
		// The Library's own answer to the call the request stands for:
		// the message a gateway must render with 200, or the error whose
		// code and HTTP status it must render.
		want    proto.Message
		wantErr error
	}{
		{req: Request{"GET", "/v1/shelves%2F1%2Fbooks%2F003", ""}, want: succeeds(lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: book}))},
		{req: Request{"GET", "/v1/shelves%2f1%2fbooks%2f003", ""}, want: succeeds(lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: book}))},
		{req: Request{"GET", "/v1/shelves%2F1/books?page_size=2", ""}, want: succeeds(lib.ListBooks(ctx, &libraryv1.ListBooksRequest{Parent: Shelf, PageSize: 2}))},
		{req: Request{"POST", "/v1/shelves%2F1/books", `{"title":"t","author":"a"}`}, want: succeeds(lib.CreateBook(ctx, &libraryv1.CreateBookRequest{Parent: Shelf, Book: &libraryv1.Book{Title: "t", Author: "a"}}))},
		{req: Request{"PATCH", "/v1/shelves%2F1%2Fbooks%2F003?update_mask=title", `{"title":"x"}`}, want: succeeds(lib.UpdateBook(ctx, &libraryv1.UpdateBookRequest{Book: &libraryv1.Book{Name: book, Title: "x"}, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"title"}}}))},
		{req: Request{"DELETE", "/v1/shelves%2F1%2Fbooks%2F003", ""}, want: succeeds(lib.DeleteBook(ctx, &libraryv1.DeleteBookRequest{Name: book}))},
		{req: Request{"GET", "/v1/shelves%2F1%2Fbooks%2F999", ""}, wantErr: fails(lib.GetBook(ctx, &libraryv1.GetBookRequest{Name: Shelf + "/books/999"}))},
	} {
		r := tt.req
		answers := map[string]Response{}
		for name, s := range servers {
			res := sendBody(t, s, r)
			answers[name] = res
			if err := checkAnswer(res, tt.want, tt.wantErr); err != nil {
				t.Errorf("%s %s %s: %s: %v", r.Method, r.Target, r.Body, name, err)
			}
		}
		if want, got := answers["grpc-gateway"], answers["protorest"]; !sameAnswer(want, got) {
			t.Errorf("%s %s %s:\n  grpc-gateway: %d %s\n  protorest:    %d %s", r.Method, r.Target, r.Body, want.Status, want.Body, got.Status, got.Body)
		}
	}
}

// succeeds is the message of a call that must succeed; fails is the
// error of one that must fail. Each panics otherwise: the table of
// TestEscapedResourceNames is wrong.
func succeeds[M proto.Message](m M, err error) proto.Message {
	if err != nil {
		panic(err)
	}
	return m
}

func fails[M proto.Message](_ M, err error) error {
	if err == nil {
		panic("the call succeeded")
	}
	return err
}

// checkAnswer reports how res differs from a gateway's rendering of a
// call that answered want, or failed with wantErr: 200 and want's JSON,
// or wantErr's HTTP status and a google.rpc.Status body with its code.
func checkAnswer(res Response, want proto.Message, wantErr error) error {
	if wantErr != nil {
		st := status.Convert(wantErr)
		var body struct{ Code codes.Code }
		if code := runtime.HTTPStatusFromCode(st.Code()); res.Status != code {
			return fmt.Errorf("status %d %s, want %d", res.Status, res.Body, code)
		}
		if err := json.Unmarshal(res.Body, &body); err != nil || body.Code != st.Code() {
			return fmt.Errorf("body %s, want a google.rpc.Status with code %d", res.Body, st.Code())
		}
		return nil
	}
	if res.Status != http.StatusOK {
		return fmt.Errorf("status %d %s, want 200", res.Status, res.Body)
	}
	got := want.ProtoReflect().New().Interface()
	if err := protojson.Unmarshal(res.Body, got); err != nil {
		return fmt.Errorf("body %s: %v", res.Body, err)
	}
	if !proto.Equal(got, want) {
		return fmt.Errorf("body %s, want %v", res.Body, want)
	}
	return nil
}

// send is sendBody without a body.
func send(t *testing.T, s *httptest.Server, method, target string) Response {
	t.Helper()
	return sendBody(t, s, Request{method, target, ""})
}

// sendBody sends r to s with s's client, the target as it is (its
// escapes kept), and reads the whole response.
func sendBody(t *testing.T, s *httptest.Server, r Request) Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), r.Method, s.URL+r.Target, strings.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return newResponse(res.StatusCode, res.Header, body)
}
