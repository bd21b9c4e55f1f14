package openapi

import (
	"strings"
	"testing"

	"github.com/protorest/protorest/internal/httprule"
)

// FuzzResourcePattern: whatever a google.api.resource pattern holds, and
// whatever the variable, match never panics, and the names it returns
// are one per wildcard, each a pattern variable of the fitting shape; the
// segments then named are never two of one name.
func FuzzResourcePattern(f *testing.F) {
	for _, s := range [][2]string{
		{"shelves/{shelf}/books/{book}", "/v1/{name=shelves/*/books/*}"},
		{"shelves/{shelf}", "/v1/{name=shelves/*}"},
		{"files/{path=**}", "/v1/{name=files/**}"},
		{"shelves/{shelf}/books/{book}", "/v1/{name=libraries/*/books/*}"},
		{"{a}/{b}", "/v1/{name=*/*}"},
		{"a/{b}~{c}", "/v1/{name=a/*}"},
		{"a/{}/{=**}/{x=**}", "/v1/{name=a/*/*/**}"},
		{"", "/v1/{name=a/*}"},
		{"//", "/v1/{name=*/*}"},
		{"a/{x}/b/{x}", "/v1/{name=a/*/b/*}"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, template string) {
		tmpl, err := httprule.Parse(template)
		if err != nil || len(tmpl.Variables) == 0 {
			return
		}
		v := tmpl.Variables[0]
		segs := tmpl.Segments[v.Start:v.End]
		wildcards := 0
		for _, s := range segs {
			if s.Kind != httprule.Literal {
				wildcards++
			}
		}
		for _, trim := range []int{0, 2} {
			names := match([]string{pattern}, segs, trim)
			if names == nil {
				continue
			}
			if len(names) != wildcards {
				t.Fatalf("match(%q, %q, %d) = %q: %d names for %d wildcards", pattern, template, trim, names, len(names), wildcards)
			}
			for _, name := range names {
				if name == "" || strings.ContainsAny(name, "{}=*/") {
					t.Fatalf("match(%q, %q, %d): name %q", pattern, template, trim, name)
				}
			}
		}
		// Named as a path: no two parameters share a name.
		p := pathsOf(t, template)[0]
		for i := range p.params {
			for j := range i {
				if p.params[i].name == p.params[j].name {
					t.Fatalf("%s: two parameters %q", template, p.params[i].name)
				}
			}
		}
	})
}
