package route_test

import (
	"fmt"

	"github.com/protorest/protorest/internal/httprule"
	"github.com/protorest/protorest/internal/route"
)

func Example() {
	var tree route.Tree[string]
	for _, r := range []struct{ method, template, rpc string }{
		{"GET", "/v1/{name=shelves/*/books/*}", "GetBook"},
		{"GET", "/v1/shelves/{shelf}/books/special", "GetSpecialBook"},
		{"POST", "/v1/{name=shelves/*/books/*}:archive", "ArchiveBook"},
		{"GET", "/v1/files/{path=**}", "GetFile"},
	} {
		tmpl, err := httprule.Parse(r.template)
		if err != nil {
			panic(err)
		}
		if err := tree.Add(&route.Entry[string]{Method: r.method, Template: tmpl, Name: r.rpc, Value: r.rpc}); err != nil {
			panic(err)
		}
	}

	var m route.Match[string]
	for _, req := range []struct{ method, path string }{
		{"GET", "/v1/shelves/s1/books/b%2F1"},
		{"GET", "/v1/shelves/s1/books/special/"},
		{"POST", "/v1/shelves/s1/books/b1:archive"},
		{"GET", "/v1/files/a/b%20c"},
		{"DELETE", "/v1/shelves/s1/books/b1"},
	} {
		if !tree.Match(req.method, req.path, &m) {
			fmt.Printf("%s %s: no match, allowed %q\n", req.method, req.path, tree.Allowed(req.path))
			continue
		}
		raw := m.RawVar(0)
		val, _ := route.UnescapeMulti(raw, route.UnescapeAllExceptSlash)
		fmt.Printf("%s %s: %s %s=%q\n", req.method, req.path, m.Entry.Value, m.Entry.Template.Variables[0].FieldPath[0], val)
	}

	tmpl, _ := httprule.Parse("/v1/shelves/{shelf}/books/{book}")
	fmt.Println(tree.Add(&route.Entry[string]{Method: "GET", Template: tmpl, Name: "GetBook2"}))
	// Output:
	// GET /v1/shelves/s1/books/b%2F1: GetBook name="shelves/s1/books/b%2F1"
	// GET /v1/shelves/s1/books/special/: GetSpecialBook shelf="s1"
	// POST /v1/shelves/s1/books/b1:archive: ArchiveBook name="shelves/s1/books/b1"
	// GET /v1/files/a/b%20c: GetFile path="a/b c"
	// DELETE /v1/shelves/s1/books/b1: no match, allowed ["GET"]
	// GET /v1/shelves/{shelf}/books/{book} (GetBook2) conflicts with GET /v1/{name=shelves/*/books/*} (GetBook): both match GET /v1/shelves/x/books/x
}
