package route

import (
	"slices"
	"testing"
)

func TestDecodeSlashes(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"", "", false},
		{"/v1/shelves/1", "/v1/shelves/1", false},
		{"/v1/shelves%2F1", "/v1/shelves/1", true},
		{"/v1/shelves%2f1%2Fbooks%2f2", "/v1/shelves/1/books/2", true},
		{"%2F", "/", true},
		{"%2F%2F", "//", true},
		{"/a%252Fb", "/a%252Fb", false},      // %25 is the escape, "2F" data
		{"/a%25%2Fb", "/a%25/b", true},       // an escape, then a slash
		{"/a%3A%2Fb%20", "/a%3A/b%20", true}, // the others stay encoded
		{"/a%2", "/a%2", false},
		{"/a%", "/a%", false},
		{"/a%zz%2Fb", "/a%zz/b", true}, // malformed escapes are left to the variables' decoding
		{"/a%%2Fb", "/a%/b", true},     // likewise
		{"/a%2Gb%2F", "/a%2Gb/", true}, // not hex
		{"/a%F2%2F", "/a%F2/", true},   // %F2 is not %2F
		{"/a%2F:archive", "/a/:archive", true},
	} {
		got, ok := DecodeSlashes(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("DecodeSlashes(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { DecodeSlashes("/v1/shelves/1%20a/books/%3A") }); n != 0 {
		t.Errorf("DecodeSlashes without an encoded slash: %v allocs, want 0", n)
	}
}

// TestMatchEncodedSlashFallback runs requests whose path parameters a
// client escaped (as grpc-gateway's generated OpenAPI clients do) against
// Fixture A, with the fallback and without.
func TestMatchEncodedSlashFallback(t *testing.T) {
	t.Parallel()
	fallback := newTree(t, false, fixtureA)
	fallback.EncodedSlashFallback = true
	runMatchCases(t, fallback, []matchCase{
		{name: "multi-segment name", method: "GET", path: "/v1/shelves%2F1%2Fbooks%2F2", want: "GetBook", vars: vs{"name": "shelves/1/books/2"}},
		{name: "lower case hex", method: "GET", path: "/v1/shelves%2f1%2fbooks%2f2", want: "GetBook", vars: vs{"name": "shelves/1/books/2"}},
		{name: "partly escaped", method: "GET", path: "/v1/shelves/1%2Fbooks/2", want: "GetBook", vars: vs{"name": "shelves/1/books/2"}},
		{name: "other escapes stay", method: "GET", path: "/v1/shelves%2F1%20a%2Fbooks%2F%3A", want: "GetBook", vars: vs{"name": "shelves/1%20a/books/%3A"}},
		{name: "verb after escaped name", method: "POST", path: "/v1/probes%2Fabc:archive", want: "ArchiveProbe", vars: vs{"name": "probes/abc"}},
		{name: "deep variable", method: "GET", path: "/v1/tree%2Fa%2Fb/meta", want: "GetTreeMeta", vars: vs{"name": "tree/a/b"}},
		// The path matches as written: the fallback is not tried, and %2F
		// stays data in the variable (decoded to "/" later, in one segment).
		{name: "matches as written", method: "GET", path: "/v1/probes/a%2Fb", want: "GetProbe", vars: vs{"name": "a%2Fb"}},
		{name: "matches as written, deep", method: "GET", path: "/v1/files/a%2Fb/c", want: "GetFile", vars: vs{"name": "a%2Fb/c"}},
		// C045 holds in the fallback: an encoded colon is never a verb.
		// The decoded path matches /v1/probes/{name} for other methods: 405.
		{name: "encoded colon is no verb", method: "POST", path: "/v1/probes%2Fabc%3Aarchive", allowed: probeMethods},
		{name: "405 from the fallback", method: "DELETE", path: "/v1/shelves%2F1%2Fbooks%2F2", allowed: []string{"GET"}},
		{name: "404 after the fallback", method: "GET", path: "/v1/shelves%2F1%2Fnope", allowed: nil},
		{name: "%25 is not a slash", method: "GET", path: "/v1/shelves%252F1%252Fbooks%252F2", allowed: nil},
	})
	plain := newTree(t, false, fixtureA)
	runMatchCases(t, plain, []matchCase{
		{name: "no fallback", method: "GET", path: "/v1/shelves%2F1%2Fbooks%2F2", allowed: nil},
		{name: "no fallback, verb", method: "POST", path: "/v1/probes%2Fabc:archive", allowed: nil},
		{name: "no fallback, 405", method: "DELETE", path: "/v1/shelves%2F1%2Fbooks%2F2", allowed: nil},
	})
}

// TestAllowedEncodedSlashFallback: a path that matches one method as
// written and another only with its slashes decoded serves both; Allow
// lists both.
func TestAllowedEncodedSlashFallback(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, []rule{
		{"GET", "/v1/{id}/books", "ListById"},
		{"POST", "/v1/{parent=shelves/*}/books", "CreateBook"},
	})
	tree.EncodedSlashFallback = true
	runMatchCases(t, tree, []matchCase{
		{name: "as written", method: "GET", path: "/v1/shelves%2F1/books", want: "ListById", vars: vs{"id": "shelves%2F1"}},
		{name: "decoded", method: "POST", path: "/v1/shelves%2F1/books", want: "CreateBook", vars: vs{"parent": "shelves/1"}},
		{name: "405", method: "PUT", path: "/v1/shelves%2F1/books", allowed: []string{"GET", "POST"}},
	})
	if got := tree.Allowed("/v1/shelves%2F1/books"); !slices.Equal(got, []string{"GET", "POST"}) {
		t.Errorf("Allowed = %q", got)
	}
}

// TestMatchNoAllocFallback: with the fallback on, paths that match as
// written, and paths without an encoded slash, still match without
// allocating.
func TestMatchNoAllocFallback(t *testing.T) {
	tree := newTree(t, false, fixtureA, fixtureB, fixtureExtra)
	tree.EncodedSlashFallback = true
	for _, p := range []string{"/v1/probes/abc", "/v1/probes/a%2Fb", "/v1/shelves/1/books/2", "/nope", "/v1/nope%20x/y"} {
		var m Match[string]
		if n := testing.AllocsPerRun(100, func() { tree.Match("GET", p, &m) }); n != 0 {
			t.Errorf("Match(GET %s): %v allocs, want 0", p, n)
		}
	}
}
