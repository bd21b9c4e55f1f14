package route

import (
	"maps"
	"slices"
	"testing"
)

// A matchCase is one request against a tree. want is the Value of the
// entry that must match ("" for none), vars the raw variables it must
// bind, and allowed what Allowed must return when nothing matches.
type matchCase struct {
	name         string
	method, path string
	want         string
	vars         map[string]string
	allowed      []string
}

func runMatchCases(t *testing.T, tree *Tree[string], cases []matchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var m Match[string]
			ok := tree.Match(tc.method, tc.path, &m)
			if tc.want == "" {
				if ok {
					t.Fatalf("Match(%s %s) = %s %s, want no match", tc.method, tc.path, m.Entry.Value, m.Entry.Template)
				}
				if m.Entry != nil {
					t.Errorf("failed Match left Entry = %v", m.Entry)
				}
				if got := tree.Allowed(tc.path); !slices.Equal(got, tc.allowed) {
					t.Errorf("Allowed(%s) = %q, want %q", tc.path, got, tc.allowed)
				}
				return
			}
			if !ok {
				t.Fatalf("Match(%s %s) = no match (Allowed %q), want %s", tc.method, tc.path, tree.Allowed(tc.path), tc.want)
			}
			if m.Entry.Value != tc.want {
				t.Fatalf("Match(%s %s) = %s %s, want %s", tc.method, tc.path, m.Entry.Value, m.Entry.Template, tc.want)
			}
			if got := vars(&m); !maps.Equal(got, tc.vars) && (len(got) != 0 || len(tc.vars) != 0) {
				t.Errorf("Match(%s %s) vars = %q, want %q", tc.method, tc.path, got, tc.vars)
			}
			if got := tree.Allowed(tc.path); !slices.Contains(got, m.Entry.Method) {
				t.Errorf("Allowed(%s) = %q, lacks the method of the match, %s", tc.path, got, m.Entry.Method)
			}
		})
	}
}

type vs = map[string]string

// probeMethods are the methods of /v1/probes/{name} in Fixture A.
var probeMethods = []string{"DELETE", "GET", "OPTIONS", "PATCH", "PUT"}

// TestMatchFixtureA runs the matching cases of conformance-cases.md on
// Fixture A, with PROFILE.md's outcomes (405 rather than 404 when only the
// method is wrong, trailing slashes ignored).
func TestMatchFixtureA(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, fixtureA)
	runMatchCases(t, tree, []matchCase{
		{name: "C001", method: "GET", path: "/v1/probes/abc", want: "GetProbe", vars: vs{"name": "abc"}},
		{name: "C003 literal beats variable", method: "GET", path: "/v1/probes/special", want: "GetSpecial"},
		{name: "C003 other method backtracks to variable", method: "PUT", path: "/v1/probes/special", want: "ReplaceProbe", vars: vs{"name": "special"}},
		{name: "C005 literals are case-sensitive", method: "GET", path: "/V1/probes/x"},
		{name: "C005 second segment", method: "GET", path: "/v1/Probes/x"},
		{name: "C007", method: "DELETE", path: "/v1/probes/abc", want: "DeleteProbe", vars: vs{"name": "abc"}},
		{name: "C008 405", method: "POST", path: "/v1/probes/abc", allowed: probeMethods},
		{name: "C009 HEAD is not GET", method: "HEAD", path: "/v1/probes/abc", allowed: probeMethods},
		{name: "method case-sensitive", method: "get", path: "/v1/probes/abc", allowed: probeMethods},
		{name: "OPTIONS custom kind", method: "OPTIONS", path: "/v1/probes/abc", want: "OptionsProbe", vars: vs{"name": "abc"}},
		{name: "C010 trailing slash ignored", method: "GET", path: "/v1/probes/abc/", want: "GetProbe", vars: vs{"name": "abc"}},
		{name: "C011 trailing slash to collection", method: "GET", path: "/v1/probes/", want: "ListProbes"},
		{name: "trailing slashes", method: "GET", path: "/v1/probes///", want: "ListProbes"},
		{name: "C013 interior empty segment", method: "GET", path: "/v1//probes/abc"},
		{name: "empty name between slashes", method: "GET", path: "/v1/probes//x"},
		{name: "list 405", method: "DELETE", path: "/v1/probes", allowed: []string{"GET", "POST"}},
		{name: "C029 verb", method: "POST", path: "/v1/probes/abc:archive", want: "ArchiveProbe", vars: vs{"name": "probes/abc"}},
		{name: "verb after trailing slash", method: "POST", path: "/v1/probes/abc:archive/", want: "ArchiveProbe", vars: vs{"name": "probes/abc"}},
		{name: "verb registered for POST only", method: "GET", path: "/v1/probes/abc:archive", allowed: []string{"POST"}},
		{name: "C031 unregistered verb is data", method: "GET", path: "/v1/probes/abc:zzz", want: "GetProbe", vars: vs{"name": "abc:zzz"}},
		{name: "C033 verbs are case-sensitive", method: "POST", path: "/v1/probes/x:Archive", allowed: probeMethods},
		{name: "C035 verb on collection", method: "GET", path: "/v1/probes:search", allowed: []string{"POST"}},
		{name: "C035 POST", method: "POST", path: "/v1/probes:search", want: "SearchProbes"},
		{name: "C037 last colon is the verb", method: "POST", path: "/v1/probes/a:b:archive", want: "ArchiveProbe", vars: vs{"name": "probes/a:b"}},
		{name: "C039 rename", method: "POST", path: "/v1/probes/p1:rename", want: "Rename", vars: vs{"parent": "p1"}},
		{name: "C041 additional binding with verb", method: "POST", path: "/v1/lookup:batch", want: "Lookup#2"},
		{name: "C045 encoded colon is data", method: "POST", path: "/v1/probes/abc%3Aarchive", allowed: probeMethods},
		{name: "C045 GET", method: "GET", path: "/v1/probes/abc%3Aarchive", want: "GetProbe", vars: vs{"name": "abc%3Aarchive"}},
		{name: "colon in earlier segment is data", method: "GET", path: "/v1/shelves/a:archive/books/b", want: "GetBook", vars: vs{"name": "shelves/a:archive/books/b"}},
		{name: "empty segment before verb", method: "POST", path: "/v1/probes/:archive", want: "ArchiveProbe", vars: vs{"name": "probes/"}},
		{name: "C047 encoded slash stays in the segment", method: "GET", path: "/v1/probes/a%2Fb", want: "GetProbe", vars: vs{"name": "a%2Fb"}},
		{name: "C049", method: "GET", path: "/v1/probes/a%20b", want: "GetProbe", vars: vs{"name": "a%20b"}},
		{name: "C051", method: "GET", path: "/v1/probes/%E4%BD%A0", want: "GetProbe", vars: vs{"name": "%E4%BD%A0"}},
		{name: "C053", method: "GET", path: "/v1/probes/%25", want: "GetProbe", vars: vs{"name": "%25"}},
		{name: "literal compares encoded text", method: "GET", path: "/v1/probes/speci%61l", want: "GetProbe", vars: vs{"name": "speci%61l"}},
		{name: "A4 multi-segment variable", method: "GET", path: "/v1/shelves/s1/books/b1", want: "GetBook", vars: vs{"name": "shelves/s1/books/b1"}},
		{name: "C055 too short", method: "GET", path: "/v1/shelves/s1/books"},
		{name: "C057 deep", method: "GET", path: "/v1/files/a/b/c", want: "GetFile", vars: vs{"name": "a/b/c"}},
		{name: "deep zero segments", method: "GET", path: "/v1/files", want: "GetFile", vars: vs{"name": ""}},
		{name: "deep zero segments, trailing slash", method: "GET", path: "/v1/files/", want: "GetFile", vars: vs{"name": ""}},
		{name: "deep keeps interior empty segments", method: "GET", path: "/v1/files/a//b/", want: "GetFile", vars: vs{"name": "a//b"}},
		{name: "C059 deep keeps %2F", method: "GET", path: "/v1/files/a%2Fb/c", want: "GetFile", vars: vs{"name": "a%2Fb/c"}},
		{name: "C063 deep then literal", method: "GET", path: "/v1/tree/a/b/meta", want: "GetTreeMeta", vars: vs{"name": "tree/a/b"}},
		{name: "C065 deep then repeated literal", method: "GET", path: "/v1/tree/a/meta/b/meta", want: "GetTreeMeta", vars: vs{"name": "tree/a/meta/b"}},
		{name: "deep before literal needs a segment", method: "GET", path: "/v1/tree/meta"},
		{name: "deep before literal, one segment", method: "GET", path: "/v1/tree/meta/meta", want: "GetTreeMeta", vars: vs{"name": "tree/meta"}},
		{name: "C067", method: "GET", path: "/v1/ids/123", want: "GetById", vars: vs{"id": "123"}},
		{name: "C071 empty id is the collection", method: "GET", path: "/v1/ids/"},
		{name: "nested field paths", method: "GET", path: "/v1/nested/a/7", want: "GetNested", vars: vs{"inner.s": "a", "inner.i": "7"}},
		{name: "C073 additional binding", method: "GET", path: "/v1/shelves/s1/lookup/n1", want: "Lookup#1", vars: vs{"parent": "s1", "name": "n1"}},
		{name: "lookup", method: "GET", path: "/v1/lookup/n1", want: "Lookup", vars: vs{"name": "n1"}},
		{name: "lookup:batch GET", method: "GET", path: "/v1/lookup:batch", allowed: []string{"POST"}},
		{name: "root has no route", method: "GET", path: "/"},
		{name: "no leading slash", method: "GET", path: "v1/probes"},
		{name: "asterisk-form", method: "OPTIONS", path: "*"},
	})
}

// TestMatchFixtureB covers precedence and backtracking (R19–R21).
func TestMatchFixtureB(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, fixtureB)
	runMatchCases(t, tree, []matchCase{
		{name: "C015 literal before variable", method: "GET", path: "/v1/x/b", want: "B2", vars: vs{"parent": "b"}},
		{name: "variable when literal does not match", method: "GET", path: "/v1/z/b", want: "B1", vars: vs{"name": "z"}},
		{name: "C017 backtracking", method: "GET", path: "/v1/x/y/e", want: "B4", vars: vs{"name": "x"}},
		{name: "B3", method: "GET", path: "/v1/x/y/d", want: "B3", vars: vs{"parent": "y"}},
		{name: "C019 star beats double star", method: "GET", path: "/v2/q", want: "B5", vars: vs{"name": "q"}},
		{name: "C021 double star matches zero segments", method: "GET", path: "/v2", want: "B6", vars: vs{"parent": ""}},
		{name: "double star, several segments", method: "GET", path: "/v2/q/r", want: "B6", vars: vs{"parent": "q/r"}},
		{name: "B7", method: "GET", path: "/v3/abc", want: "B7", vars: vs{"name": "abc"}},
		{name: "C023 any method PATCH", method: "PATCH", path: "/v5/abc", want: "B9", vars: vs{"name": "abc"}},
		{name: "C023 any method FOO", method: "FOO", path: "/v5/abc", want: "B9", vars: vs{"name": "abc"}},
		{name: "any method with a verb", method: "DELETE", path: "/v7/a:go", want: "B12", vars: vs{"name": "a"}},
		{name: "any method, verb missing", method: "DELETE", path: "/v7/a"},
		{name: "C025 star matches an empty segment", method: "GET", path: "/c//x", want: "B13", vars: vs{"name": "", "parent": "x"}},
		{name: "C043 verb after double star", method: "GET", path: "/v6/x:verb2/y:verb", want: "B10", vars: vs{"name": "x:verb2/y"}},
		{name: "double star without verb", method: "GET", path: "/v6/a/b", want: "B11", vars: vs{"name": "a/b"}},
		{name: "double star zero segments with verb", method: "GET", path: "/v6:verb", want: "B10", vars: vs{"name": ""}},
		{name: "unregistered verb is data under double star", method: "GET", path: "/v6/a:verb2", want: "B11", vars: vs{"name": "a:verb2"}},
		{name: "B1 405", method: "POST", path: "/v1/q/b", allowed: []string{"GET"}},
		{name: "backtracking 405 collects every branch", method: "POST", path: "/v1/x/b", allowed: []string{"GET"}},
		{name: "nothing", method: "GET", path: "/v4/a"},
	})
}

// TestMatchFixtureCD covers the root and "**" at the root (R21).
func TestMatchFixtureCD(t *testing.T) {
	t.Parallel()
	t.Run("C", func(t *testing.T) {
		t.Parallel()
		runMatchCases(t, newTree(t, false, fixtureC), []matchCase{
			{name: "C027 root", method: "GET", path: "/", want: "CatchAll", vars: vs{}},
			{name: "empty path", method: "GET", path: "", want: "CatchAll", vars: vs{}},
			{name: "all slashes", method: "GET", path: "//", want: "CatchAll", vars: vs{}},
			{name: "more specific route", method: "GET", path: "/v1/probes/abc", want: "GetProbe", vars: vs{"name": "abc"}},
			{name: "catch-all below a literal", method: "GET", path: "/v1/other", want: "CatchAll"},
			{name: "catch-all past a matching prefix", method: "GET", path: "/v1/probes/a/b", want: "CatchAll"},
			{name: "405 at root", method: "POST", path: "/", allowed: []string{"GET"}},
			{name: "405 everywhere", method: "POST", path: "/v1/probes/a", allowed: []string{"GET"}},
		})
	})
	t.Run("D", func(t *testing.T) {
		t.Parallel()
		runMatchCases(t, newTree(t, false, fixtureD), []matchCase{
			{name: "verb on root double star", method: "POST", path: "/a/b:do", want: "DoAnything", vars: vs{"name": "a/b"}},
			{name: "empty last segment before verb", method: "POST", path: "/:do", want: "DoAnything", vars: vs{"name": ""}},
			{name: "no verb", method: "POST", path: "/a/b"},
			{name: "405", method: "GET", path: "/a:do", allowed: []string{"POST"}},
		})
	})
}

// TestMatchExtra covers the root template, verbs that contain ":" and
// "**" followed by literals.
func TestMatchExtra(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, fixtureExtra)
	runMatchCases(t, tree, []matchCase{
		{name: "root", method: "GET", path: "/", want: "Root"},
		{name: "root, empty path", method: "GET", path: "", want: "Root"},
		{name: "root, all slashes", method: "GET", path: "///", want: "Root"},
		{name: "root 405", method: "POST", path: "/", allowed: []string{"GET"}},
		{name: "longest verb wins", method: "POST", path: "/x/abc:custom:custom", want: "CustomCustom", vars: vs{"uuid": "abc"}},
		{name: "shorter verb", method: "POST", path: "/x/abc:custom", want: "Custom", vars: vs{"uuid": "abc"}},
		{name: "verb with colon, data before", method: "POST", path: "/x/a:b:custom:custom", want: "CustomCustom", vars: vs{"uuid": "a:b"}},
		{name: "unregistered part of verb", method: "POST", path: "/x/a:zz:custom", want: "Custom", vars: vs{"uuid": "a:zz"}},
		{name: "deep inside variable with suffix", method: "GET", path: "/a/b/1/2/3/y/z/foo", want: "DeepSuffix", vars: vs{"x": "b/1/2/3/y/z"}},
		{name: "deep inside variable, one segment", method: "GET", path: "/a/b/1/2/y/z/foo", want: "DeepSuffix", vars: vs{"x": "b/1/2/y/z"}},
		{name: "deep inside variable needs a segment", method: "GET", path: "/a/b/1/y/z/foo"},
		{name: "shortest consumption first", method: "GET", path: "/d/1/m/n", want: "DeepMN", vars: vs{"p": "1"}},
		{name: "suffix m", method: "GET", path: "/d/1/n/m", want: "DeepM", vars: vs{"p": "1/n"}},
		{name: "suffix m with trailing m/n inside", method: "GET", path: "/d/m/n/m", want: "DeepM", vars: vs{"p": "m/n"}},
		{name: "any method falls back", method: "POST", path: "/d/1/m", want: "DeepMAny", vars: vs{"p": "1"}},
		{name: "exact method before any", method: "GET", path: "/d/1/m", want: "DeepM", vars: vs{"p": "1"}},
		{name: "method backtracks to longer consumption", method: "PUT", path: "/d/1/m/n", want: "DeepAll", vars: vs{"p": "1/m/n"}},
		{name: "any method before longer consumption", method: "PUT", path: "/d/1/m", want: "DeepMAny", vars: vs{"p": "1"}},
		{name: "final deep zero segments", method: "PUT", path: "/d", want: "DeepAll", vars: vs{"p": ""}},
		{name: "verb after suffix", method: "GET", path: "/d/a/b/m/n:act", want: "DeepMNAct", vars: vs{"p": "a/b"}},
		{name: "verb 405", method: "PUT", path: "/d/a/m/n:act", allowed: []string{"GET"}},
		{name: "no route for m/n with DELETE", method: "DELETE", path: "/d/1/m/n", allowed: []string{"GET", "PUT"}},
	})
}

// TestMatchAfterDeep: "*" and variables may follow "**", as grpc-gateway
// serves them; the "**" still takes one segment at least, the fewest
// that let the rest match.
func TestMatchAfterDeep(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, fixtureAfterDeep)
	runMatchCases(t, tree, []matchCase{
		{name: "variable after deep", method: "GET", path: "/e/a/b/c", want: "DeepVar", vars: vs{"p": "a/b", "name": "c"}},
		{name: "fewest consumed first", method: "GET", path: "/e/a/x/c", want: "DeepLitStar", vars: vs{"p": "a"}},
		{name: "one segment consumed", method: "GET", path: "/e/a/c", want: "DeepVar", vars: vs{"p": "a", "name": "c"}},
		{name: "deep needs a segment", method: "GET", path: "/e/c"},
		{name: "verb after deep and variable", method: "POST", path: "/e/a/b:go", want: "DeepVarVerb", vars: vs{"name": "b"}},
		{name: "405 after deep", method: "DELETE", path: "/e/a/b", allowed: []string{"GET"}},
		{name: "405 with a verb", method: "GET", path: "/e/a/b:go", allowed: []string{"POST"}},
		{name: "variables after deep", method: "GET", path: "/f/1/2/3/s/4", want: "DeepVars", vars: vs{"p": "1/2", "q": "3", "r": "s/4"}},
		{name: "literal in the suffix must match", method: "GET", path: "/f/1/2/3/t/4"},
	})
}

// TestMatchGatewayVerbs: the templates whose verb grpc-gateway's parser
// splits its own way match the requests grpc-gateway routes to them: a
// last literal and its verb are one text the request's last segment
// equals, and a verb's empty part is a colon in the request.
func TestMatchGatewayVerbs(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, fixtureGatewayVerbs)
	runMatchCases(t, tree, []matchCase{
		{name: "verb with an empty part", method: "GET", path: "/g/abc::v", want: "EmptyPartVerb", vars: vs{"x": "abc"}},
		{name: "its last part alone", method: "GET", path: "/g/abc:v", want: "Verb", vars: vs{"x": "abc"}},
		{name: "literal before an empty verb", method: "GET", path: "/g/x:a", want: "EmptyVerbLiteral"},
		{name: "the empty verb is not in the request", method: "GET", path: "/g/x:a:"},
		{name: "literal ending in a colon, then a verb", method: "GET", path: "/g/x::a", want: "ColonLiteral"},
		{name: "the literal without its colon", method: "GET", path: "/g/x:"},
		{name: "star and a colon are a literal", method: "GET", path: "/g/*:b:c", want: "StarLiteral"},
		{name: "not a wildcard", method: "GET", path: "/g/q:b:c", want: "StarVar", vars: vs{"y": "q"}},
		{name: "literal ending in a colon", method: "GET", path: "/h/a:", want: "ColonEnd"},
		{name: "not without it", method: "GET", path: "/h/a"},
		{name: "a root with a verb matches nothing", method: "GET", path: "/:v"},
	})
}

// TestMatchStrictTrailingSlash covers Tree.StrictTrailingSlash: the
// trailing empty segment is kept, as grpc-gateway does.
func TestMatchStrictTrailingSlash(t *testing.T) {
	t.Parallel()
	tree := newTree(t, true, fixtureA, fixtureExtra)
	runMatchCases(t, tree, []matchCase{
		{name: "collection", method: "GET", path: "/v1/probes", want: "ListProbes"},
		{name: "trailing slash is an empty name", method: "GET", path: "/v1/probes/", want: "GetProbe", vars: vs{"name": ""}},
		{name: "trailing slash after name", method: "GET", path: "/v1/probes/abc/"},
		{name: "C071 empty id", method: "GET", path: "/v1/ids/", want: "GetById", vars: vs{"id": ""}},
		{name: "root", method: "GET", path: "/", want: "Root"},
		{name: "root, empty path", method: "GET", path: "", want: "Root"},
		{name: "two slashes are two empty segments", method: "GET", path: "//"},
		{name: "deep matches the empty segment", method: "GET", path: "/v1/files/", want: "GetFile", vars: vs{"name": ""}},
		{name: "deep keeps the trailing slash", method: "GET", path: "/v1/files/a/", want: "GetFile", vars: vs{"name": "a/"}},
		{name: "no verb after trailing slash", method: "POST", path: "/v1/probes/abc:archive/"},
	})
}

// TestMatchBriefExamples are the precedence examples of the package's
// contract, each on a tree of its own.
func TestMatchBriefExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rules  []rule
		method string
		path   string
		want   string
		vars   vs
	}{
		{"literal before variable", []rule{{"GET", "/v1/{a}/b", "1"}, {"GET", "/v1/x/{c}", "2"}}, "GET", "/v1/x/b", "2", vs{"c": "b"}},
		{"literal before variable, other order", []rule{{"GET", "/v1/x/{c}", "2"}, {"GET", "/v1/{a}/b", "1"}}, "GET", "/v1/x/b", "2", vs{"c": "b"}},
		{"backtracking", []rule{{"GET", "/v1/x/{c}/d", "1"}, {"GET", "/v1/{a}/y/e", "2"}}, "GET", "/v1/x/y/e", "2", vs{"a": "x"}},
		{"star before double star", []rule{{"GET", "/v2/{parent=**}", "2"}, {"GET", "/v2/{name}", "1"}}, "GET", "/v2/q", "1", vs{"name": "q"}},
		{"double star then literal", []rule{{"GET", "/v1/{name=tree/**}/meta", "1"}}, "GET", "/v1/tree/a/meta/b/meta", "1", vs{"name": "tree/a/meta/b"}},
		{"double star then literal needs a segment", []rule{{"GET", "/v1/{name=tree/**}/meta", "1"}}, "GET", "/v1/tree/meta", "", nil},
		{"verb after double star", []rule{{"GET", "/v6/{name=**}", "2"}, {"GET", "/v6/{name=**}:verb", "1"}}, "GET", "/v6/x:verb2/y:verb", "1", vs{"name": "x:verb2/y"}},
		{"last colon", []rule{{"POST", "/v1/{name=probes/*}:archive", "1"}}, "POST", "/v1/probes/a:b:archive", "1", vs{"name": "probes/a:b"}},
		{"root double star", []rule{{"GET", "/**", "1"}}, "GET", "/", "1", vs{}},
		{"exact method before any", []rule{{"*", "/v1/{a}", "1"}, {"GET", "/v1/{b}", "2"}}, "GET", "/v1/q", "2", vs{"b": "q"}},
		{"any method", []rule{{"*", "/v1/{a}", "1"}, {"GET", "/v1/{b}", "2"}}, "POST", "/v1/q", "1", vs{"a": "q"}},
		{"any method on a literal before exact on a variable", []rule{{"*", "/v1/q", "1"}, {"GET", "/v1/{b}", "2"}}, "GET", "/v1/q", "1", vs{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tree := newTree(t, false, tc.rules)
			var m Match[string]
			ok := tree.Match(tc.method, tc.path, &m)
			switch {
			case tc.want == "" && ok:
				t.Fatalf("Match(%s %s) = %s, want no match", tc.method, tc.path, m.Entry.Template)
			case tc.want == "":
				return
			case !ok:
				t.Fatalf("Match(%s %s) = no match, want %s", tc.method, tc.path, tc.want)
			case m.Entry.Value != tc.want:
				t.Fatalf("Match(%s %s) = %s, want %s", tc.method, tc.path, m.Entry.Template, tc.want)
			}
			got := vars(&m)
			if len(got)+len(tc.vars) > 0 && !maps.Equal(got, tc.vars) {
				t.Errorf("vars = %q, want %q", got, tc.vars)
			}
		})
	}
}

// TestMatchNoAlloc checks that Match and RawVar do not allocate.
func TestMatchNoAlloc(t *testing.T) {
	tree := newTree(t, false, fixtureA, fixtureB, fixtureExtra)
	for _, p := range []string{
		"/v1/probes/abc", "/v1/tree/a/meta/b/meta", "/v1/probes/a:b:archive",
		"/v6/x:verb2/y:verb", "/d/a/b/m/n:act", "/v1/files/a/b/c/", "/nope", "/v1/x/y/e",
	} {
		var m Match[string]
		allocs := testing.AllocsPerRun(100, func() {
			if tree.Match("GET", p, &m) {
				for i := range m.Entry.Template.Variables {
					_ = m.RawVar(i)
				}
			}
		})
		if allocs != 0 {
			t.Errorf("Match(GET %s): %v allocs, want 0", p, allocs)
		}
	}
}

// TestMatchManyChildren crosses the slice-to-map threshold of the
// literal children.
func TestMatchManyChildren(t *testing.T) {
	t.Parallel()
	tree := new(Tree[string])
	const n = 40
	for i := range n {
		name := "c" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		e := &Entry[string]{Method: "GET", Template: parse(t, "/v1/"+name+"/{id}"), Value: name}
		if err := tree.Add(e); err != nil {
			t.Fatal(err)
		}
		for j := 0; j <= i; j++ {
			want := "c" + string(rune('a'+j%26)) + string(rune('a'+j/26))
			var m Match[string]
			if !tree.Match("GET", "/v1/"+want+"/7", &m) || m.Entry.Value != want || m.RawVar(0) != "7" {
				t.Fatalf("after %d adds: Match(/v1/%s/7) = %v", i+1, want, m.Entry)
			}
		}
	}
}

// TestMatchConcurrent runs Match, RawVar and Allowed from several
// goroutines on one tree (run with -race).
func TestMatchConcurrent(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, fixtureA, fixtureB)
	paths := []string{"/v1/probes/abc", "/v1/tree/a/meta/b/meta", "/v1/x/y/e", "/v6/x:verb2/y:verb", "/nope"}
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				p := paths[(g+i)%len(paths)]
				var m Match[string]
				if tree.Match("GET", p, &m) {
					for j := range m.Entry.Template.Variables {
						_ = m.RawVar(j)
					}
				} else {
					_ = tree.Allowed(p)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}
