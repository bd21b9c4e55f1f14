package bench

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// gatewayProbes are requests outside the benchmarks' happy path, sent to
// grpc-gateway and protorest in-process by TestGatewayDifferences. known
// says how the two answer differently, on purpose or as observed; it is
// empty where they must agree.
var gatewayProbes = []struct {
	req   Request
	known string
}{
	{req: Request{"GET", "/v1/shelves/1/books/999", ""}},
	{req: Request{"GET", "/v1/shelves/1/books?pageSize=2", ""}},
	{req: Request{"GET", "/v1/shelves/1/books?page_size=abc", ""}},
	{req: Request{"GET", "/v1/shelves/1/books?page_size=1&page_size=2", ""}},
	{req: Request{"GET", "/v1/shelves/1/books/00%37", ""}},
	{req: Request{"GET", "/v1/shelves/1/books/0%2F07", ""}},
	{req: Request{"GET", "/v1/nope", ""}},
	{req: Request{"GET", "/v1/items?n=-1", ""}},
	{req: Request{"GET", "/v1/items?n=%2B2", ""}},
	{req: Request{"POST", "/v1/echo", `{"message":`}},
	{req: Request{"POST", "/v1/echo", `{"bogus":1,"message":"m"}`}},
	{req: Request{"POST", "/v1/echo", ``}},
	{req: Request{"POST", "/v1/echo", `{"id":12,"count":"7","tags":null}`}},
	{req: Request{"POST", "/v1/echo", `{"message":"x","message":"y"}`}},
	{req: Request{"PATCH", "/v1/shelves/1/books/003?updateMask=page_count", updatedBook}},
	{req: Request{"PATCH", "/v1/shelves/1/books/003", `{"title":"x","bogus":1}`}},
	{
		req:   Request{"GET", "/v1/shelves/1/books?page_size=2&unknown=1", ""},
		known: "unknown query parameter: grpc-gateway ignores it (200), protorest rejects it (400) unless WithDiscardUnknownQueryParameters",
	},
	{
		req:   Request{"POST", "/v1/shelves/1/books?book.title=q", `{"author":"a"}`},
		known: "query parameter on the body's field: grpc-gateway ignores it (200), protorest rejects it (400)",
	},
	{
		req:   Request{"PATCH", "/v1/shelves/1/books/003?update_mask=pageCount", updatedBook},
		known: "lowerCamel update_mask path: grpc-gateway passes pageCount through and the method rejects it (400), protorest converts it to page_count (200)",
	},
	{
		req:   Request{"PATCH", "/v1/shelves/1/books/003?update_mask=", `{"title":"t"}`},
		known: `empty update_mask: grpc-gateway sends paths [""] and the method rejects it (400), protorest derives [title] from the body (200)`,
	},
	{
		req:   Request{"PATCH", "/v1/shelves/1/books/003", `{}`},
		known: `PATCH {} without a mask: grpc-gateway derives paths [""] and the method rejects it (400), protorest derives an empty mask, so the method changes nothing (200, the book as it was)`,
	},
	{
		req:   Request{"POST", "/v1/echo", `{"message":"x"} trailing`},
		known: "data after the JSON body: grpc-gateway decodes the first value and ignores the rest (200), protorest rejects it (400)",
	},
	{
		req:   Request{"PUT", "/v1/echo", `{}`},
		known: "method not allowed: grpc-gateway answers 501 (code 12), protorest 405 (code 12) with an Allow header",
	},
	{
		req:   Request{"GET", "/v1/items/?n=1", ""},
		known: "trailing slash: grpc-gateway answers 404, protorest ignores it (200) unless WithStrictTrailingSlash",
	},
}

// TestGatewayDifferences sends gatewayProbes to grpc-gateway and
// protorest, in-process, and fails when they answer differently where no
// difference is known: a different status, a different error code, or a
// different JSON body on success (error messages may differ). Run with -v
// to see the known differences; a known one that has gone is reported
// too.
func TestGatewayDifferences(t *testing.T) {
	lib := NewLibrary()
	gg, err := NewGRPCGatewayInProcess(t.Context(), lib)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := NewProtorestInProcess(lib)
	if err != nil {
		t.Fatal(err)
	}
	for _, probe := range gatewayProbes {
		r := probe.req
		want, err := gg.Do(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pr.Do(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		same := sameAnswer(want, got)
		switch {
		case !same && probe.known == "":
			t.Errorf("%s %s %s:\n  grpc-gateway: %d %s\n  protorest:    %d %s", r.Method, r.Target, r.Body, want.Status, want.Body, got.Status, got.Body)
		case !same:
			t.Logf("known: %s\n  %s %s %s\n  grpc-gateway: %d %s\n  protorest:    %d %s", probe.known, r.Method, r.Target, r.Body, want.Status, want.Body, got.Status, got.Body)
		case probe.known != "":
			t.Logf("%s %s %s: both answer %d now; drop the known difference %q", r.Method, r.Target, r.Body, got.Status, probe.known)
		}
	}
}

// sameAnswer reports whether a and b have the same status and, on
// success, the same JSON value; on error, the same google.rpc.Status
// code.
func sameAnswer(a, b Response) bool {
	if a.Status != b.Status {
		return false
	}
	if a.Status != http.StatusOK {
		var sa, sb struct{ Code int }
		return json.Unmarshal(a.Body, &sa) == nil && json.Unmarshal(b.Body, &sb) == nil && sa.Code == sb.Code
	}
	va, errA := decodeJSON(a.Body)
	vb, errB := decodeJSON(b.Body)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

// decodeJSON decodes a JSON document with numbers as json.Number.
func decodeJSON(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
