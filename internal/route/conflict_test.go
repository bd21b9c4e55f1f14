package route

import (
	"errors"
	"strings"
	"testing"

	"github.com/protorest/protorest/internal/httprule"
)

func TestConflict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing rule
		add      rule
		// contains are substrings of the error; none means Add succeeds.
		contains []string
		path     string
	}{
		{
			name:     "exact duplicate",
			existing: rule{"GET", "/v1/probes/{name}", "GetProbe"},
			add:      rule{"GET", "/v1/probes/{name}", "GetProbe2"},
			contains: []string{
				"GET /v1/probes/{name} (conf.v1.Probes.GetProbe2) conflicts with GET /v1/probes/{name} (conf.v1.Probes.GetProbe)",
				"both match GET /v1/probes/x",
			},
			path: "/v1/probes/x",
		},
		{
			name:     "C022 same shape, other variable name",
			existing: rule{"GET", "/v3/{name=*}", "B7"},
			add:      rule{"GET", "/v3/{parent}", "B8"},
			contains: []string{"GET /v3/{parent} (conf.v1.B.B8)", "GET /v3/{name=*} (conf.v1.B.B7)", "GET /v3/x"},
			path:     "/v3/x",
		},
		{
			name:     "variable boundaries do not count",
			existing: rule{"GET", "/v1/{name=shelves/*}", "A"},
			add:      rule{"GET", "/v1/shelves/{id}", "B"},
			contains: []string{"/v1/shelves/{id}", "/v1/{name=shelves/*}", "both match GET /v1/shelves/x"},
			path:     "/v1/shelves/x",
		},
		{
			name:     "wildcard without variable",
			existing: rule{"GET", "/v3/*", "A"},
			add:      rule{"GET", "/v3/{id}", "B"},
			contains: []string{"/v3/x"},
			path:     "/v3/x",
		},
		{
			name:     "double star",
			existing: rule{"GET", "/v1/{name=tree/**}/meta", "A"},
			add:      rule{"GET", "/v1/tree/{rest=**}/meta", "B"},
			contains: []string{"both match GET /v1/tree/x/meta"},
			path:     "/v1/tree/x/meta",
		},
		{
			name:     "same verb",
			existing: rule{"POST", "/v1/{name=probes/*}:archive", "A"},
			add:      rule{"POST", "/v1/probes/{id}:archive", "B"},
			contains: []string{"both match POST /v1/probes/x:archive"},
			path:     "/v1/probes/x:archive",
		},
		{
			name:     "root",
			existing: rule{"GET", "/", "A"},
			add:      rule{"GET", "/", "B"},
			contains: []string{"GET / (conf.v1.Probes.B) conflicts with GET / (conf.v1.Probes.A): both match GET /"},
			path:     "/",
		},
		{
			name:     "any method twice",
			existing: rule{"*", "/v5/{name}", "A"},
			add:      rule{"*", "/v5/{id}", "B"},
			contains: []string{"* /v5/{id}", "both match * /v5/x"},
			path:     "/v5/x",
		},
		{
			name:     "a last literal and its verb are one text",
			existing: rule{"GET", "/v1/x:a", "A"},
			add:      rule{"GET", "/v1/x:a:", "B"},
			contains: []string{"GET /v1/x:a (conf.v1.Probes.B) conflicts with GET /v1/x:a (conf.v1.Probes.A)"},
			path:     "/v1/x:a",
		},
		{
			name:     "a literal that ends in a colon",
			existing: rule{"GET", "/h/a::", "A"},
			add:      rule{"GET", "/h/{x=a:}", "B"},
			contains: []string{"both match GET /h/a:"},
			path:     "/h/a:",
		},
		{name: "verb with an empty part and its last part", existing: rule{"GET", "/g/{x}::v", "A"}, add: rule{"GET", "/g/{x}:v", "B"}},
		{name: "different verbs", existing: rule{"POST", "/v1/{name=probes/*}:archive", "A"}, add: rule{"POST", "/v1/{name=probes/*}:restore", "B"}},
		{name: "verb and no verb", existing: rule{"GET", "/v6/{name=**}:verb", "A"}, add: rule{"GET", "/v6/{name=**}", "B"}},
		{name: "any method and GET", existing: rule{"*", "/v5/{name}", "A"}, add: rule{"GET", "/v5/{name}", "B"}},
		{name: "GET and any method", existing: rule{"GET", "/v5/{name}", "A"}, add: rule{"*", "/v5/{name}", "B"}},
		{name: "methods differ in case", existing: rule{"GET", "/v5/{name}", "A"}, add: rule{"get", "/v5/{name}", "B"}},
		{name: "star and double star", existing: rule{"GET", "/v2/{name}", "A"}, add: rule{"GET", "/v2/{name=**}", "B"}},
		{name: "literal and star", existing: rule{"GET", "/v1/probes/special", "A"}, add: rule{"GET", "/v1/probes/{name}", "B"}},
		{name: "different suffix after double star", existing: rule{"GET", "/d/{p=**}/m", "A"}, add: rule{"GET", "/d/{p=**}/m/n", "B"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tree := newTree(t, false, []rule{tc.existing})
			before := tree.String()
			err := tree.Add(newEntry(t, tc.add))
			if len(tc.contains) == 0 {
				if err != nil {
					t.Fatalf("Add: %v", err)
				}
				return
			}
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("Add = %v, want a *ConflictError", err)
			}
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if ce.Path != tc.path || ce.Method != tc.add.method {
				t.Errorf("Method, Path = %q, %q, want %q, %q", ce.Method, ce.Path, tc.add.method, tc.path)
			}
			// The example path really is matched by the existing entry.
			var m Match[string]
			if !tree.Match(ce.Method, ce.Path, &m) || m.Entry.Value != tc.existing.rpc {
				t.Errorf("Match(%s %s) = %v, want the existing entry", ce.Method, ce.Path, m.Entry)
			}
			if after := tree.String(); after != before {
				t.Errorf("failed Add changed the tree:\n%s\nwant:\n%s", after, before)
			}
		})
	}
}

// TestConflictFixtureB registers Fixture B in order: B8 fails, naming B7.
func TestConflictFixtureB(t *testing.T) {
	t.Parallel()
	tree := newTree(t, false, fixtureB[:7]) // B1…B7
	err := tree.Add(newEntry(t, rule{"GET", "/v3/{parent}", "B8"}))
	const want = "GET /v3/{parent} (conf.v1.B.B8) conflicts with GET /v3/{name=*} (conf.v1.B.B7): both match GET /v3/x"
	if err == nil || err.Error() != want {
		t.Fatalf("Add(B8) = %v, want %s", err, want)
	}
}

func TestAddInvalid(t *testing.T) {
	t.Parallel()
	lit := func(s string) httprule.Segment { return httprule.Segment{Kind: httprule.Literal, Value: s} }
	star := httprule.Segment{Kind: httprule.Wildcard}
	deep := httprule.Segment{Kind: httprule.DeepWildcard}
	tests := []struct {
		name  string
		entry *Entry[string]
		want  string
	}{
		{"nil entry", nil, "no template"},
		{"nil template", &Entry[string]{Method: "GET"}, "no template"},
		{"no method", &Entry[string]{Template: &httprule.Template{}}, "no method"},
		{"empty literal", &Entry[string]{Method: "GET", Template: &httprule.Template{Segments: []httprule.Segment{lit("")}}}, "literal"},
		{"slash in literal", &Entry[string]{Method: "GET", Template: &httprule.Template{Segments: []httprule.Segment{lit("a/b")}}}, "literal"},
		{"two deeps", &Entry[string]{Method: "GET", Template: &httprule.Template{Segments: []httprule.Segment{deep, deep}}}, "more than one"},
		{"bad kind", &Entry[string]{Method: "GET", Template: &httprule.Template{Segments: []httprule.Segment{{Kind: 9}}}}, "unknown kind"},
		{"slash in verb", &Entry[string]{Method: "GET", Template: &httprule.Template{Segments: []httprule.Segment{star}, Verb: "a/b"}}, "verb"},
		{"variable out of range", &Entry[string]{Method: "GET", Template: &httprule.Template{
			Segments: []httprule.Segment{star}, Variables: []httprule.Variable{{FieldPath: []string{"a"}, Start: 0, End: 2}},
		}}, "out of range"},
		{"variables overlap", &Entry[string]{Method: "GET", Template: &httprule.Template{
			Segments:  []httprule.Segment{star, star},
			Variables: []httprule.Variable{{FieldPath: []string{"a"}, Start: 0, End: 2}, {FieldPath: []string{"b"}, Start: 1, End: 2}},
		}}, "out of order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var tree Tree[string]
			err := tree.Add(tc.entry)
			if err == nil || !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Add = %v, want an error containing %q", err, tc.want)
			}
			if got := tree.String(); got != "/\n" {
				t.Errorf("failed Add changed the tree: %q", got)
			}
		})
	}
}
