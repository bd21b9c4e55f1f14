package route

import (
	"strings"
	"testing"

	"github.com/protorest/protorest/internal/httprule"
)

// A rule is one google.api.http binding of a fixture in
// shared/spec/conformance-cases.md. The entry's Value is the RPC's short
// name (or the binding id where an RPC has several), its Name the full one.
type rule struct {
	method, template, rpc string
}

// fixtureA is Fixture A: service conf.v1.Probes.
var fixtureA = []rule{
	{"GET", "/v1/probes/{name}", "GetProbe"},                  // A1
	{"GET", "/v1/probes", "ListProbes"},                       // A2
	{"GET", "/v1/probes/special", "GetSpecial"},               // A3
	{"GET", "/v1/{name=shelves/*/books/*}", "GetBook"},        // A4
	{"GET", "/v1/files/{name=**}", "GetFile"},                 // A5
	{"GET", "/v1/{name=tree/**}/meta", "GetTreeMeta"},         // A6
	{"POST", "/v1/{name=probes/*}:archive", "ArchiveProbe"},   // A7
	{"PATCH", "/v1/probes/{name}", "UpdateProbe"},             // A8
	{"POST", "/v1/probes", "CreateProbe"},                     // A9
	{"PUT", "/v1/probes/{name}", "ReplaceProbe"},              // A10
	{"GET", "/v1/ids/{id}", "GetById"},                        // A11
	{"GET", "/v1/nested/{inner.s}/{inner.i}", "GetNested"},    // A12
	{"GET", "/v1/lookup/{name}", "Lookup"},                    // A13
	{"GET", "/v1/shelves/{parent}/lookup/{name}", "Lookup#1"}, // A13, additional binding
	{"POST", "/v1/lookup:batch", "Lookup#2"},                  // A13, additional binding
	{"OPTIONS", "/v1/probes/{name}", "OptionsProbe"},          // A14
	{"DELETE", "/v1/probes/{name}", "DeleteProbe"},            // A15
	{"POST", "/v1/probes:search", "SearchProbes"},             // A16
	{"POST", "/v1/uploads/{name}", "Upload"},                  // A17
	{"POST", "/v1/raw", "RawEcho"},                            // A18
	{"GET", "/v1/download/{name}", "Download"},                // A19
	{"GET", "/v1/pages/{name}", "GetPage"},                    // A20
	{"GET", "/v1/watch/{name}", "Watch"},                      // A21
	{"POST", "/v1/bulk", "BulkCreate"},                        // A22
	{"POST", "/v1/chat", "Chat"},                              // A23
	{"POST", "/v1/probes/{parent}:rename", "Rename"},          // A24
	{"GET", "/v1/stream-download/{name}", "StreamDownload"},   // A25
}

// fixtureB is Fixture B, without B8 (get "/v3/{parent}"), which conflicts
// with B7 (see TestConflict).
var fixtureB = []rule{
	{"GET", "/v1/{name}/b", "B1"},
	{"GET", "/v1/x/{parent}", "B2"},
	{"GET", "/v1/x/{parent}/d", "B3"},
	{"GET", "/v1/{name}/y/e", "B4"},
	{"GET", "/v2/{name}", "B5"},
	{"GET", "/v2/{parent=**}", "B6"},
	{"GET", "/v3/{name=*}", "B7"},
	{"*", "/v5/{name}", "B9"},
	{"GET", "/v6/{name=**}:verb", "B10"},
	{"GET", "/v6/{name=**}", "B11"},
	{"*", "/v7/{name}:go", "B12"},
	{"GET", "/c/{name}/{parent}", "B13"},
}

// fixtureC is Fixture C: a catch-all with A1 and A2.
var fixtureC = []rule{
	{"GET", "/**", "CatchAll"},
	{"GET", "/v1/probes/{name}", "GetProbe"},
	{"GET", "/v1/probes", "ListProbes"},
}

// fixtureD is Fixture D.
var fixtureD = []rule{
	{"POST", "/{name=**}:do", "DoAnything"},
}

// fixtureExtra holds templates the fixtures lack: the root, verbs that
// contain ":", a "**" inside a variable followed by literals, and several
// suffixes under one "**".
var fixtureExtra = []rule{
	{"GET", "/", "Root"},
	{"POST", "/x/{uuid}:custom", "Custom"},
	{"POST", "/x/{uuid}:custom:custom", "CustomCustom"},
	{"GET", "/a/{x=b/*/**/y/z}/foo", "DeepSuffix"},
	{"GET", "/d/{p=**}/m", "DeepM"},
	{"GET", "/d/{p=**}/m/n", "DeepMN"},
	{"PUT", "/d/{p=**}", "DeepAll"},
	{"GET", "/d/{p=**}/m/n:act", "DeepMNAct"},
	{"*", "/d/{p=**}/m", "DeepMAny"},
}

// fixtureAfterDeep holds templates with "*" and variables after "**",
// which grpc-gateway serves.
var fixtureAfterDeep = []rule{
	{"GET", "/e/{p=**}/{name}", "DeepVar"},
	{"GET", "/e/{p=**}/x/*", "DeepLitStar"},
	{"POST", "/e/**/{name}:go", "DeepVarVerb"},
	{"GET", "/f/{p=**}/{q}/{r=s/*}", "DeepVars"},
}

// fixtureGatewayVerbs holds templates whose verb grpc-gateway's parser
// splits its own way: with an empty part after a variable ("::v"), and
// in a last literal at its last colon, leaving an empty verb ("x:a:" is
// the literal "x:a") or a literal that ends in a colon ("x::a" is the
// literal "x:" and the verb "a").
var fixtureGatewayVerbs = []rule{
	{"GET", "/g/{x}::v", "EmptyPartVerb"},
	{"GET", "/g/{x}:v", "Verb"},
	{"GET", "/g/x:a:", "EmptyVerbLiteral"},
	{"GET", "/g/x::a", "ColonLiteral"},
	{"GET", "/g/*:b:c", "StarLiteral"},
	{"GET", "/g/{y}:b:c", "StarVar"},
	{"GET", "/h/a::", "ColonEnd"},
	{"GET", "/:v", "RootVerb"},
}

func parse(tb testing.TB, s string) *httprule.Template {
	tb.Helper()
	tmpl, err := httprule.Parse(s)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", s, err)
	}
	return tmpl
}

func newEntry(tb testing.TB, r rule) *Entry[string] {
	tb.Helper()
	// B1…B13 are RPCs of Fixture B's service; the others are conf.v1.Probes'.
	svc := "conf.v1.Probes."
	if len(r.rpc) >= 2 && r.rpc[0] == 'B' && '0' <= r.rpc[1] && r.rpc[1] <= '9' {
		svc = "conf.v1.B."
	}
	name := svc + strings.Split(r.rpc, "#")[0]
	return &Entry[string]{Method: r.method, Template: parse(tb, r.template), Name: name, Value: r.rpc}
}

// newTree builds a tree of the rules; every Add must succeed.
func newTree(tb testing.TB, strict bool, fixtures ...[]rule) *Tree[string] {
	tb.Helper()
	t := &Tree[string]{StrictTrailingSlash: strict}
	for _, f := range fixtures {
		for _, r := range f {
			if err := t.Add(newEntry(tb, r)); err != nil {
				tb.Fatalf("Add(%s %s): %v", r.method, r.template, err)
			}
		}
	}
	return t
}

// vars returns the raw variables of m by dotted field path.
func vars(m *Match[string]) map[string]string {
	vs := make(map[string]string)
	for i, v := range m.Entry.Template.Variables {
		vs[strings.Join(v.FieldPath, ".")] = m.RawVar(i)
	}
	return vs
}
