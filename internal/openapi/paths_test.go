package openapi

import (
	"slices"
	"testing"

	"github.com/protorest/protorest/internal/httprule"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		template string
		want     string
		params   []string
		values   []string // each parameter's variable value, when it has several pieces
	}{
		{template: "/", want: "/"},
		{template: "/v1/probes/{name}", want: "/v1/probes/{name}", params: []string{"name"}, values: []string{""}},
		{template: "/v1/nested/{inner.s}/{inner.i}", want: "/v1/nested/{inner.s}/{inner.i}", params: []string{"inner.s", "inner.i"}, values: []string{"", ""}},
		{template: "/v1/{name=shelves/*}", want: "/v1/shelves/{name}", params: []string{"name"}, values: []string{"shelves/{name}"}},
		{template: "/v1/{name=shelves/*/books/*}", want: "/v1/shelves/{name}/books/{name_1}", params: []string{"name", "name_1"},
			values: []string{"shelves/{name}/books/{name_1}", "shelves/{name}/books/{name_1}"}},
		{template: "/v1/files/{name=**}", want: "/v1/files/{name}", params: []string{"name"}, values: []string{""}},
		{template: "/v1/{name=tree/**}/meta", want: "/v1/tree/{name}/meta", params: []string{"name"}, values: []string{"tree/{name}"}},
		{template: "/v1/{name=probes/*}:archive", want: "/v1/probes/{name}:archive", params: []string{"name"}, values: []string{"probes/{name}"}},
		{template: "/**", want: "/{_segment}", params: []string{"_segment"}, values: []string{""}},
		{template: "/a/*/b/*", want: "/a/{_segment}/b/{_segment_1}", params: []string{"_segment", "_segment_1"}, values: []string{"", ""}},
		{template: "/{name=**}:do", want: "/{name}:do", params: []string{"name"}, values: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			tmpl, err := httprule.Parse(tt.template)
			if err != nil {
				t.Fatal(err)
			}
			p := new(pathShapes).path(tmpl)
			if p.key != tt.want {
				t.Errorf("path %q, want %q", p.key, tt.want)
			}
			var names, values []string
			for i, pp := range p.params {
				names = append(names, pp.name)
				v := ""
				if pp.to-pp.from > 1 {
					v = p.value(i)
				}
				values = append(values, v)
			}
			if !slices.Equal(names, tt.params) || !slices.Equal(values, tt.values) {
				t.Errorf("params %q values %q, want %q %q", names, values, tt.params, tt.values)
			}
		})
	}
}

// Two templates of one shape share the first one's parameter names:
// OpenAPI forbids paths that differ only in them.
func TestPathShapes(t *testing.T) {
	t.Parallel()
	shapes := new(pathShapes)
	for _, c := range []struct{ template, want string }{
		{"/v1/{name=shelves/*/books/*}", "/v1/shelves/{name}/books/{name_1}"},
		{"/v1/{book.name=shelves/*/books/*}", "/v1/shelves/{name}/books/{name_1}"},
		{"/v1/{parent=shelves/*}/books", "/v1/shelves/{parent}/books"},
		{"/v1/{name=shelves/*}", "/v1/shelves/{name}"},
		{"/v1/shelves/{parent}", "/v1/shelves/{name}"},
		{"/v1/shelves/{parent}:go", "/v1/shelves/{parent}:go"}, // another verb, another shape
	} {
		tmpl, err := httprule.Parse(c.template)
		if err != nil {
			t.Fatal(err)
		}
		p := shapes.path(tmpl)
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
