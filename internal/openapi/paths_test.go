package openapi

import (
	"slices"
	"testing"
)

// pathsOf returns the OpenAPI paths of custom routes of templates, named
// together.
func pathsOf(t testing.TB, templates ...string) []*openPath {
	t.Helper()
	shapes := new(pathShapes)
	for _, tmpl := range templates {
		shapes.path(&Route{Method: "GET", Template: mustParse(t, tmpl)})
	}
	shapes.finish()
	return shapes.all
}

func TestExpand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		template string
		want     string
		params   []string
		values   []string // each segment parameter's variable value
	}{
		{template: "/", want: "/"},
		{template: "/v1/probes/{name}", want: "/v1/probes/{name}", params: []string{"name"}, values: []string{""}},
		{template: "/v1/nested/{inner.s}/{inner.i}", want: "/v1/nested/{inner.s}/{inner.i}", params: []string{"inner.s", "inner.i"}, values: []string{"", ""}},
		// A segment is named after the collection before it, in the singular.
		{template: "/v1/{name=shelves/*}", want: "/v1/shelves/{shelf}", params: []string{"shelf"}, values: []string{"shelves/{shelf}"}},
		{template: "/v1/{name=shelves/*/books/*}", want: "/v1/shelves/{shelf}/books/{book}", params: []string{"shelf", "book"},
			values: []string{"shelves/{shelf}/books/{book}", "shelves/{shelf}/books/{book}"}},
		{template: "/v1/{name=policies/*/addresses/*/boxes/*/branches/*/dishes/*/data/*}",
			want:   "/v1/policies/{policy}/addresses/{address}/boxes/{box}/branches/{branch}/dishes/{dish}/data/{data}",
			params: []string{"policy", "address", "box", "branch", "dish", "data"}},
		{template: "/v1/files/{name=**}", want: "/v1/files/{name}", params: []string{"name"}, values: []string{""}},
		{template: "/v1/{name=tree/**}/meta", want: "/v1/tree/{tree}/meta", params: []string{"tree"}, values: []string{"tree/{tree}"}},
		{template: "/v1/{name=probes/*}:archive", want: "/v1/probes/{probe}:archive", params: []string{"probe"}, values: []string{"probes/{probe}"}},
		// No collection in the variable before it: the field path. Two
		// collections of one name, or a field of that name: 2, 3….
		{template: "/v1/{name=*/books/*}", want: "/v1/{name}/books/{book}", params: []string{"name", "book"},
			values: []string{"{name}/books/{book}", "{name}/books/{book}"}},
		{template: "/v1/{name=*/*}", want: "/v1/{name}/{name2}", params: []string{"name", "name2"}},
		{template: "/v1/{name=books/*/books/*/books/*}", want: "/v1/books/{book}/books/{book2}/books/{book3}", params: []string{"book", "book2", "book3"}},
		{template: "/v1/{shelf}/{name=shelves/*}", want: "/v1/{shelf}/shelves/{shelf2}", params: []string{"shelf", "shelf2"}},
		{template: "/v1/{book}/{name=books/*}", want: "/v1/{book}/books/{book2}", params: []string{"book", "book2"}},
		{template: "/v1/{name=books/*}/{book}", want: "/v1/books/{book2}/{book}", params: []string{"book2", "book"}},
		// A collection that cannot name a parameter: the field path.
		{template: "/v1/{name=a%20b/*}", want: "/v1/a%20b/{name}", params: []string{"name"}},
		{template: "/**", want: "/{_segment}", params: []string{"_segment"}, values: []string{""}},
		{template: "/a/*/b/*", want: "/a/{_segment}/b/{_segment_1}", params: []string{"_segment", "_segment_1"}, values: []string{"", ""}},
		{template: "/{name=**}:do", want: "/{name}:do", params: []string{"name"}, values: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			p := pathsOf(t, tt.template)[0]
			if p.key != tt.want {
				t.Errorf("path %q, want %q", p.key, tt.want)
			}
			var names, values []string
			for i, pp := range p.params {
				names = append(names, pp.name)
				v := ""
				if pp.segment {
					v = p.value(i)
				}
				values = append(values, v)
			}
			if !slices.Equal(names, tt.params) || tt.values != nil && !slices.Equal(values, tt.values) {
				t.Errorf("params %q values %q, want %q %q", names, values, tt.params, tt.values)
			}
		})
	}
}

func TestSingular(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"books": "book", "shelves": "shelf", "policies": "policy", "addresses": "address", "boxes": "box",
		"branches": "branch", "dishes": "dish", "data": "data", "access": "access", "ies": "ie", "s": "", "": "",
		"userEvents": "userEvent", "v1": "v1", "archives": "archive", "wolves": "wolf", "lves": "lf",
	} {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

// Two templates of one shape share the first one's parameter names:
// OpenAPI forbids paths that differ only in them.
func TestPathShapes(t *testing.T) {
	t.Parallel()
	cases := []struct{ template, want string }{
		{"/v1/{name=shelves/*/books/*}", "/v1/shelves/{shelf}/books/{book}"},
		{"/v1/{book.name=shelves/*/books/*}", "/v1/shelves/{shelf}/books/{book}"},
		{"/v1/{parent=shelves/*}/books", "/v1/shelves/{shelf}/books"},
		{"/v1/{name=shelves/*}", "/v1/shelves/{shelf}"},
		{"/v1/shelves/{parent}", "/v1/shelves/{shelf}"},
		{"/v1/shelves/{parent}:go", "/v1/shelves/{parent}:go"}, // another verb, another shape
	}
	var templates []string
	for _, c := range cases {
		templates = append(templates, c.template)
	}
	for i, p := range pathsOf(t, templates...) {
		c := cases[i]
		if p.key != c.want {
			t.Errorf("%s: path %q, want %q", c.template, p.key, c.want)
		}
		for _, pp := range p.params {
			if pp.field == "" {
				t.Errorf("%s: parameter %s lost its field", c.template, pp.name)
			}
		}
	}
}

func TestOperationIDTail(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/files/{id}":       "_files_id",
		"/ui/{path=**}":     "_ui_path",
		"/":                 "_root",
		"/v1/{name=a/*}:go": "_v1_name_go",
		"/openapi.json":     "_openapi_json",
		"/a-b/{x.y}/c":      "_a_b_x_y_c",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommentSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, summary, description string
	}{
		{raw: "", summary: "", description: ""},
		{raw: " GetShelf returns a shelf, or NOT_FOUND.\n", summary: "GetShelf returns a shelf, or NOT_FOUND."},
		{raw: " CreateShelf creates a shelf. The server assigns its name.\n", summary: "CreateShelf creates a shelf.", description: "The server assigns its name."},
		{raw: " DeleteShelf deletes a shelf. A shelf that still holds books is deleted\n only with `force`.\n",
			summary: "DeleteShelf deletes a shelf.", description: "A shelf that still holds books is deleted\nonly with `force`."},
		{raw: " Upper returns the message\n upper-cased.\n\n   curl -X POST localhost:9091/x\n",
			summary: "Upper returns the message upper-cased.", description: "  curl -X POST localhost:9091/x"},
		{raw: " Get gets it.\n (-- api-linter: core::0131=disabled\n     aip.dev/not-precedent: internal. --)\n", summary: "Get gets it."},
		{raw: " No full stop", summary: "No full stop"},
		{raw: " Version 1.2 is out. Then more.", summary: "Version 1.2 is out.", description: "Then more."},
	}
	for _, tt := range tests {
		s, d := cleanComment(tt.raw).split()
		if s != tt.summary || d != tt.description {
			t.Errorf("split(%q) = %q, %q; want %q, %q", tt.raw, s, d, tt.summary, tt.description)
		}
	}
}
