package main

import (
	"bytes"
	"strings"
	"testing"
)

// serve has the docs page at --docs-path, pointing at the document of
// --openapi-path, unless --docs=false or --openapi=false.
func TestServeDocs(t *testing.T) {
	t.Parallel()
	upstream := startUpstream(t, true)
	for _, tt := range []struct {
		name     string
		args     []string
		page     string
		status   int
		body     string // a part of the page
		spec     string // where the OpenAPI document is
		document string // a path it has, or ""
	}{
		{name: "default", page: "/docs/", status: 200, body: `data-document="../openapi.json"`,
			spec: "/openapi.json", document: `"/docs/{file}"`},
		{name: "moved", args: []string{"--docs-path", "/api/help", "--openapi-path", "/api/spec"}, page: "/api/help/", status: 200,
			body: `data-document="../../api/spec.json"`, spec: "/api/spec.json", document: `"/api/help/{file}"`},
		{name: "off", args: []string{"--docs=false"}, page: "/docs/", status: 404},
		{name: "no document, no page", args: []string{"--openapi=false"}, page: "/docs/", status: 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startServe(t, append([]string{"--upstream", upstream, "--access-log=false"}, tt.args...)...)
			status, body := s.do(t, "GET", tt.page, "")
			if status != tt.status || !strings.Contains(body, tt.body) {
				t.Errorf("GET %s: %d %.300s; want %d with %s", tt.page, status, body, tt.status, tt.body)
			}
			if status, body := s.do(t, "GET", tt.page+"swagger-ui-bundle.js", ""); tt.status == 200 && (status != 200 || len(body) < 1<<20) {
				t.Errorf("GET %sswagger-ui-bundle.js: %d, %d bytes", tt.page, status, len(body))
			}
			if tt.document != "" {
				_, doc := s.do(t, "GET", tt.spec, "")
				if !strings.Contains(doc, tt.document) {
					t.Errorf("the OpenAPI document lacks %s", tt.document)
				}
			}
		})
	}
}

func TestServeDocsFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string // a part of the error, or "" for none
	}{
		{args: []string{"--upstream", "x:1", "--docs-path", "/help"}},
		{args: []string{"--upstream", "x:1", "--docs-path", "help/"}, want: "--docs-path \"help/\": must start with /"},
		{args: []string{"--upstream", "x:1", "--docs-path", ""}, want: "--docs-path is empty"},
		{args: []string{"--upstream", "x:1", "--docs=false", "--docs-path", ""}},
		{args: []string{"--upstream", "x:1", "--openapi=false", "--docs-path", ""}},
	} {
		_, err := parseServeFlags(tt.args, func(string) (string, bool) { return "", false }, &bytes.Buffer{})
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}
