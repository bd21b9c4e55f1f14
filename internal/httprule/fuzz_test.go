package httprule

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// grammar is the context-free part of the grammar as a regular expression,
// an oracle independent of the parser. Parse also rejects what grammar
// matches when a "**" is followed by a non-literal or a field path repeats.
var grammar = func() *regexp.Regexp {
	const (
		lit  = `[^/:{}*]+`
		seg  = `(?:\*\*?|` + lit + `)`
		segs = seg + `(?:/` + seg + `)*`
		path = `[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*`
		top  = `(?:` + seg + `|\{` + path + `(?:=` + segs + `)?\})`
	)
	return regexp.MustCompile(`^(?:/|/` + top + `(?:/` + top + `)*(?::` + lit + `)*)$`)
}()

// FuzzParse checks that Parse never panics and that every template it
// accepts round-trips through String. The checked-in corpus lives in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		// Valid.
		"/", "/v1/{name}", "/v1/{name=*}", "/v1/{name=shelves/*/books/*}",
		"/v1/{uuid}:custom:custom", "/a/{x=b/*/**/y/z}/foo", "/v1/{name=tree/**}/meta",
		"/v1/{name=probes/*}:archive", "/v1/probes:search", "/v1/nested/{inner.s}/{inner.i}",
		"/**", "/a/**:go", "/a/**/{y=c}", "/a=b/{x=c=d}",
		// Invalid.
		"", "a/b", "/a/", "//", "/a//b", "/{}", "/:verb", "/a/:verb", "/*:", "/book/{",
		"/a{x}", "/{x}a", "/{var=a/{nested=b}}", "/a/**/*", "/a/**/**", "/a/{x=b/**}/{y}",
		"/{a}/{a}", "/{a..b}", "/{.a}", "/a/*:", "/v1/x::a", "/***",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := Parse(s)
		if matched := grammar.MatchString(s); err == nil && !matched {
			t.Fatalf("Parse(%q) succeeded; the grammar does not match it", s)
		} else if err != nil && matched {
			if msg := err.Error(); !strings.Contains(msg, `"**"`) && !strings.Contains(msg, "duplicate variable") {
				t.Fatalf("Parse(%q): %v; the grammar matches it", s, err)
			}
		}
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("Parse(%q) error %T, want *SyntaxError", s, err)
			}
			if se.Column < 1 || se.Column > len(s)+1 || se.Msg == "" {
				t.Fatalf("Parse(%q): bad error %+v", s, *se)
			}
			return
		}
		str := tmpl.String()
		again, err := Parse(str)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q, which does not parse: %v", s, str, err)
		}
		if !reflect.DeepEqual(tmpl, again) {
			t.Fatalf("Parse(%q) = %+v\nParse(%q) = %+v", s, *tmpl, str, *again)
		}
		if str2 := again.String(); str2 != str {
			t.Fatalf("String not idempotent: %q, then %q", str, str2)
		}
		// Parse records every distinction the grammar makes.
		if str != s {
			t.Fatalf("Parse(%q).String() = %q", s, str)
		}
		checkInvariants(t, s, tmpl)
	})
}

// checkInvariants checks the structural promises of a parsed Template.
func checkInvariants(t *testing.T, s string, tmpl *Template) {
	t.Helper()
	deep := -1
	for i, seg := range tmpl.Segments {
		switch {
		case seg.Kind == Literal && seg.Value == "":
			t.Fatalf("Parse(%q): empty literal at %d", s, i)
		case seg.Kind != Literal && seg.Value != "":
			t.Fatalf("Parse(%q): non-literal with value at %d", s, i)
		case deep >= 0 && seg.Kind != Literal:
			t.Fatalf("Parse(%q): segment %d after \"**\" is not a literal", s, i)
		case seg.Kind == DeepWildcard:
			deep = i
		}
	}
	if got := tmpl.DeepIndex(); got != deep {
		t.Fatalf("Parse(%q).DeepIndex() = %d, want %d", s, got, deep)
	}
	end := 0
	for _, v := range tmpl.Variables {
		if v.Start < end || v.End <= v.Start || v.End > len(tmpl.Segments) || len(v.FieldPath) == 0 {
			t.Fatalf("Parse(%q): bad variable %+v", s, v)
		}
		end = v.End
	}
}
